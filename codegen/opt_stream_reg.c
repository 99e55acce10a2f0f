/* The stream pass's register mode (regq=1 with whole warps along x): no shared memory and no
 * barrier. Each thread walks its x column along SD and keeps every window plane it reads in
 * registers: its own value v, and for planes read at x offsets one x-halo value e (lanes
 * 0..hx-1 of a warp load the hx columns left of the warp, lanes 32-hx..31 the hx columns right
 * of it). A neighbour at x offset dx is then a warp shuffle of v from lane+dx, or, past the
 * warp's edge, a shuffle of e. In 3D a thread computes `bm` adjacent rows along the other
 * in-plane axis (ab) and loads the bm + 2hb rows they read, so ab neighbours are registers too.
 * Indices: one 64-bit base pointer per buffer advanced by the plane stride; rows and x offsets
 * are 32-bit. */
#include "opt_stream_build.h"

#include <stdlib.h>
#include <string.h>

/* Register names: v<k>_<row>_<pos> (own column), e<k>_<row>_<pos> (x-halo lane value),
 * x<k>_<row>_<pos>_<dx> (the neighbour at dx, from shuffles). */
static KExpr *reg(StreamB *sb, char kind, int k, int r, int p)
{
    char a[16], c[16];
    return k_varf(sb->b, "%c%d_%s_%s", kind, k, cg_stream_signed_name(a, r), cg_stream_signed_name(c, p));
}

static KExpr *nbr_reg(StreamB *sb, int k, int r, int p, int dx)
{
    char a[16], c[16], d[16];
    return k_varf(sb->b, "x%d_%s_%s_%s", k, cg_stream_signed_name(a, r), cg_stream_signed_name(c, p),
                  cg_stream_signed_name(d, dx));
}

/* A name with a row: <prefix>_<signed r><tag>. */
static KExpr *row_var(StreamB *sb, const char *prefix, int r, const char *tag)
{
    char a[16];
    return k_varf(sb->b, "%s_%s%s", prefix, cg_stream_signed_name(a, r), tag);
}

static KExpr *reg_read(CgCtx *ctx, const IrNode *n)
{
    StreamB *sb = (StreamB *)ctx;
    const StreamGeom *g = sb->g;
    int k = cg_stream_find_src(g, n->field, n->level);
    if (k < 0)
        return cg_global_read(ctx, n, cg_point_index(ctx));
    int r = sb->row + (g->ab > 0 ? n->off[g->ab] : 0);
    if (n->off[0])
        return nbr_reg(sb, k, r, n->off[g->sd], n->off[0]);
    return reg(sb, 'v', k, r, n->off[g->sd]);
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
 * g<k>_<r><tag> / ge<k>_<r><tag>. */
static void reg_loads(StreamB *sb, KBlock *out, int u, const char *tag, int ahead, KExpr *t0)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    const char *T = sb->ctx->T;
    KExpr *ps = k_var(b, "ps");
    KExpr *pv = k_let(b, out, "bool", stream_name(sb, "pv%s", tag),
                      k_bin(b, KO_LE, stream_add(sb, t0, ahead + u), k_var(b, "tlast")));
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        KExpr *plane = k_add(b, k_varf(b, "bp%d", k), k_mul(b, k_int(b, ahead + u), ps));
        for (int ri = 0; ri < g->bm + 2 * g->hb; ri++) {
            int r = ri - g->hb;
            KExpr *ok = k_and(b, pv, row_var(sb, "rok", r, ""));
            KExpr *at = k_add(b, plane, row_var(sb, "rowoff", r, ""));
            if (s->vmin[ri] <= g->R) {
                KExpr *v = k_call(b, "__ldg", 1, at);
                v = k_select(b, k_and(b, ok, k_var(b, "live")), v, stream_zero(sb));
                k_push(b, out, k_decl(b, 0, T, row_var(sb, stream_name(sb, "g%d", k), r, tag)->name, v));
            }
            if (s->emin[ri] <= g->R) {
                KExpr *v = k_call(b, "__ldg", 1, k_add(b, at, k_var(b, "ex")));
                v = k_select(b, k_and(b, ok, k_var(b, "elive")), v, stream_zero(sb));
                k_push(b, out, k_decl(b, 0, T, row_var(sb, stream_name(sb, "ge%d", k), r, tag)->name, v));
            }
        }
    }
}

/* Copies the prefetched group into the current one. */
static void reg_carry(StreamB *sb, KBlock *out, int u)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    const char *now = stream_name(sb, "_%d", u), *next = stream_name(sb, "_%dn", u);
    for (int k = 0; k < g->nsrc; k++)
        for (int ri = 0; ri < g->bm + 2 * g->hb; ri++) {
            int r = ri - g->hb;
            const char *gv = stream_name(sb, "g%d", k), *ge = stream_name(sb, "ge%d", k);
            if (g->src[k].vmin[ri] <= g->R)
                k_push(b, out, k_assign(b, row_var(sb, gv, r, now), row_var(sb, gv, r, next)));
            if (g->src[k].emin[ri] <= g->R)
                k_push(b, out, k_assign(b, row_var(sb, ge, r, now), row_var(sb, ge, r, next)));
        }
}

/* Shifts the window by one plane and takes in the loaded values of plane u. */
static void reg_shift(StreamB *sb, KBlock *out, const char *tag)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    for (int k = 0; k < g->nsrc; k++)
        for (int ri = 0; ri < g->bm + 2 * g->hb; ri++) {
            int r = ri - g->hb;
            const int mins[2] = {g->src[k].vmin[ri], g->src[k].emin[ri]};
            for (int w = 0; w < 2; w++)
                for (int p = mins[w]; p <= g->R; p++) {
                    KExpr *in = p < g->R ? reg(sb, w ? 'e' : 'v', k, r, p + 1)
                                         : row_var(sb, stream_name(sb, "g%s%d", w ? "e" : "", k), r, tag);
                    k_push(b, out, k_assign(b, reg(sb, w ? 'e' : 'v', k, r, p), in));
                }
        }
}

/* Every lane executes both shuffles (a full-mask shuffle must not sit under a lane-dependent
 * branch); a select then picks the in-warp or the halo value. */
static void reg_shuffles(StreamB *sb, KBlock *out, const Nbr *nb, int nn)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    const char *T = sb->ctx->T;
    KExpr *lane = k_var(b, "lane");
    for (int j = 0; j < nn; j++) {
        const Nbr *x = &nb[j];
        int d = abs(x->dx);
        KExpr *v = k_shuffle(b, x->dx > 0 ? KSH_DOWN : KSH_UP, reg(sb, 'v', x->k, x->r, x->p), k_int(b, d));
        KExpr *sw = k_let(b, out, T, stream_name(sb, "sw%d", j), v);
        KExpr *halo = reg(sb, 'e', x->k, x->r, x->p);
        if (d != g->hx) {
            KExpr *from = stream_add(sb, lane, x->dx > 0 ? x->dx - g->hx : x->dx + g->hx);
            halo = k_let(b, out, T, stream_name(sb, "sh%d", j), k_shuffle(b, KSH_IDX, halo, from));
        }
        KExpr *in_warp = x->dx > 0 ? k_bin(b, KO_LT, stream_add(sb, lane, d), k_int(b, 32))
                                   : k_bin(b, KO_GE, stream_sub(sb, lane, d), k_int(b, 0));
        k_let(b, out, T, nbr_reg(sb, x->k, x->r, x->p, x->dx)->name, k_select(b, in_warp, sw, halo));
    }
}

/* The rows a thread loads in 3D: rok_<r> (inside the buffer), rowoff_<r> (offset from its
 * first row); its column's offset own and the row stride ostep. */
static void reg_rows(StreamB *sb, KBlock *out, KExpr *i)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    KExpr *sB = sb->s[g->ab], *nB = k_varf(b, "n%d", g->ab);
    KExpr *first = k_add(b, k_mul(b, k_block(b, g->ab), k_uint(b, g->tbb)), k_thread(b, g->ab));
    KExpr *jb = k_let(b, out, "int", "jb", k_cast(b, "int", k_mul(b, first, k_uint(b, g->bm))));
    for (int ri = 0; ri < g->bm + 2 * g->hb; ri++) {
        int r = ri - g->hb;
        KExpr *ok = k_bin(b, KO_LT, stream_add(sb, jb, r + g->hb), stream_add(sb, nB, 2 * g->hb));
        const char *rok = row_var(sb, "rok", r, "")->name, *rowoff = row_var(sb, "rowoff", r, "")->name;
        k_let(b, out, "bool", rok, ok);
        k_let(b, out, "long long", rowoff, k_mul(b, k_cast(b, "long long", k_int(b, r)), sB));
        stream_unused(sb, out, (const char *const[]){rok, rowoff}, 2);
    }
    KExpr *own = k_add(b, k_mul(b, k_cast(b, "long long", stream_add(sb, jb, g->hb)), sB), stream_add(sb, i, g->hx));
    k_let(b, out, "long long", "own", own);
    k_let(b, out, "long long", "ostep", sB);
}

/* The thread's lane and column, which lanes load the x halo (ex: its offset, elive), the
 * rows, the block's planes, the base pointers and the window's registers. */
static void reg_prologue(StreamB *sb, KBlock *out)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int hx = g->hx;
    cg_strides(sb->ctx, out, sb->s);
    KExpr *ps = k_let(b, out, "long long", "ps", sb->s[g->sd]);
    KExpr *lane = k_let(b, out, "int", "lane", k_cast(b, "int", k_bin(b, KO_BAND, k_thread(b, 0), k_uint(b, 31))));
    KExpr *x = k_add(b, k_mul(b, k_block(b, 0), k_uint(b, g->tbx)), k_thread(b, 0));
    KExpr *i = k_let(b, out, "int", "i", k_cast(b, "int", x)), *n0 = k_var(b, "n0");
    k_let(b, out, "bool", "live", k_bin(b, KO_LT, i, stream_add(sb, n0, hx)));
    KExpr *xin = k_let(b, out, "bool", "xin", k_bin(b, KO_LT, i, n0));
    /* x-halo lanes: the first hx load left of the warp, the last hx right of it */
    KExpr *left = k_bin(b, KO_LT, lane, k_int(b, hx));
    k_let(b, out, "int", "ex", k_select(b, left, k_int(b, -hx), k_int(b, hx)));
    KExpr *right = k_and(b, k_bin(b, KO_GE, lane, k_int(b, 32 - hx)), xin);
    k_let(b, out, "bool", "elive", k_select(b, left, k_bin(b, KO_LT, i, stream_add(sb, n0, 2 * hx)), right));
    stream_unused(sb, out, (const char *const[]){"ex", "elive", "lane"}, 3);
    if (g->dims == 3) {
        reg_rows(sb, out, i);
    } else {
        k_let(b, out, "bool", "rok_p0", k_var(b, "true"));
        k_let(b, out, "int", "rowoff_p0", k_int(b, 0));
        k_let(b, out, "long long", "own", k_cast(b, "long long", stream_add(sb, i, hx)));
    }
    stream_z_range(sb, out);
    /* base pointers at the block's first padded plane (z0 - R + R) */
    const char *cptr = stream_name(sb, "const %s *", sb->ctx->T);
    for (int k = 0; k < g->nsrc; k++) {
        KExpr *at = k_add(b, k_add(b, sb->buf[k], k_mul(b, k_cast(b, "long long", k_var(b, "z0")), ps)), k_var(b, "own"));
        k_push(b, out, k_decl(b, 0, cptr, stream_name(sb, "bp%d", k), at));
    }
    for (int k = 0; k < g->nsrc; k++)
        for (int ri = 0; ri < g->bm + 2 * g->hb; ri++) {
            const int mins[2] = {g->src[k].vmin[ri], g->src[k].emin[ri]};
            for (int w = 0; w < 2; w++)
                for (int p = mins[w]; p <= g->R; p++)
                    k_push(b, out, k_decl(b, 0, sb->ctx->T, reg(sb, w ? 'e' : 'v', k, ri - g->hb, p)->name,
                                          stream_zero(sb)));
        }
}

/* The strip's output points of plane t, once the window is full. */
static void reg_points(StreamB *sb, KBlock *out, const Nbr *nb, int nn)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    KExpr *t = k_var(b, "t");
    KStmt *full = k_if(b, k_bin(b, KO_GE, t, stream_add(sb, k_var(b, "z0"), g->R)));
    reg_shuffles(sb, &full->body, nb, nn);
    KExpr *at = k_add(b, k_mul(b, k_cast(b, "long long", t), k_var(b, "ps")), k_var(b, "own"));
    KExpr *obase = k_let(b, &full->body, "long long", "obase", at);
    for (int r = 0; r < g->bm; r++) {
        KExpr *in = k_var(b, "xin");
        if (g->dims == 3) {
            in = k_and(b, in, row_var(sb, "rok", r, ""));
            in = k_and(b, in, k_bin(b, KO_LT, stream_add(sb, k_var(b, "jb"), r), k_varf(b, "n%d", g->ab)));
        }
        KStmt *row = k_if(b, in);
        KExpr *oidx = g->dims == 3 ? k_add(b, obase, k_mul(b, k_int(b, r), k_var(b, "ostep"))) : obase;
        sb->row = r;
        sb->pt.kidx = k_let(b, &row->body, "long long", "oidx", oidx);
        cg_point(&sb->pt, &row->body);
        sb->pt.kidx = NULL;
        k_push(b, &full->body, row);
    }
    k_push(b, out, full);
}

/* Loads of a group of uf planes are issued together; with prefetch, the next group's are
 * issued before this group is computed (the first group before the loop). */
static void reg_loop(StreamB *sb, KBlock *out, const Nbr *nb, int nn)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int uf = g->uf;
    KExpr *z0 = k_var(b, "z0"), *t0 = k_var(b, "t0"), *tlast = k_var(b, "tlast");
    for (int u = 0; g->prefetch && u < uf; u++)
        reg_loads(sb, out, u, stream_name(sb, "_%d", u), 0, stream_sub(sb, z0, g->R));
    KStmt *loop = k_for(b, "t0", stream_sub(sb, z0, g->R), tlast, k_int(b, uf), 0);
    loop->inclusive = 1;
    for (int u = 0; u < uf; u++)
        reg_loads(sb, &loop->body, u, stream_name(sb, g->prefetch ? "_%dn" : "_%d", u), g->prefetch ? uf : 0, t0);
    for (int u = 0; u < uf; u++) {
        KStmt *plane = u == 0 ? k_scope(b) : k_if(b, k_bin(b, KO_LE, stream_add(sb, t0, u), tlast));
        k_let(b, &plane->body, "int", "t", stream_add(sb, t0, u));
        reg_shift(sb, &plane->body, stream_name(sb, "_%d", u));
        reg_points(sb, &plane->body, nb, nn);
        k_push(b, &loop->body, plane);
    }
    for (int u = 0; g->prefetch && u < uf; u++)
        reg_carry(sb, &loop->body, u);
    for (int k = 0; k < g->nsrc; k++)
        k_push(b, &loop->body, k_assign_add(b, k_varf(b, "bp%d", k), k_mul(b, k_int(b, uf), k_var(b, "ps"))));
    k_push(b, out, loop);
}

static const char *reg_comment(CgCtx *ctx, int stage, const StreamGeom *g)
{
    const char *rows = g->dims != 3 ? ""
                       : arena_printf(ctx->arena, ", %d row%s along %c per thread", g->bm, g->bm > 1 ? "s" : "",
                                      stream_axis_letter(g->ab));
    return arena_printf(ctx->arena, "stage %d: 2.5D streaming along %c, %d planes per block, %d-plane window "
                        "all in registers (regq=1), x neighbours by warp shuffles%s, %s", stage,
                        stream_axis_letter(g->sd), g->sb, 2 * g->R + 1, rows,
                        g->prefetch ? "next planes prefetched" : "no prefetch");
}

KKernel *cg_build_stream_reg(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                             PlanLaunch *l, const StreamGeom *g)
{
    const Config *c = ctx->cfg;
    int block[3] = {c->v[P_TBX], c->v[P_TBY], c->v[P_TBZ]};
    Nbr *nb = arena_alloc(ctx->arena, sizeof(Nbr) * 4096);
    int nn = collect_nbrs(ctx->prog, stage, g, nb, 4096);
    StreamB *sb = stream_builder(ctx, stage, g, reg_read);
    KKernel *k = cg_kernel(ctx, name, block, args);
    k->comment = reg_comment(ctx, stage, g);
    reg_prologue(sb, &k->body);
    reg_loop(sb, &k->body, nb, nn);
    stream_launch(ctx, l, g, g->bm);
    return k;
}
