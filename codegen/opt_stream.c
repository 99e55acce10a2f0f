/* The stream pass: 2.5D streaming. A thread block covers a tile of the in-plane axes (x and, in
 * 3D, the other non-streaming axis) and walks `sb` planes along the streaming dimension (SD);
 * several blocks stream one column concurrently (the grid has ceil(n_sd / sb) blocks along SD).
 * Each thread walks its column with a window of 2R+1 planes per streamed buffer: registers for
 * centre-column reads (the register queue), a ring of shared-memory planes (tile + in-plane halo)
 * for in-plane neighbours (opt_stream.h says which plane lives where). The loop runs over
 * incoming planes t = z0-R .. zend-1+R and computes output plane t-R once the window is full;
 * one __syncthreads per plane (the ring has one slot more than the planes it serves).
 *
 * This file builds the ring kernel's prologue (coordinates, tile cells, registers) and its
 * general loop; opt_stream_plane.c builds one plane, opt_stream_fast.c the fast path of full
 * blocks. Register mode and retiming have their own files. */
#include "opt_stream_build.h"

#include <stdio.h>
#include <string.h>

int cg_stream_wants(const Config *c) { return c->v[P_STREAM] == 2; }

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

static StreamLoads *ring_loads(Arena *arena, const StreamGeom *g)
{
    StreamLoads *pl = arena_alloc(arena, sizeof *pl);
    int threads = g->tbx * g->tbb;
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
    return pl;
}

/* The thread's column (i, jb), its index in the block (tid), whether it loads (live) and
 * computes (inside), its offsets in global memory (own_g) and in a ring plane (own_s), the
 * tile's corner in global memory (tile_g). */
static void ring_coords(StreamB *sb, KBlock *out)
{
    static const char *const maybe_unused[] = {"tid", "live", "tile_g", "own_s"};
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    KExpr *tx = k_cast(b, "int", k_thread(b, 0));
    KExpr *bx0 = k_let(b, out, "int", "bx0", k_cast(b, "int", k_mul(b, k_block(b, 0), k_uint(b, g->tbx))));
    KExpr *i = k_let(b, out, "int", "i", k_add(b, bx0, tx));
    KExpr *n0 = k_var(b, "n0");
    if (g->dims == 2) {
        k_let(b, out, "int", "tid", tx);
        k_let(b, out, "bool", "live", k_bin(b, KO_LT, i, stream_add(sb, n0, g->hx)));
        k_let(b, out, "bool", "inside", k_bin(b, KO_LT, i, n0));
        k_let(b, out, "long long", "own_g", k_cast(b, "long long", stream_add(sb, i, g->hx)));
        k_let(b, out, "long long", "tile_g", k_cast(b, "long long", bx0));
        k_let(b, out, "int", "own_s", stream_add(sb, tx, g->hx));
        stream_unused(sb, out, maybe_unused, 4);
        return;
    }
    KExpr *tb = k_cast(b, "int", k_thread(b, g->ab)), *nb = k_varf(b, "n%d", g->ab), *sB = sb->s[g->ab];
    KExpr *bb0 = k_let(b, out, "int", "bb0", k_cast(b, "int", k_mul(b, k_block(b, g->ab), k_uint(b, g->tbb))));
    KExpr *jb = k_let(b, out, "int", "jb", k_add(b, bb0, tb));
    k_let(b, out, "int", "tid", k_add(b, tx, k_mul(b, tb, k_int(b, g->tbx))));
    KExpr *live = k_bin(b, KO_LT, i, stream_add(sb, n0, g->hx));
    k_let(b, out, "bool", "live", k_and(b, live, k_bin(b, KO_LT, jb, stream_add(sb, nb, g->hb))));
    k_let(b, out, "bool", "inside", k_and(b, k_bin(b, KO_LT, i, n0), k_bin(b, KO_LT, jb, nb)));
    KExpr *row = k_mul(b, k_cast(b, "long long", stream_add(sb, jb, g->hb)), sB);
    k_let(b, out, "long long", "own_g", k_add(b, row, stream_add(sb, i, g->hx)));
    k_let(b, out, "long long", "tile_g", k_add(b, k_mul(b, k_cast(b, "long long", bb0), sB), bx0));
    KExpr *srow = k_mul(b, stream_add(sb, tb, g->hb), k_int(b, g->W));
    k_let(b, out, "int", "own_s", stream_add(sb, k_add(b, srow, tx), g->hx));
    stream_unused(sb, out, (const char *const[]){"bb0"}, 1);
    stream_unused(sb, out, maybe_unused, 4);
}

/* Cell c of kind k ('f': whole-tile cell, 'h': halo cell) at (k x c, k y c) of the padded tile:
 * ok<k><c> says whether it is one of the `cells` and inside the grid's buffer, <k>g<c> is its
 * offset from the tile's corner in global memory (0 when not ok). */
static void cell_bounds(StreamB *sb, KBlock *out, char k, int c, int cells)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    KExpr *x = k_varf(b, "%cx%d", k, c), *y = k_varf(b, "%cy%d", k, c);
    KExpr *ok = k_bin(b, KO_LT, k_varf(b, "e%c%d", k, c), k_int(b, cells));
    ok = k_and(b, ok, k_bin(b, KO_LT, k_add(b, k_var(b, "bx0"), x), stream_add(sb, k_var(b, "n0"), 2 * g->hx)));
    if (g->dims == 3)
        ok = k_and(b, ok, k_bin(b, KO_LT, k_add(b, k_var(b, "bb0"), y), stream_add(sb, k_varf(b, "n%d", g->ab), 2 * g->hb)));
    ok = k_let(b, out, "bool", stream_name(sb, "ok%c%d", k, c), ok);
    KExpr *at = g->dims == 3 ? k_add(b, k_mul(b, k_cast(b, "long long", y), sb->s[g->ab]), x) : k_cast(b, "long long", x);
    k_let(b, out, "long long", stream_name(sb, "%cg%d", k, c), k_select(b, ok, at, k_int(b, 0)));
}

/* Halo cell c: the rows above the tile, the side columns, then the rows below. */
static void halo_cell(StreamB *sb, KBlock *out, int c, int threads)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int W = g->W, hb = g->hb, hx2 = 2 * g->hx;
    int top = hb * W, side = g->tbb * hx2, below = hb + g->tbb;
    KExpr *hx = k_varf(b, "hx%d", c), *hy = k_varf(b, "hy%d", c);
    k_push(b, out, k_decl(b, 0, "int", hx->name, k_int(b, 0)));
    k_push(b, out, k_decl(b, 0, "int", hy->name, k_int(b, 0)));
    KExpr *eh = k_let(b, out, "int", stream_name(sb, "eh%d", c), stream_add(sb, k_var(b, "tid"), c * threads));
    KStmt *above = k_if(b, k_bin(b, KO_LT, eh, k_int(b, top)));
    k_push(b, &above->body, k_assign(b, hy, k_bin(b, KO_DIV, eh, k_int(b, W))));
    k_push(b, &above->body, k_assign(b, hx, k_sub(b, eh, k_mul(b, hy, k_int(b, W)))));
    KBlock *rest = &above->els;
    if (side > 0) {
        KStmt *sides = k_if(b, k_bin(b, KO_LT, eh, k_int(b, top + side)));
        KExpr *e2 = k_let(b, &sides->body, "int", "e2", stream_sub(sb, eh, top));
        k_push(b, &sides->body, k_assign(b, hy, k_add(b, k_int(b, hb), k_bin(b, KO_DIV, e2, k_int(b, hx2)))));
        KExpr *cx = k_let(b, &sides->body, "int", "cx", k_sub(b, e2, k_mul(b, stream_sub(sb, hy, hb), k_int(b, hx2))));
        KExpr *pick = k_select(b, k_bin(b, KO_LT, cx, k_int(b, g->hx)), cx, stream_add(sb, cx, g->tbx));
        k_push(b, &sides->body, k_assign(b, hx, pick));
        k_push(b, rest, sides);
        rest = &sides->els;
    }
    KExpr *e3 = k_let(b, rest, "int", "e3", stream_sub(sb, eh, top + side));
    k_push(b, rest, k_assign(b, hy, k_add(b, k_int(b, below), k_bin(b, KO_DIV, e3, k_int(b, W)))));
    k_push(b, rest, k_assign(b, hx, k_sub(b, e3, k_mul(b, stream_sub(sb, hy, below), k_int(b, W)))));
    k_push(b, out, above);
    k_let(b, out, "int", stream_name(sb, "hs%d", c), k_add(b, k_mul(b, hy, k_int(b, W)), hx));
    cell_bounds(sb, out, 'h', c, W * g->H - g->tbx * g->tbb);
}

/* Per-thread tile cells: cell c of a thread is e = tid + c * threads. Whole-tile cells map
 * row-major; halo cells enumerate the rows above, the side columns, then the rows below. */
static void ring_cells(StreamB *sb, KBlock *out)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int threads = g->tbx * g->tbb;
    for (int c = 0; c < sb->pl->full_cells; c++) {
        KExpr *ef = k_let(b, out, "int", stream_name(sb, "ef%d", c), stream_add(sb, k_var(b, "tid"), c * threads));
        k_let(b, out, "int", stream_name(sb, "fs%d", c), ef);
        KExpr *fy = k_let(b, out, "int", stream_name(sb, "fy%d", c), k_bin(b, KO_DIV, ef, k_int(b, g->W)));
        k_let(b, out, "int", stream_name(sb, "fx%d", c), k_sub(b, ef, k_mul(b, fy, k_int(b, g->W))));
        cell_bounds(sb, out, 'f', c, g->W * g->H);
    }
    for (int c = 0; c < sb->pl->halo_cells; c++)
        halo_cell(sb, out, c, threads);
}

/* The loaded values of one plane: g<k><suf> (own column), h<k>_<c><suf> (tile cells). */
static void load_vars(StreamB *sb, KBlock *out, const char *suf)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        if (sb->pl->own_load[k])
            k_push(b, out, k_decl(b, 0, sb->ctx->T, stream_name(sb, "g%d%s", k, suf), NULL));
        int ncell = !s->slots ? 0 : s->hi == g->R ? sb->pl->full_cells : sb->pl->halo_cells;
        for (int c = 0; c < ncell; c++)
            k_push(b, out, k_decl(b, 0, sb->ctx->T, stream_name(sb, "h%d_%d%s", k, c, suf), NULL));
    }
}

/* The loads of incoming plane tex when guard holds: each source's own cell (plane tex+R) and
 * its tile cells (plane tex+hi, once that is at or past z0). */
static void ring_loads_of(StreamB *sb, KBlock *out, KExpr *tex, KExpr *guard, const char *suf)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    KExpr *z0 = k_var(b, "z0");
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        if (sb->pl->own_load[k]) {
            KExpr *at = k_add(b, k_mul(b, k_cast(b, "long long", stream_add(sb, tex, g->R)), sb->sp), k_var(b, "own_g"));
            KExpr *v = k_select(b, k_and(b, guard, k_var(b, "live")), k_index(b, sb->buf[k], at), stream_zero(sb));
            k_push(b, out, k_assign(b, k_varf(b, "g%d%s", k, suf), v));
        }
        int full = s->hi == g->R;
        int ncell = !s->slots ? 0 : full ? sb->pl->full_cells : sb->pl->halo_cells;
        if (ncell == 0)
            continue;
        KStmt *scope = k_scope(b);
        KExpr *pv = k_let(b, &scope->body, "bool", "pv", k_and(b, guard, k_bin(b, KO_GE, stream_add(sb, tex, s->hi), z0)));
        KExpr *row = k_mul(b, k_cast(b, "long long", stream_add(sb, tex, s->hi)), sb->sp);
        KExpr *pb = k_let(b, &scope->body, "long long", "pb", k_add(b, row, k_var(b, "tile_g")));
        for (int c = 0; c < ncell; c++) {
            KExpr *ok = k_and(b, pv, k_varf(b, "ok%c%d", full ? 'f' : 'h', c));
            KExpr *at = k_add(b, pb, k_varf(b, "%cg%d", full ? 'f' : 'h', c));
            KExpr *v = k_select(b, ok, k_index(b, sb->buf[k], at), stream_zero(sb));
            k_push(b, &scope->body, k_assign(b, k_varf(b, "h%d_%d%s", k, c, suf), v));
        }
        k_push(b, out, scope);
    }
}

/* Declares and loads the values of incoming plane tex. */
static void ring_group_loads(StreamB *sb, KBlock *out, KExpr *tex, const char *suf)
{
    load_vars(sb, out, suf);
    ring_loads_of(sb, out, tex, k_bin(sb->b, KO_LE, tex, k_var(sb->b, "tlast")), suf);
}

/* The general loop: every plane of every block, each condition tested at run time. Loads of a
 * group of uf planes are issued together (with prefetch: those of the next group, before this
 * group's planes are computed), so each thread has uf (2 uf) loads in flight. */
static void ring_loop(StreamB *sb, KBlock *out)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int uf = g->uf;
    KExpr *z0 = k_var(b, "z0"), *t0 = k_var(b, "t0");
    for (int u = 0; g->prefetch && u < uf; u++)
        ring_group_loads(sb, out, stream_sub(sb, z0, g->R - u), stream_name(sb, "_%d", u));
    KStmt *loop = k_for(b, "t0", stream_sub(sb, z0, g->R), k_var(b, "tlast"), k_int(b, uf), 0);
    loop->inclusive = 1;
    for (int u = 0; u < uf; u++)
        ring_group_loads(sb, &loop->body, stream_add(sb, t0, g->prefetch ? uf + u : u),
                         stream_name(sb, g->prefetch ? "_%dn" : "_%d", u));
    for (int u = 0; u < uf; u++) {
        KStmt *plane = u == 0 ? k_scope(b) : k_if(b, k_bin(b, KO_LE, stream_add(sb, t0, u), k_var(b, "tlast")));
        KExpr *t = k_let(b, &plane->body, "int", "t", u == 0 ? t0 : stream_add(sb, t0, u));
        PlaneMode m = {PM_GENERAL, 0, -1, stream_add(sb, k_sub(b, t, z0), 2 * g->R + 1), NULL};
        stream_plane(sb, &plane->body, stream_name(sb, "_%d", u), &m);
        k_push(b, &loop->body, plane);
    }
    for (int u = 0; g->prefetch && u < uf; u++)
        stream_carry(sb, &loop->body, u);
    k_push(b, out, loop);
}

static const char *ring_comment(CgCtx *ctx, int stage, const StreamGeom *g)
{
    return arena_printf(ctx->arena, "stage %d: 2.5D streaming along %c, %d planes per block, %d-plane window; "
                        "regq=%d (centre reads of %d plane%s from shared memory), %s", stage,
                        stream_axis_letter(g->sd), g->sb, 2 * g->R + 1, g->regq, g->regq - 1,
                        g->regq == 2 ? "" : "s", g->prefetch ? "next plane prefetched" : "no prefetch");
}

static void ring_body(StreamB *sb, KBlock *out, const char *name)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    if (g->smem_elems > 0)
        stream_smem(sb, out, name, 0);
    cg_strides(sb->ctx, out, sb->s);
    sb->sp = sb->s[g->sd];
    ring_coords(sb, out);
    stream_z_range(sb, out);
    ring_cells(sb, out);
    for (int k = 0; k < g->nsrc; k++)
        for (int q = -g->R; q <= g->R; q++)
            if (sb->pl->need[k][q + g->R])
                k_push(b, out, k_decl(b, 0, sb->ctx->T, stream_var(sb, "q", k, q)->name, stream_zero(sb)));
    ring_loop(sb, g->sb % g->uf == 0 ? stream_fast_path(sb, out) : out);
}

static KKernel *ring_kernel(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                            const StreamGeom *g)
{
    const Config *c = ctx->cfg;
    StreamB *sb = stream_builder(ctx, stage, g, stream_ring_read);
    sb->pl = ring_loads(ctx->arena, g);
    int block[3] = {c->v[P_TBX], c->v[P_TBY], c->v[P_TBZ]};
    KKernel *k = cg_kernel(ctx, name, block, args);
    k->comment = ring_comment(ctx, stage, g);
    ring_body(sb, &k->body, name);
    stream_launch(ctx, l, g, 1);
    return k;
}

/* The stage's kernel under its mode (ring, register mode, retiming); NULL with a reason. */
static KKernel *stage_kernel(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                             char *why, int whylen)
{
    StreamGeom *g = arena_alloc(ctx->arena, sizeof *g);
    if (ctx->prog->dims < 2) {
        snprintf(why, (size_t)whylen, "streaming needs a 2D or 3D grid");
        return NULL;
    }
    if (cg_stream_geom(ctx->prog, stage, ctx->cfg, g, why, whylen) != 0)
        return NULL;
    if (g->retime)
        return cg_build_stream_retime(ctx, stage, name, args, l, g, why, whylen);
    if (g->reg_mode)
        return cg_build_stream_reg(ctx, stage, name, args, l, g);
    return ring_kernel(ctx, stage, name, args, l, g);
}

/* The fused step (ctx->fold, emit_reduce_fused.c): the accumulators before the body, whose
 * points fold as they are stored (cg_point), and the block's partials after it, over the
 * launch's tiles (sb planes along SD). In the fused form no path of the body returns early. */
static void fold_around(CgCtx *ctx, KKernel *k, const PlanLaunch *l)
{
    KBlock body = {0};
    cg_fold_begin(ctx, &body);
    for (int i = 0; i < k->body.n; i++)
        k_push(&ctx->kb, &body, k->body.items[i]);
    k->body = body;
    cg_fold_end(ctx, &k->body, l->block, l->tile, l->extra);
}

int cg_emit_stage_stream(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                         char *why, int whylen)
{
    KKernel *k = stage_kernel(ctx, stage, name, args, l, why, whylen);
    if (!k)
        return -1;
    if (ctx->fold)
        fold_around(ctx, k, l);
    cg_add_kernel(ctx, k);
    return 0;
}
