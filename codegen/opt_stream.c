/* The stream pass: 2.5D streaming. A thread block covers a tile of the in-plane axes (x and, in
 * 3D, the other non-streaming axis) and walks `sb` planes along the streaming dimension (SD);
 * several blocks stream one column concurrently (the grid has ceil(n_sd / sb) blocks along SD).
 * Each thread walks its column with a window of 2R+1 planes per streamed buffer: registers for
 * centre-column reads (the register queue), a ring of shared-memory planes (tile + in-plane halo)
 * for in-plane neighbours (opt_stream.h says which plane lives where). The loop runs over
 * incoming planes t = z0-R .. zend-1+R and computes output plane t-R once the window is full;
 * one __syncthreads per plane (the ring has one slot more than the planes it serves). */
#include "opt.h"
#include "opt_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cg_stream_wants(const Config *c) { return c->v[P_STREAM] == 2; }

typedef struct {
    CgCtx ctx;            /* first: the read hook gets &StreamCtx.ctx */
    const StreamGeom *g;
} StreamCtx;

static const char axis_letter[3] = {'x', 'y', 'z'};

static int from_smem(const StreamSrc *s, int R, int p)
{
    return s->read_plane[p + R] || (s->read_centre[p + R] && !s->in_reg[p + R]);
}

static void stream_read(CgCtx *ctx, const IrNode *n, StrBuf *out)
{
    const StreamGeom *g = ((StreamCtx *)ctx)->g;
    int k = cg_stream_find_src(g, n->field, n->level);
    if (k < 0) { /* not streamed (cannot happen for a stage's own reads): a global load */
        CgReadHook hook = ctx->read_hook;
        ctx->read_hook = NULL;
        cg_emit_read(ctx, n, out);
        ctx->read_hook = hook;
        return;
    }
    const StreamSrc *s = &g->src[k];
    int p = n->off[g->sd];
    int db = g->ab > 0 ? n->off[g->ab] : 0;
    char pn[16];
    cg_stream_signed_name(pn, p);
    if (n->off[0] == 0 && db == 0 && s->in_reg[p + g->R])
        sb_printf(out, "q%d_%s", k, pn);
    else
        sb_printf(out, "sp%d_%s[%d]", k, pn, db * g->W + n->off[0]);
}

/* How a plane is emitted. The general loop tests every condition at run time; a full block
 * (its whole chunk and tile inside the grid, opt_stream.c's fast path) knows them: warm-up
 * planes (t - z0 = trel < R) only fill the window, steady planes always store and compute.
 * rb >= 0: the ring base of the plane is this constant (the slots are constants); -1: the
 * variable `rb` (declared from rb_expr). */
enum { PM_GENERAL, PM_WARM, PM_STEADY };
typedef struct {
    int kind, trel, rb;
    const char *rb_expr;
} PlaneMode;

/* The ring slot of window position p: (rb + p) % slots, rb = t - z0 + 2R + 1 > -p. */
static const char *slot_expr(char *buf, int p, int slots, const PlaneMode *m)
{
    if (m->rb >= 0)
        snprintf(buf, 64, "%d", (m->rb + p) % slots);
    else if (p == 0)
        snprintf(buf, 64, "(rb %% %du)", slots);
    else
        snprintf(buf, 64, "((rb %c %du) %% %du)", p < 0 ? '-' : '+', abs(p), slots);
    return buf;
}

/* Registers the kernel needs: centre reads from registers, the entering value of a shared range
 * fed from the queue, and every register that feeds a needed one. */
static void needed_regs(const StreamGeom *g, const StreamSrc *s, unsigned char *need)
{
    int R = g->R;
    memset(need, 0, STREAM_WIN);
    for (int p = -R; p <= R; p++)
        need[p + R] = s->chain[p + R] && s->in_reg[p + R] && s->read_centre[p + R];
    if (s->slots && s->hi < R)
        need[s->hi + 1 + R] = 1;
    for (int p = -R; p < R; p++)
        if (need[p + R] && s->chain[p + 1 + R])
            need[p + 1 + R] = 1;
}

typedef struct {
    int full_cells, halo_cells; /* per-thread cell loads of a whole tile / of its halo */
    unsigned char need[STREAM_MAX_SRC][STREAM_WIN];
    int own_load[STREAM_MAX_SRC]; /* the source's q_R comes from global memory */
} StreamLoads;

static void emit_loads(CgCtx *ctx, const StreamGeom *g, const StreamLoads *pl, const char *bufname[],
                       const char *texpr, const char *guard, const char *suf, const char *ind)
{
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    const char *sp = g->sd == 2 ? "s2" : "s1";
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        if (pl->own_load[k])
            sb_printf(o, "%sg%d%s = (%s && live) ? %s[(long long)(%s + %d) * %s + own_g] : (%s)0;\n",
                      ind, k, suf, guard, bufname[k], texpr, g->R, sp, T);
        if (!s->slots)
            continue;
        int full = s->hi == g->R;
        int ncell = full ? pl->full_cells : pl->halo_cells;
        if (ncell == 0)
            continue;
        sb_printf(o, "%s{\n%s    const bool pv = %s && %s + %d >= z0;\n", ind, ind, guard, texpr, s->hi);
        sb_printf(o, "%s    const long long pb = (long long)(%s + %d) * %s + tile_g;\n", ind, texpr,
                  s->hi, sp);
        for (int c = 0; c < ncell; c++)
            sb_printf(o, "%s    h%d_%d%s = (pv && %s%d) ? %s[pb + %s%d] : (%s)0;\n", ind, k, c, suf,
                      full ? "okf" : "okh", c, bufname[k], full ? "fg" : "hg", c, T);
        sb_printf(o, "%s}\n", ind);
    }
}

static void declare_load_vars(CgCtx *ctx, const StreamGeom *g, const StreamLoads *pl, const char *suf,
                              const char *ind)
{
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        if (pl->own_load[k])
            sb_printf(ctx->src, "%s%s g%d%s;\n", ind, ctx->T, k, suf);
        if (!s->slots)
            continue;
        int ncell = s->hi == g->R ? pl->full_cells : pl->halo_cells;
        for (int c = 0; c < ncell; c++)
            sb_printf(ctx->src, "%s%s h%d_%d%s;\n", ind, ctx->T, k, c, suf);
    }
}

/* The stored buffers the stage writes (their kernel argument names), at most STREAM_MAX_SRC. */
static int stream_outputs(CgCtx *ctx, const char *names[])
{
    const IrProgram *p = ctx->prog;
    const IrStage *st = &p->stages[ctx->stage];
    int n = 0;
    for (int w = 0; w < st->nwrites && n < STREAM_MAX_SRC; w++) {
        const IrWrite *wr = &st->writes[w];
        if (!cg_field_stored(p, wr->field))
            continue;
        PlanArg a = {ARG_BUF, wr->field, p->fields[wr->field].role == ROLE_STATE ? 1 : 0, 0};
        char an[160];
        cg_arg_name(p, &a, an, sizeof an);
        int dup = 0;
        for (int k = 0; k < n; k++)
            dup |= strcmp(names[k], an) == 0;
        if (!dup)
            names[n++] = arena_strdup(ctx->arena, an);
    }
    return n;
}

/* One plane of the loop: the incoming plane t, output plane t-R. In the fast path (m->kind
 * != PM_GENERAL) every thread is live and inside, the shared store of a source happens when
 * its plane t + hi is at or past z0 (known from trel), and the output goes through the
 * pointers po<k> (advanced by the caller). */
static void emit_plane(StreamCtx *sc, const StreamLoads *pl, const char *suf, const char *ind,
                       const PlaneMode *m)
{
    CgCtx *ctx = &sc->ctx;
    const StreamGeom *g = sc->g;
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    int R = g->R;
    int PL = g->W * g->H;
    int general = m->kind == PM_GENERAL;
    char pn[16], pn2[16], se[64];
    int any_slots = 0;
    for (int k = 0; k < g->nsrc; k++)
        any_slots |= g->src[k].slots > 0;
    if (m->rb < 0 && (general || any_slots))
        sb_printf(o, "%sconst unsigned rb = (unsigned)(%s);\n", ind, m->rb_expr ? m->rb_expr : "0");
    int any_smem = 0;
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        const unsigned char *need = pl->need[k];
        /* whether this plane stores into the source's ring: t + hi >= z0 */
        int store = general ? -1 : m->kind == PM_STEADY ? 1 : m->trel + s->hi >= 0;
        if (s->slots && s->hi < R && store != 0)
            sb_printf(o, "%sconst %s in%d = q%d_%s;\n", ind, T, k, k, cg_stream_signed_name(pn, s->hi + 1));
        for (int p = -R; p <= R; p++) {
            if (!need[p + R])
                continue;
            cg_stream_signed_name(pn, p);
            if (p < R && s->chain[p + 1 + R])
                sb_printf(o, "%sq%d_%s = q%d_%s;\n", ind, k, pn, k, cg_stream_signed_name(pn2, p + 1));
            else if (p == R && pl->own_load[k])
                sb_printf(o, "%sq%d_%s = g%d%s;\n", ind, k, pn, k, suf);
            else if (p < R) {
                sb_printf(o, "%sq%d_%s = sm%d[%s * %d + own_s];\n", ind, k, pn, k,
                          slot_expr(se, p, s->slots, m), PL);
                any_smem = 1;
            }
        }
        if (!s->slots)
            continue;
        /* A warm-up plane that neither stores into nor reads the ring needs no barrier: the
         * stores of earlier planes were published by their own barriers, and with no reads
         * here there is nothing a later store could overwrite too early. */
        any_smem |= general || store != 0;
        if (store == 0)
            continue;
        int full = s->hi == R;
        int ncell = full ? pl->full_cells : pl->halo_cells;
        if (general)
            sb_printf(o, "%sif (t + %d >= z0) {\n", ind, s->hi);
        else
            sb_printf(o, "%s{\n", ind);
        sb_printf(o, "%s    %s *const w = sm%d + %s * %d;\n", ind, T, k,
                  slot_expr(se, s->hi, s->slots, m), PL);
        for (int c = 0; c < ncell; c++)
            sb_printf(o, "%s    if (%s%d) w[%s%d] = h%d_%d%s;\n", ind, full ? "okf" : "okh", c,
                      full ? "fs" : "hs", c, k, c, suf);
        if (!full)
            sb_printf(o, "%s    %sw[own_s] = in%d;\n", ind, general ? "if (live) " : "", k);
        sb_printf(o, "%s}\n", ind);
    }
    if (any_smem)
        sb_printf(o, "%s__syncthreads();\n", ind);
    /* q_R of a whole-tile source comes from the ring (it also feeds q_{R-1} next plane) */
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        if (s->slots && s->hi == R && pl->need[k][2 * R])
            sb_printf(o, "%sq%d_%s = sm%d[%s * %d + own_s];\n", ind, k,
                      cg_stream_signed_name(pn, R), k, slot_expr(se, R, s->slots, m), PL);
    }
    if (m->kind == PM_WARM)
        return; /* trel < R: the window is not full yet */
    if (general)
        sb_printf(o, "%sif (t >= z0 + %d && inside) {\n", ind, R);
    else
        sb_printf(o, "%s{\n", ind);
    char ind2[64];
    snprintf(ind2, sizeof ind2, "%s    ", ind);
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        for (int p = -R; p <= R; p++)
            if (from_smem(s, R, p))
                sb_printf(o, "%sconst %s *const sp%d_%s = sm%d + %s * %d + own_s;\n",
                          ind2, T, k, cg_stream_signed_name(pn, p), k, slot_expr(se, p, s->slots, m), PL);
    }
    const char *outs[STREAM_MAX_SRC];
    int nout = 0;
    if (general) {
        sb_printf(o, "%sconst long long oidx = (long long)t * %s + own_g;\n", ind2,
                  g->sd == 2 ? "s2" : "s1");
        ctx->idx = "oidx";
    } else {
        /* the written buffers' names stand for this plane's output pointers here */
        nout = stream_outputs(ctx, outs);
        for (int k = 0; k < nout; k++)
            sb_printf(o, "%s%s *const %s = po%d;\n", ind2, T, outs[k], k);
        ctx->idx = "0";
    }
    ctx->read_hook = stream_read;
    const IrProgram *p0 = ctx->prog;
    ctx->prog = cg_fast_arith(p0, ctx->stage, ctx->arena);
    cg_emit_point(ctx, ind2);
    ctx->prog = p0;
    ctx->read_hook = NULL;
    ctx->idx = "idx";
    sb_printf(o, "%s}\n", ind);
    for (int k = 0; k < nout; k++)
        sb_printf(o, "%spo%d += %s;\n", ind, k, g->sd == 2 ? "s2" : "s1");
}

/* Cell c of kind k ('f': whole-tile cell, 'h': halo cell) at (k x c, k y c) of the padded tile:
 * okkc says whether it is one of the `cells` and inside the grid's buffer, kgc is its offset from
 * the tile's corner in global memory (0 when not ok). */
static void emit_cell_bounds(StrBuf *o, const StreamGeom *g, char k, int c, int cells)
{
    const char *sB = g->ab == 1 ? "s1" : "s2";
    const char *nB = g->ab == 1 ? "n1" : "n2";
    int hx = g->hx, hb = g->hb, dims3 = g->dims == 3;
    sb_printf(o, "    const bool ok%c%d = e%c%d < %d && bx0 + %cx%d < n0 + %d", k, c, k, c, cells, k, c, 2 * hx);
    if (dims3)
        sb_printf(o, " && bb0 + %cy%d < %s + %d", k, c, nB, 2 * hb);
    sb_puts(o, ";\n");
    if (dims3)
        sb_printf(o, "    const long long %cg%d = ok%c%d ? (long long)%cy%d * %s + %cx%d : 0;\n", k, c, k, c,
                  k, c, sB, k, c);
    else
        sb_printf(o, "    const long long %cg%d = ok%c%d ? (long long)%cx%d : 0;\n", k, c, k, c, k, c);
}

/* Per-thread tile cells: cell c of a thread is e = tid + c * threads. Whole-tile cells map
 * row-major; halo cells enumerate the rows above, the side columns, then the rows below. */
static void emit_cells(CgCtx *ctx, const StreamGeom *g, const StreamLoads *pl, int threads)
{
    StrBuf *o = ctx->src;
    int W = g->W, H = g->H, hx = g->hx, hb = g->hb;
    for (int c = 0; c < pl->full_cells; c++) {
        sb_printf(o, "    const int ef%d = tid + %d;\n", c, c * threads);
        sb_printf(o, "    const int fs%d = ef%d;\n", c, c);
        sb_printf(o, "    const int fy%d = ef%d / %d, fx%d = ef%d - fy%d * %d;\n", c, c, W, c, c, c, W);
        emit_cell_bounds(o, g, 'f', c, W * H);
    }
    int top = hb * W, side = g->tbb * 2 * hx, cells = W * H - g->tbx * g->tbb;
    for (int c = 0; c < pl->halo_cells; c++) {
        sb_printf(o, "    int hx%d = 0, hy%d = 0;\n", c, c);
        sb_printf(o, "    const int eh%d = tid + %d;\n", c, c * threads);
        sb_printf(o, "    if (eh%d < %d) {\n        hy%d = eh%d / %d;\n        hx%d = eh%d - hy%d * %d;\n"
                  "    }", c, top, c, c, W, c, c, c, W);
        if (side > 0)
            sb_printf(o, " else if (eh%d < %d) {\n        const int e2 = eh%d - %d;\n"
                      "        hy%d = %d + e2 / %d;\n        const int cx = e2 - (hy%d - %d) * %d;\n"
                      "        hx%d = cx < %d ? cx : cx + %d;\n    }", c, top + side, c, top, c,
                      hb, 2 * hx, c, hb, 2 * hx, c, hx, g->tbx);
        sb_printf(o, " else {\n        const int e3 = eh%d - %d;\n        hy%d = %d + e3 / %d;\n"
                  "        hx%d = e3 - (hy%d - %d) * %d;\n    }\n", c, top + side, c, hb + g->tbb,
                  W, c, c, hb + g->tbb, W);
        sb_printf(o, "    const int hs%d = hy%d * %d + hx%d;\n", c, c, W, c);
        emit_cell_bounds(o, g, 'h', c, cells);
    }
}

/* Fast path loads of one incoming plane t (t - z0 = trel): each source's own cell (plane
 * t+R) and its tile cells (plane t+hi, only once t + hi >= z0) through pointers that then
 * step one plane. decl: the declaration prefix ("const T ", "T ") or "" to assign. */
static void emit_fast_loads(CgCtx *ctx, const StreamGeom *g, const StreamLoads *pl, const char *suf,
                            const char *ind, const char *decl, int trel)
{
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    const char *sp = g->sd == 2 ? "s2" : "s1";
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        if (pl->own_load[k])
            sb_printf(o, "%s%sg%d%s = *pg%d;\n%spg%d += %s;\n", ind, decl, k, suf, k, ind, k, sp);
        if (!s->slots || trel + s->hi < 0)
            continue;
        int full = s->hi == g->R;
        int ncell = full ? pl->full_cells : pl->halo_cells;
        for (int c = 0; c < ncell; c++)
            sb_printf(o, "%s%sh%d_%d%s = %s%d ? *ph%d_%d : (%s)0;\n%sph%d_%d += %s;\n", ind, decl, k,
                      c, suf, full ? "okf" : "okh", c, k, c, T, ind, k, c, sp);
    }
}

static void emit_fast_zero_decls(CgCtx *ctx, const StreamGeom *g, const StreamLoads *pl,
                                 const char *suf, const char *ind)
{
    const char *T = ctx->T;
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        if (pl->own_load[k])
            sb_printf(ctx->src, "%s%s g%d%s = (%s)0;\n", ind, T, k, suf, T);
        int ncell = !s->slots ? 0 : s->hi == g->R ? pl->full_cells : pl->halo_cells;
        for (int c = 0; c < ncell; c++)
            sb_printf(ctx->src, "%s%s h%d_%d%s = (%s)0;\n", ind, T, k, c, suf, T);
    }
}

static int gcd_int(int a, int b) { return b ? gcd_int(b, a % b) : a; }

/* The fast path of a full block: its chunk z0 .. z0+sb-1 lies inside the grid along SD and
 * its tile inside it in-plane (decided once per block, so __syncthreads stays uniform). Then
 * every thread is live and inside, every plane of the loop exists, and no load needs a bounds
 * test: the own loads reach plane z0+sb-1+2R <= n+2R-1, the last buffer plane, and the tile
 * loads plane z0+sb-1+R+hi, no further. The loop splits into 2R warm-up planes (t = z0-R ..
 * z0+R-1: loads and ring stores, no output; constant slots) and sb steady planes unrolled by
 * Uf = lcm(uf, slots) when that divides sb (so (rb + p) % slots is a constant per unrolled
 * plane), else by uf with the slot computed. Global addresses are pointers stepped by the
 * plane stride: no 64-bit multiply in the loop. With prefetch, only the loads of the group
 * after the body's last group test (once, uniformly) that the block has one. */
static void emit_fast_path(CgCtx *ctx, int stage, const StreamGeom *g, const StreamLoads *pl,
                           const char *bufname[])
{
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    int R = g->R, uf = g->uf, sb = g->sb;
    const char *sp = g->sd == 2 ? "s2" : "s1";
    int S = 1;
    for (int k = 0; k < g->nsrc; k++)
        if (g->src[k].slots)
            S = S / gcd_int(S, g->src[k].slots) * g->src[k].slots;
    int Uf = uf / gcd_int(uf, S) * S;
    int const_slots = sb % Uf == 0 && Uf <= (uf > 8 ? uf : 8);
    if (!const_slots)
        Uf = uf;
    sb_printf(o, "    const bool full = z0 + %d <= n%d && bx0 + %d <= n0", sb, g->sd, g->tbx);
    if (g->dims == 3)
        sb_printf(o, " && bb0 + %d <= n%d", g->tbb, g->ab);
    sb_puts(o, ";\n    if (full) {\n");
    /* pointers: the first plane each stream loads is buffer plane z0 (own: t+R at t=z0-R;
     * tile: t+hi at the first t with t+hi >= z0); the first output is plane t = z0+R */
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        if (pl->own_load[k])
            sb_printf(o, "        const %s *pg%d = %s + (long long)z0 * %s + own_g;\n", T, k,
                      bufname[k], sp);
        int full = s->slots && s->hi == R;
        int ncell = !s->slots ? 0 : full ? pl->full_cells : pl->halo_cells;
        for (int c = 0; c < ncell; c++)
            sb_printf(o, "        const %s *ph%d_%d = %s + (long long)z0 * %s + tile_g + %s%d;\n", T,
                      k, c, bufname[k], sp, full ? "fg" : "hg", c);
    }
    const char *outs[STREAM_MAX_SRC];
    StreamCtx sc = {*ctx, g};
    sc.ctx.stage = stage;
    int nout = stream_outputs(&sc.ctx, outs);
    for (int k = 0; k < nout; k++)
        sb_printf(o, "        %s *po%d = %s + (long long)(z0 + %d) * %s + own_g;\n", T, k, outs[k],
                  R, sp);
    /* warm-up loads (and with prefetch the first steady group's) are all issued up front */
    char suf[16], cdecl[32];
    snprintf(cdecl, sizeof cdecl, "const %s ", T);
    for (int j = 0; j < 2 * R; j++) {
        snprintf(suf, sizeof suf, "_w%d", j);
        sb_printf(o, "        /* warm-up plane t = z0%+d */\n", j - R);
        emit_fast_loads(ctx, g, pl, suf, "        ", cdecl, j - R);
    }
    char decl[32];
    snprintf(decl, sizeof decl, "%s ", T);
    for (int u = 0; g->prefetch && u < uf; u++) {
        snprintf(suf, sizeof suf, "_%d", u);
        emit_fast_loads(ctx, g, pl, suf, "        ", decl, R);
    }
    for (int j = 0; j < 2 * R; j++) {
        PlaneMode m = {PM_WARM, j - R, j + R + 1, NULL};
        snprintf(suf, sizeof suf, "_w%d", j);
        sb_puts(o, "        {\n");
        emit_plane(&sc, pl, suf, "            ", &m);
        sb_puts(o, "        }\n");
    }
    sb_printf(o, "        /* steady planes: t = z0+%d+jj .. (%s slots) */\n", R,
              const_slots ? "constant" : "computed");
    sb_printf(o, "#pragma unroll 1\n        for (int jj = 0; jj < %d; jj += %d) {\n", sb, Uf);
    int groups = Uf / uf;
    for (int gi = 0; gi < groups; gi++) {
        sb_puts(o, "            {\n");
        if (!g->prefetch) {
            for (int u = 0; u < uf; u++) {
                snprintf(suf, sizeof suf, "_%d", u);
                emit_fast_loads(ctx, g, pl, suf, "                ", cdecl, R);
            }
        } else if (gi + 1 < groups) {
            for (int u = 0; u < uf; u++) {
                snprintf(suf, sizeof suf, "_%dn", u);
                emit_fast_loads(ctx, g, pl, suf, "                ", cdecl, R);
            }
        } else {
            for (int u = 0; u < uf; u++) {
                snprintf(suf, sizeof suf, "_%dn", u);
                emit_fast_zero_decls(ctx, g, pl, suf, "                ");
            }
            sb_printf(o, "                if (jj + %d < %d) {\n", Uf, sb);
            for (int u = 0; u < uf; u++) {
                snprintf(suf, sizeof suf, "_%dn", u);
                emit_fast_loads(ctx, g, pl, suf, "                    ", "", R);
            }
            sb_puts(o, "                }\n");
        }
        for (int u = 0; u < uf; u++) {
            int ub = gi * uf + u;
            char rbx[32];
            snprintf(rbx, sizeof rbx, "jj + %d", 3 * R + 1 + ub);
            PlaneMode m = {PM_STEADY, R, const_slots ? 3 * R + 1 + ub : -1, rbx};
            snprintf(suf, sizeof suf, "_%d", u);
            sb_puts(o, "                {\n");
            emit_plane(&sc, pl, suf, "                    ", &m);
            sb_puts(o, "                }\n");
        }
        for (int u = 0; g->prefetch && u < uf; u++)
            for (int k = 0; k < g->nsrc; k++) {
                const StreamSrc *s = &g->src[k];
                if (pl->own_load[k])
                    sb_printf(o, "                g%d_%d = g%d_%dn;\n", k, u, k, u);
                int ncell = !s->slots ? 0 : s->hi == R ? pl->full_cells : pl->halo_cells;
                for (int c2 = 0; c2 < ncell; c2++)
                    sb_printf(o, "                h%d_%d_%d = h%d_%d_%dn;\n", k, c2, u, k, c2, u);
            }
        sb_puts(o, "            }\n");
    }
    sb_puts(o, "        }\n        return; /* the general loop below serves edge blocks */\n    }\n");
}

int cg_emit_stage_stream(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                         char *why, int whylen)
{
    const IrProgram *p = ctx->prog;
    const Config *c = ctx->cfg;
    StreamGeom *g = arena_alloc(ctx->arena, sizeof *g);
    if (p->dims < 2) {
        snprintf(why, (size_t)whylen, "streaming needs a 2D or 3D grid");
        return -1;
    }
    if (cg_stream_geom(p, stage, c, g, why, whylen) != 0)
        return -1;
    if (g->retime)
        return cg_emit_stream_retime(ctx, stage, name, args, l, g, why, whylen);
    if (g->reg_mode)
        return cg_emit_stream_reg(ctx, stage, name, args, l, g);
    int threads = g->tbx * g->tbb;
    StreamLoads *pl = arena_alloc(ctx->arena, sizeof *pl);
    int any_full = 0, any_halo = 0;
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        needed_regs(g, s, pl->need[k]);
        pl->own_load[k] = pl->need[k][2 * g->R] && !(s->slots && s->hi == g->R);
        any_full |= s->slots && s->hi == g->R;
        any_halo |= s->slots && s->hi < g->R;
    }
    int halo_count = g->W * g->H - threads;
    pl->full_cells = any_full ? (g->W * g->H + threads - 1) / threads : 0;
    pl->halo_cells = any_halo ? (halo_count + threads - 1) / threads : 0;

    const char **bufname = arena_alloc(ctx->arena, sizeof(char *) * (size_t)(g->nsrc + 1));
    for (int k = 0; k < g->nsrc; k++) {
        PlanArg a = {ARG_BUF, g->src[k].field, g->src[k].level, 0};
        char an[160];
        cg_arg_name(p, &a, an, sizeof an);
        bufname[k] = arena_strdup(ctx->arena, an);
    }
    int block[3] = {c->v[P_TBX], c->v[P_TBY], c->v[P_TBZ]};
    StrBuf *o = ctx->src;
    sb_printf(o, "/* stage %d: 2.5D streaming along %c, %d planes per block, %d-plane window; "
              "regq=%d (centre reads of %d plane%s from shared memory), %s */\n", stage,
              axis_letter[g->sd], g->sb, 2 * g->R + 1, g->regq, g->regq - 1, g->regq == 2 ? "" : "s", g->prefetch ? "next plane prefetched" : "no prefetch");
    cg_emit_signature(ctx, name, block, args);
    const char *T = ctx->T;
    if (g->smem_elems > 0) {
        sb_printf(o, "    extern __shared__ __align__(16) unsigned char %s_smem[];\n", name);
        for (int k = 0; k < g->nsrc; k++)
            if (g->src[k].slots)
                sb_printf(o, "    %s *const sm%d = (%s *)%s_smem + %d;\n", T, k, T, name,
                          g->src[k].smem_offset);
    }
    cg_emit_strides(ctx);
    const char *tB = g->ab == 1 ? "threadIdx.y" : "threadIdx.z";
    const char *bB = g->ab == 1 ? "blockIdx.y" : "blockIdx.z";
    const char *nB = g->ab == 1 ? "n1" : "n2";
    const char *sB = g->ab == 1 ? "s1" : "s2";
    sb_printf(o, "    const int bx0 = (int)(blockIdx.x * %du);\n", g->tbx);
    sb_printf(o, "    const int i = bx0 + (int)threadIdx.x;\n");
    if (g->dims == 3) {
        sb_printf(o, "    const int bb0 = (int)(%s * %du);\n", bB, g->tbb);
        sb_printf(o, "    const int jb = bb0 + (int)%s;\n", tB);
        sb_printf(o, "    const int tid = (int)threadIdx.x + (int)%s * %d;\n", tB, g->tbx);
        sb_printf(o, "    const bool live = i < n0 + %d && jb < %s + %d;\n", g->hx, nB, g->hb);
        sb_printf(o, "    const bool inside = i < n0 && jb < %s;\n", nB);
        sb_printf(o, "    const long long own_g = (long long)(jb + %d) * %s + (i + %d);\n", g->hb, sB,
                  g->hx);
        sb_printf(o, "    const long long tile_g = (long long)bb0 * %s + bx0;\n", sB);
        sb_printf(o, "    const int own_s = ((int)%s + %d) * %d + (int)threadIdx.x + %d;\n", tB, g->hb,
                  g->W, g->hx);
        sb_puts(o, "    (void)bb0;\n");
    } else {
        sb_puts(o, "    const int tid = (int)threadIdx.x;\n");
        sb_printf(o, "    const bool live = i < n0 + %d;\n", g->hx);
        sb_puts(o, "    const bool inside = i < n0;\n");
        sb_printf(o, "    const long long own_g = (long long)(i + %d);\n", g->hx);
        sb_puts(o, "    const long long tile_g = (long long)bx0;\n");
        sb_printf(o, "    const int own_s = (int)threadIdx.x + %d;\n", g->hx);
    }
    sb_puts(o, "    (void)tid; (void)live; (void)tile_g; (void)own_s;\n");
    sb_printf(o, "    const int z0 = (int)(blockIdx.%c * %du);\n", axis_letter[g->sd], g->sb);
    sb_printf(o, "    const int zend = min(z0 + %d, n%d);\n", g->sb, g->sd);
    sb_printf(o, "    const int tlast = zend - 1 + %d;\n", g->R);
    emit_cells(ctx, g, pl, threads);
    char pn[16];
    for (int k = 0; k < g->nsrc; k++)
        for (int q = -g->R; q <= g->R; q++)
            if (pl->need[k][q + g->R])
                sb_printf(o, "    %s q%d_%s = (%s)0;\n", T, k, cg_stream_signed_name(pn, q), T);
    if (g->sb % g->uf == 0)
        emit_fast_path(ctx, stage, g, pl, bufname);
    /* Loads of a group of uf planes are issued together (with prefetch: those of the next
     * group, before this group's planes are computed), so each thread has uf (2 uf) loads in
     * flight. */
    char suf[16], tex[64], guard[64];
    for (int u = 0; g->prefetch && u < g->uf; u++) {
        snprintf(suf, sizeof suf, "_%d", u);
        snprintf(tex, sizeof tex, "(z0 - %d)", g->R - u);
        snprintf(guard, sizeof guard, "(z0 - %d <= tlast)", g->R - u);
        declare_load_vars(ctx, g, pl, suf, "    ");
        emit_loads(ctx, g, pl, bufname, tex, guard, suf, "    ");
    }
    sb_printf(o, "    for (int t0 = z0 - %d; t0 <= tlast; t0 += %d) {\n", g->R, g->uf);
    for (int u = 0; u < g->uf; u++) {
        snprintf(suf, sizeof suf, g->prefetch ? "_%dn" : "_%d", u);
        snprintf(tex, sizeof tex, "(t0 + %d)", g->prefetch ? g->uf + u : u);
        snprintf(guard, sizeof guard, "(t0 + %d <= tlast)", g->prefetch ? g->uf + u : u);
        declare_load_vars(ctx, g, pl, suf, "        ");
        emit_loads(ctx, g, pl, bufname, tex, guard, suf, "        ");
    }
    for (int u = 0; u < g->uf; u++) {
        if (u == 0)
            sb_puts(o, "        {\n            const int t = t0;\n");
        else
            sb_printf(o, "        if (t0 + %d <= tlast) {\n            const int t = t0 + %d;\n", u, u);
        StreamCtx sc = {*ctx, g};
        sc.ctx.stage = stage;
        snprintf(suf, sizeof suf, "_%d", u);
        char rbx[32];
        snprintf(rbx, sizeof rbx, "t - z0 + %d", 2 * g->R + 1);
        PlaneMode m = {PM_GENERAL, 0, -1, rbx};
        emit_plane(&sc, pl, suf, "            ", &m);
        sb_puts(o, "        }\n");
    }
    for (int u = 0; g->prefetch && u < g->uf; u++)
        for (int k = 0; k < g->nsrc; k++) {
            const StreamSrc *s = &g->src[k];
            if (pl->own_load[k])
                sb_printf(o, "        g%d_%d = g%d_%dn;\n", k, u, k, u);
            int ncell = !s->slots ? 0 : s->hi == g->R ? pl->full_cells : pl->halo_cells;
            for (int c2 = 0; c2 < ncell; c2++)
                sb_printf(o, "        h%d_%d_%d = h%d_%d_%dn;\n", k, c2, u, k, c2, u);
        }
    sb_puts(o, "    }\n}\n\n");
    for (int d = 0; d < 3; d++) {
        l->block[d] = block[d];
        l->tile[d] = d == g->sd ? g->sb : block[d];
        l->axis_of[d] = d;
    }
    l->smem_bytes = (int)(g->smem_elems * ir_elem_size(p));
    return 0;
}
