/* The stream pass's register mode (regq=1 with whole warps along x): no shared memory and no
 * barrier. Each thread walks its x column along SD and keeps every window plane it reads in
 * registers: its own value v, and for planes read at x offsets one x-halo value e (lanes
 * 0..hx-1 of a warp load the hx columns left of the warp, lanes 32-hx..31 the hx columns right
 * of it). A neighbour at x offset dx is then a warp shuffle of v from lane+dx, or, past the
 * warp's edge, a shuffle of e. In 3D a thread computes `bm` adjacent rows along the other
 * in-plane axis (ab) and loads the bm + 2hb rows they read, so ab neighbours are registers too.
 * Indices: one 64-bit base pointer per buffer advanced by the plane stride; rows and x offsets
 * are 32-bit. */
#include "opt.h"
#include "opt_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    CgCtx ctx; /* first: the read hook gets &RegCtx.ctx */
    const StreamGeom *g;
    int o;     /* output row of the strip being emitted */
} RegCtx;

static const char axis_letter[3] = {'x', 'y', 'z'};

/* Register names: v<k>_<row>_<pos> (own column), e<k>_<row>_<pos> (x-halo lane value),
 * x<k>_<row>_<pos>_<dx> (the neighbour at dx, from shuffles). */
static void reg_name(StrBuf *out, char kind, int k, int r, int p)
{
    char a[16], b[16];
    sb_printf(out, "%c%d_%s_%s", kind, k, cg_stream_signed_name(a, r), cg_stream_signed_name(b, p));
}

static void reg_read(CgCtx *ctx, const IrNode *n, StrBuf *out)
{
    const RegCtx *rc = (const RegCtx *)ctx;
    const StreamGeom *g = rc->g;
    int k = cg_stream_find_src(g, n->field, n->level);
    if (k < 0) {
        CgReadHook hook = ctx->read_hook;
        ctx->read_hook = NULL;
        cg_emit_read(ctx, n, out);
        ctx->read_hook = hook;
        return;
    }
    int r = rc->o + (g->ab > 0 ? n->off[g->ab] : 0);
    reg_name(out, n->off[0] ? 'x' : 'v', k, r, n->off[g->sd]);
    if (n->off[0]) {
        char a[16];
        sb_printf(out, "_%s", cg_stream_signed_name(a, n->off[0]));
    }
}

/* The distinct (source, row, position, dx != 0) neighbours read by the strip's outputs. */
typedef struct {
    int k, r, p, dx;
} Nbr;

static int collect_nbrs(const IrProgram *prog, int stage, const StreamGeom *g, Nbr *out, int cap)
{
    const IrStage *st = &prog->stages[stage];
    int n = 0;
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *nd = &st->nodes[i];
        if (nd->op != N_READ || nd->off[0] == 0)
            continue;
        int k = cg_stream_find_src(g, nd->field, nd->level);
        if (k < 0)
            continue;
        for (int o = 0; o < g->bm; o++) {
            Nbr x = {k, o + (g->ab > 0 ? nd->off[g->ab] : 0), nd->off[g->sd], nd->off[0]};
            int j = 0;
            while (j < n && memcmp(&out[j], &x, sizeof x) != 0)
                j++;
            if (j == n && n < cap)
                out[n++] = x;
        }
    }
    return n;
}

/* Loads of plane t0+ahead+u (padded plane index t0+ahead+u+R; bp points at padded t0+R) into
 * g<k>_<r><tag> / ge<k>_<r><tag>, declared there when decl. */
static void emit_loads(CgCtx *ctx, const StreamGeom *g, int u, const char *tag, int ahead,
                       const char *t0, int decl, const char *ind)
{
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    char a[16];
    sb_printf(o, "%sconst bool pv%s = %s + %d <= tlast;\n", ind, tag, t0, ahead + u);
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        for (int ri = 0; ri < g->bm + 2 * g->hb; ri++) {
            int r = ri - g->hb;
            cg_stream_signed_name(a, r);
            if (s->vmin[ri] <= g->R)
                sb_printf(o, "%s%s%sg%d_%s%s = (pv%s && rok_%s && live) ? __ldg(bp%d + %d * ps + "
                          "rowoff_%s) : (%s)0;\n", ind, decl ? T : "", decl ? " " : "", k, a, tag,
                          tag, a, k, ahead + u, a, T);
            if (s->emin[ri] <= g->R)
                sb_printf(o, "%s%s%sge%d_%s%s = (pv%s && rok_%s && elive) ? __ldg(bp%d + %d * ps + "
                          "rowoff_%s + ex) : (%s)0;\n", ind, decl ? T : "", decl ? " " : "", k, a,
                          tag, tag, a, k, ahead + u, a, T);
        }
    }
}

/* Copies the prefetched group into the current one. */
static void emit_carry(CgCtx *ctx, const StreamGeom *g, int u, const char *ind)
{
    char a[16];
    for (int k = 0; k < g->nsrc; k++)
        for (int ri = 0; ri < g->bm + 2 * g->hb; ri++) {
            cg_stream_signed_name(a, ri - g->hb);
            if (g->src[k].vmin[ri] <= g->R)
                sb_printf(ctx->src, "%sg%d_%s_%d = g%d_%s_%dn;\n", ind, k, a, u, k, a, u);
            if (g->src[k].emin[ri] <= g->R)
                sb_printf(ctx->src, "%sge%d_%s_%d = ge%d_%s_%dn;\n", ind, k, a, u, k, a, u);
        }
}

/* Shifts the window by one plane and takes in the loaded values of plane u. */
static void emit_shift(CgCtx *ctx, const StreamGeom *g, const char *tag, const char *ind)
{
    StrBuf *o = ctx->src;
    char a[16];
    for (int k = 0; k < g->nsrc; k++)
        for (int ri = 0; ri < g->bm + 2 * g->hb; ri++) {
            int r = ri - g->hb;
            const int mins[2] = {g->src[k].vmin[ri], g->src[k].emin[ri]};
            for (int w = 0; w < 2; w++) {
                char kind = w ? 'e' : 'v';
                for (int p = mins[w]; p <= g->R; p++) {
                    sb_puts(o, ind);
                    reg_name(o, kind, k, r, p);
                    sb_puts(o, " = ");
                    if (p < g->R)
                        reg_name(o, kind, k, r, p + 1);
                    else
                        sb_printf(o, "g%s%d_%s%s", w ? "e" : "", k, cg_stream_signed_name(a, r), tag);
                    sb_puts(o, ";\n");
                }
            }
        }
}

/* Every lane executes both shuffles (a full-mask shuffle must not sit under a lane-dependent
 * branch); a select then picks the in-warp or the halo value. */
static void emit_shuffles(CgCtx *ctx, const StreamGeom *g, const Nbr *nb, int nn, const char *ind)
{
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    char a[16];
    for (int j = 0; j < nn; j++) {
        const Nbr *x = &nb[j];
        int d = abs(x->dx);
        sb_printf(o, "%sconst %s sw%d = __shfl_%s_sync(0xffffffffu, ", ind, T, j,
                  x->dx > 0 ? "down" : "up");
        reg_name(o, 'v', x->k, x->r, x->p);
        sb_printf(o, ", %d);\n", d);
        if (d != g->hx) {
            sb_printf(o, "%sconst %s sh%d = __shfl_sync(0xffffffffu, ", ind, T, j);
            reg_name(o, 'e', x->k, x->r, x->p);
            sb_printf(o, ", lane + (%d));\n", x->dx > 0 ? x->dx - g->hx : x->dx + g->hx);
        }
        sb_printf(o, "%sconst %s ", ind, T);
        reg_name(o, 'x', x->k, x->r, x->p);
        sb_printf(o, "_%s = lane %s %d %s ? sw%d : ", cg_stream_signed_name(a, x->dx), x->dx > 0 ? "+" : "-", d,
                  x->dx > 0 ? "< 32" : ">= 0", j);
        if (d == g->hx)
            reg_name(o, 'e', x->k, x->r, x->p);
        else
            sb_printf(o, "sh%d", j);
        sb_puts(o, ";\n");
    }
}

int cg_emit_stream_reg(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                       PlanLaunch *l, const StreamGeom *g)
{
    const IrProgram *prog = ctx->prog;
    const Config *c = ctx->cfg;
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    int R = g->R, hx = g->hx, hb = g->hb, bm = g->bm;
    int block[3] = {c->v[P_TBX], c->v[P_TBY], c->v[P_TBZ]};
    Nbr *nb = arena_alloc(ctx->arena, sizeof(Nbr) * 4096);
    int nn = collect_nbrs(prog, stage, g, nb, 4096);

    sb_printf(o, "/* stage %d: 2.5D streaming along %c, %d planes per block, %d-plane window "
              "all in registers (regq=1), x neighbours by warp shuffles", stage,
              axis_letter[g->sd], g->sb, 2 * R + 1);
    if (g->dims == 3)
        sb_printf(o, ", %d row%s along %c per thread", bm, bm > 1 ? "s" : "", axis_letter[g->ab]);
    sb_printf(o, ", %s */\n", g->prefetch ? "next planes prefetched" : "no prefetch");
    cg_emit_signature(ctx, name, block, args);
    cg_emit_strides(ctx);
    const char *sSD = g->sd == 2 ? "s2" : "s1";
    sb_printf(o, "    const long long ps = %s;\n", sSD);
    sb_puts(o, "    const int lane = (int)(threadIdx.x & 31u);\n");
    sb_printf(o, "    const int i = (int)(blockIdx.x * %du + threadIdx.x);\n", g->tbx);
    sb_printf(o, "    const bool live = i < n0 + %d;\n", hx);
    sb_puts(o, "    const bool xin = i < n0;\n");
    /* x-halo lanes: the first hx load left of the warp, the last hx right of it */
    sb_printf(o, "    const int ex = lane < %d ? -%d : %d;\n", hx, hx, hx);
    sb_printf(o, "    const bool elive = lane < %d ? i < n0 + %d : lane >= %d && xin;\n", hx,
              2 * hx, 32 - hx);
    sb_puts(o, "    (void)ex; (void)elive; (void)lane;\n");
    if (g->dims == 3) {
        const char *tB = g->ab == 1 ? "threadIdx.y" : "threadIdx.z";
        const char *bB = g->ab == 1 ? "blockIdx.y" : "blockIdx.z";
        const char *nB = g->ab == 1 ? "n1" : "n2";
        const char *sB = g->ab == 1 ? "s1" : "s2";
        sb_printf(o, "    const int jb = (int)((%s * %du + %s) * %du);\n", bB, g->tbb, tB, bm);
        for (int ri = 0; ri < bm + 2 * hb; ri++) {
            char a[16];
            int r = ri - hb;
            cg_stream_signed_name(a, r);
            sb_printf(o, "    const bool rok_%s = jb + %d < %s + %d;\n", a, r + hb, nB, 2 * hb);
            sb_printf(o, "    const long long rowoff_%s = (long long)(%d) * %s;\n", a, r, sB);
            sb_printf(o, "    (void)rok_%s; (void)rowoff_%s;\n", a, a);
        }
        sb_printf(o, "    const long long own = (long long)(jb + %d) * %s + (i + %d);\n", hb, sB, hx);
        sb_printf(o, "    const long long ostep = %s;\n", sB);
    } else {
        sb_puts(o, "    const bool rok_p0 = true;\n    const int rowoff_p0 = 0;\n");
        sb_printf(o, "    const long long own = (long long)(i + %d);\n", hx);
    }
    sb_printf(o, "    const int z0 = (int)(blockIdx.%c * %du);\n", axis_letter[g->sd], g->sb);
    sb_printf(o, "    const int zend = min(z0 + %d, n%d);\n", g->sb, g->sd);
    sb_printf(o, "    const int tlast = zend - 1 + %d;\n", R);
    /* base pointers at the block's first padded plane (z0 - R + R) */
    for (int k = 0; k < g->nsrc; k++) {
        PlanArg a = {ARG_BUF, g->src[k].field, g->src[k].level, 0};
        char an[160];
        cg_arg_name(prog, &a, an, sizeof an);
        sb_printf(o, "    const %s *bp%d = %s + (long long)z0 * ps + own;\n", T, k, an);
    }
    for (int k = 0; k < g->nsrc; k++)
        for (int ri = 0; ri < bm + 2 * hb; ri++) {
            const int mins[2] = {g->src[k].vmin[ri], g->src[k].emin[ri]};
            for (int w = 0; w < 2; w++)
                for (int p = mins[w]; p <= R; p++) {
                    sb_printf(o, "    %s ", T);
                    reg_name(o, w ? 'e' : 'v', k, ri - hb, p);
                    sb_printf(o, " = (%s)0;\n", T);
                }
        }
    int uf = g->uf;
    char tag[16];
    /* Loads of a group of uf planes are issued together; with prefetch, the next group's are
     * issued before this group is computed (the first group before the loop). */
    for (int u = 0; g->prefetch && u < uf; u++) {
        snprintf(tag, sizeof tag, "_%d", u);
        char t0e[32];
        snprintf(t0e, sizeof t0e, "(z0 - %d)", R);
        emit_loads(ctx, g, u, tag, 0, t0e, 1, "    ");
    }
    sb_printf(o, "    for (int t0 = z0 - %d; t0 <= tlast; t0 += %d) {\n", R, uf);
    for (int u = 0; u < uf; u++) {
        snprintf(tag, sizeof tag, g->prefetch ? "_%dn" : "_%d", u);
        emit_loads(ctx, g, u, tag, g->prefetch ? uf : 0, "t0", 1, "        ");
    }
    for (int u = 0; u < uf; u++) {
        snprintf(tag, sizeof tag, "_%d", u);
        if (u == 0)
            sb_puts(o, "        {\n");
        else
            sb_printf(o, "        if (t0 + %d <= tlast) {\n", u);
        sb_printf(o, "            const int t = t0 + %d;\n", u);
        emit_shift(ctx, g, tag, "            ");
        sb_printf(o, "            if (t >= z0 + %d) {\n", R);
        emit_shuffles(ctx, g, nb, nn, "                ");
        sb_printf(o, "                const long long obase = (long long)t * ps + own;\n");
        for (int r = 0; r < bm; r++) {
            char a[16];
            if (g->dims == 3)
                sb_printf(o, "                if (xin && rok_%s && jb + %d < n%d) {\n",
                          cg_stream_signed_name(a, r), r, g->ab);
            else
                sb_puts(o, "                if (xin) {\n");
            if (g->dims == 3)
                sb_printf(o, "                    const long long oidx = obase + %d * ostep;\n", r);
            else
                sb_puts(o, "                    const long long oidx = obase;\n");
            RegCtx rc = {*ctx, g, r};
            rc.ctx.stage = stage;
            rc.ctx.idx = "oidx";
            rc.ctx.read_hook = reg_read;
            rc.ctx.prog = cg_fast_arith(ctx->prog, stage, ctx->arena);
            cg_emit_point(&rc.ctx, "                    ");
            sb_puts(o, "                }\n");
        }
        sb_puts(o, "            }\n        }\n");
    }
    for (int u = 0; g->prefetch && u < uf; u++)
        emit_carry(ctx, g, u, "        ");
    for (int k = 0; k < g->nsrc; k++)
        sb_printf(o, "        bp%d += %d * ps;\n", k, uf);
    sb_puts(o, "    }\n}\n\n");
    for (int d = 0; d < 3; d++) {
        l->block[d] = block[d];
        l->tile[d] = d == g->sd ? g->sb : d == g->ab ? block[d] * bm : block[d];
        l->axis_of[d] = d;
    }
    l->smem_bytes = 0;
    return 0;
}
