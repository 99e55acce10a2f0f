/* The temporal pass with streaming (stream=on plus tblock=K): AN5D's high-degree temporal
 * blocking (Matsumura et al., CGO 2020).
 *
 * A block covers an in-plane tile E (x in 2D, x-y in 3D: the thread block, one thread per
 * column; with bm=1xCx1 in 3D, bm=Cx1 in 2D, C columns per thread adjacent along y or x,
 * TbsGeom.C, each with its own registers and names, every step built once per column; in 2D the
 * shared tile is transposed and only the columns another thread reads are stored to it, all of
 * them under clamp and mirror, tbs_inplane_offset and tbs_ring_read) and streams along the streaming
 * axis sd (y in 2D, z in 3D) over its chunk: SB output planes plus K*R planes at each end (R =
 * the halo along sd), recomputed redundantly by the neighbouring chunks. Only the in-plane axes
 * carry a redundant halo: the output tile is E - 2*K*H in-plane.
 *
 * Each of the K fused steps keeps a queue of its input planes (step 0's input is the loaded
 * plane): the thread's own column in registers, the whole in-plane tile in a shared-memory ring
 * (for the in-plane neighbours). When plane p of the input arrives, step 1 computes plane
 * p - L, step 2 plane p - 2L, ..., step K plane p - K*L, which goes to global memory; so the
 * steps form a pipeline down the axis with a lag of L planes per step (TbsGeom.Lag, stream_lag
 * in opt_temporal_geom.c).
 *
 * One __syncthreads per input plane, at the end of the loop's copy, is the only barrier: every
 * shared-memory read is of a plane written in an earlier copy. Step s+1 computes plane
 * P = p - (s+1)L and reads step s's planes P + d, d in [-R, R], which that step wrote L - d
 * copies earlier. The reads from the ring are those with an in-plane offset (the own column is
 * in registers). With L = R + 1 all of them are at least one copy old; a star reads in-plane
 * neighbours only at d < R (its are in the centre plane), so L = R is enough there. A queue
 * holds Q = L + R + 1 planes: the oldest read is L + R copies old, and its slot is written
 * again Q copies after it was, behind the barrier that ends the copy of the last read. (A 3D box
 * keeps L = R and puts a barrier after every plane written to a ring instead, K per input plane,
 * which measured faster there: TbsGeom.step_barriers.)
 *
 * The plane loop is unrolled Q times, so that in copy u every ring position is a constant: the
 * newest plane of every queue lands at position u, the plane written a copies ago at
 * (u - a) mod Q; the registers of a queue are named by position too, so no value moves between
 * registers. The next input plane is loaded one plane ahead (prefetch) to overlap its latency
 * with the K steps' work.
 *
 * Boundary semantics (`boundary fixed`): only interior points are computed at every step; any
 * other point (a halo column, a halo plane, a column at the tile's edge whose neighbours lie
 * outside the tile) passes the previous step's value through unchanged, which for a halo point is
 * the loaded initial value. Columns at the tile's edge are wrong after some steps but lie outside
 * the output tile (E - 2*K*H), as in overlapped tiling; so are the planes a step computes before
 * its inputs have arrived, which no valid plane reads. */
#include "opt_temporal_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The builder's context: CgCtx first, so the read hook can get back to the rest. The copy u of
 * the unrolled plane loop and the step whose input queue the reads come from say where a read
 * lies. */
typedef struct {
    CgCtx base;
    const TbsGeom *g;
    int u, from;
    int plain; /* reads as under a fixed edge (TbsGeom.fixups, the fast loop) */
} TbsCtx;

static int is_state(const IrProgram *p, int f) { return p->fields[f].role == ROLE_STATE; }

/* The column a read at in-plane offset off lands on, as a place in the tile (rc_<x>_<y>, m for
 * minus): under TB_MAP a halo column is read at its source, so no halo column's slot is read
 * (those slots hold what their threads computed, which is not the halo's value). Kept inside
 * the tile, where a read from a column outside the output region may land beyond it. */
static const char *ring_column(CgCtx *ctx, const TbsGeom *g, const int off[3])
{
    return tbs_name(ctx, g, arena_printf(ctx->arena, "rc_%s%d_%s%d", off[0] < 0 ? "m" : "", abs(off[0]),
                                         off[1] < 0 ? "m" : "", abs(off[1])));
}

/* The built-ins' coordinates (CgCtx.kcoord): the column's in-plane i (j), the plane ps along the
 * streaming axis (their sources where halo points are computed); step s of the launch (1 .. K) has s - 1 = from steps before it. */
static KExpr *queue_coord(CgCtx *ctx, int axis)
{
    TbsCtx *tc = (TbsCtx *)ctx;
    if (axis == CG_FUSED_STEP)
        return tc->from ? k_int(&ctx->kb, tc->from) : NULL;
    static const char *const source_var[3] = {"src_i", "src_j", "src_k"};
    if (axis == tc->g->sd) /* planes and columns computed as their sources have the sources' */
        return tbs_plane_source(ctx, tc->g, k_var(&ctx->kb, "ps"));
    if (cg_temporal_edge(ctx->prog, NULL) != TB_HOLD)
        return tbs_var(ctx, tc->g, source_var[axis]);
    return tbs_coord(ctx, tc->g, axis);
}

/* Reads: a state field from the input queue of the step being computed (register for the own
 * column and for another column of the same thread, shared ring otherwise); a coef field from
 * global memory at the plane's index. A column's register and its ring slot are written
 * together, and every step of a copy is built for all columns before the next step, so the
 * register holds at the read what the ring would give. */
static KExpr *queue_read(CgCtx *ctx, const IrNode *n)
{
    TbsCtx *tc = (TbsCtx *)ctx;
    const TbsGeom *g = tc->g;
    Kb *b = &ctx->kb;
    if (!is_state(ctx->prog, n->field))
        return cg_global_read(ctx, n, k_var(b, "idx"));
    /* u@-1: step s-2's plane, written 2*Lag - d copies ago; at step 1 the loaded older level's
     * (queue -1), loaded with the newer level's plane */
    int older = n->level < 0, queue = older ? tc->from - 1 : tc->from;
    int age = older && queue >= 0 ? 2 * g->Lag : g->Lag;
    int pos = (tc->u + g->Q - age + n->off[g->sd]) % g->Q; /* written age - d copies ago */
    long long inplane = tbs_inplane_offset(g, n->off);
    if (inplane == 0)
        return tbs_queue(ctx, g, n->field, queue, pos);
    KExpr *ring = queue < 0 ? k_varf(b, "tbso%d", n->field) : k_varf(b, "tbs%d_%d", n->field, queue);
    if (g->map && !tc->plain) { /* its source's column: perhaps another thread's */
        int off[3] = {n->off[0], g->dims == 3 ? n->off[1] : 0, 0};
        return k_index(b, ring, k_plus(b, k_var(b, ring_column(ctx, g, off)), pos * g->plane));
    }
    KExpr *own = tbs_own_register(ctx, g, n->off, n->field, queue, pos);
    if (own)
        return own;
    return k_index(b, ring, k_plus(b, tbs_var(ctx, g, "lcol"), pos * g->plane + inplane));
}

/* An intermediate step's value of a point stays in the thread: w<f>[0], copied to r<f> once
 * every value is computed. (The one-element array is how the text before the kernel
 * representation had it, and nvcc numbers registers by it: assigning r<f> directly, or through a
 * const, swapped two registers in the PTX of some two-field steps.) */
static void keep_value(CgCtx *ctx, KBlock *out, int w, KExpr *array, KExpr *value)
{
    (void)array;
    Kb *b = &ctx->kb;
    int f = tb_stored_field(ctx->prog, ctx->stage, w);
    const char *name = arena_printf(ctx->arena, "w%d", f);
    if (tb_loads(ctx, f)) {
        k_push(b, out, k_assign(b, k_index(b, k_var(b, name), k_int(b, 0)), value));
        return;
    }
    k_let(b, out, ctx->T, name, value); /* a field the step does not read: only its last value counts */
    tb_may_go_unused(ctx, out, name);
}

/* Step t+K-1 of three-level field f at the plane step K computes: step K's input, from the
 * centre of step K-1's queue. */
static KExpr *queue_older(CgCtx *ctx, int f)
{
    const TbsCtx *tc = (TbsCtx *)ctx;
    return tbs_queue(ctx, tc->g, f, tc->g->K - 1, (tc->u + tc->g->Q - tc->g->Lag) % tc->g->Q);
}

static void last_store(CgCtx *ctx, KBlock *out, int w, KExpr *array, KExpr *value)
{
    tb_store_last(ctx, out, w, array, value, queue_older);
}

/* ---- clamp and mirror (TB_MAP): halo columns and planes copy the interior ---- */


/* rc_*: for column g->col, the place in the tile of the column a read at each in-plane offset
 * takes (a halo column's source). */
static void ring_columns(CgCtx *ctx, KBlock *out, const TbsGeom *g, BoundaryKind bc)
{
    Kb *b = &ctx->kb;
    const IrStage *st = &ctx->prog->stages[ctx->stage];
    const char **done = arena_alloc(ctx->arena, sizeof *done * (size_t)(st->nnodes + 1));
    int ndone = 0;
    if (g->col == 0)
        k_push(b, out, k_comment(b, "rc_*: the tile's column a read at an in-plane offset takes, a halo column's source"));
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        int off[3] = {n->off[0], g->dims == 3 ? n->off[1] : 0, 0}, seen = 0;
        if (n->op != N_READ || !is_state(ctx->prog, n->field) || tbs_inplane_offset(g, n->off) == 0)
            continue;
        const char *name = ring_column(ctx, g, off);
        for (int j = 0; j < ndone; j++)
            seen |= strcmp(done[j], name) == 0;
        if (seen)
            continue;
        done[ndone++] = name;
        KExpr *place = NULL;
        for (int d = g->dims == 3 ? 1 : 0; d >= 0; d--) {
            KExpr *v = tbs_coord(ctx, g, d), *t = tbs_place(ctx, g, d);
            KExpr *from = g->fixups ? tbs_var(ctx, g, "src_i") : v; /* halo_fixups: around the source */
            KExpr *src = tb_source(ctx, out, bc, k_plus(b, from, off[d]), k_varf(b, "n%d", d),
                                   0, arena_printf(ctx->arena, "%s_%c", name, "xy"[d]));
            t = k_add(b, t, k_sub(b, src, v));
            t = k_call(b, "min", 2, k_call(b, "max", 2, t, k_int(b, 0)), k_int(b, g->E[d] - 1));
            place = place ? k_add(b, k_mul(b, place, k_int(b, g->E[d])), t) : t;
        }
        if (g->dims == 2 && g->C > 1) /* a place of the tile, then its slot in the transposed ring */
            place = tbs_place_slot(b, g, k_let(b, out, "int", arena_printf(ctx->arena, "%s_t", name), place));
        k_let(b, out, "int", name, place);
    }
}

/* Step s of copy u of column g->col computed again as its source's, from the sources' slots
 * (rc_*), and kept in the queue and ring where the column is a halo one (halo_fixups). */
static void halo_fixup(TbsCtx *tc, KBlock *out, int u, int s)
{
    CgCtx *ctx = &tc->base;
    const TbsGeom *g = tc->g;
    Kb *b = &ctx->kb;
    KStmt *scope = k_scope(b);
    KBlock *body = &scope->body;
    k_let(b, body, "int", "ps", k_sub(b, k_var(b, "p0"), k_int(b, s * g->Lag)));
    k_let(b, body, "long long", "idx", tbs_plane_index(ctx, g, s, 0));
    tb_may_go_unused(ctx, body, "idx");
    tc->u = u;
    tc->from = s - 1;
    for (int f = 0; f < ctx->prog->nfields; f++)
        if (tb_loads(ctx, f))
            k_push(b, body, k_array(b, 0, ctx->T, arena_printf(ctx->arena, "w%d", f), 1));
    ctx->kstore = keep_value;
    cg_point(ctx, body);
    ctx->kstore = NULL;
    KExpr *halo = k_un(b, KO_NOT, tbs_var(ctx, g, "col_interior"));
    for (int f = 0; f < ctx->prog->nfields; f++) {
        if (!tb_loads(ctx, f))
            continue;
        KExpr *q = tbs_queue(ctx, g, f, s, u), *w = k_index(b, k_varf(b, "w%d", f), k_int(b, 0));
        k_push(b, body, k_assign(b, q, k_select(b, halo, w, q)));
        k_push(b, body, k_assign(b, tbs_ring_at(ctx, g, f, s, (long long)u * g->plane), q));
    }
    k_push(b, out, scope);
}

/* TbsGeom.fixups (2D, C columns a thread, clamp or mirror): the fast plane loop reads as under a
 * fixed edge (own registers, ring slots beside its own), so every column must hold its point's
 * value, a halo column its source's. At the end of copy u, a thread that holds a halo column
 * within H of the grid (those a column inside reads) computes step s's point of its halo columns
 * again as their sources', from the sources' neighbourhoods (rc_*), steps 1 .. K-1 in turn, and
 * keeps them in the columns' queues and rings in place of the step's values: in-plane reads are of
 * planes a copy old or older, so no column reads them before. The checked loop reads the sources'
 * slots throughout. The blocks at the x faces, the only ones whose threads do this, are numbered
 * first (k_block_faces_first). H200, 2026-11-28, star2d1r's clamp, two columns, against its fixed
 * edge (docs/performance.md, "Two columns under clamp and mirror"): a select per read between a
 * register and the source's slot (a branch around each shared load) 0.55; the face blocks in a
 * copy of the loop that reads the sources' slots, 0.70; these fix-ups 0.66, and 0.80 with the
 * face blocks first. */
static void halo_fixups(TbsCtx *tc, KBlock *copy, int u)
{
    CgCtx *ctx = &tc->base;
    const TbsGeom *g = tc->g;
    Kb *b = &ctx->kb;
    TbsGeom *cols = tbs_columns(ctx, g);
    /* the halo columns another column reads: within H of the grid */
    KExpr *first = tbs_coord(ctx, &cols[0], 0), *last = k_plus(b, first, g->C - 1), *n = k_var(b, "n0");
    KExpr *low = k_and(b, k_bin(b, KO_LT, first, k_int(b, 0)), k_bin(b, KO_GE, last, k_int(b, -g->H[0])));
    KExpr *high = k_and(b, k_bin(b, KO_GE, last, n), k_bin(b, KO_LT, first, k_plus(b, n, g->H[0])));
    KStmt *fix = k_if(b, k_or(b, low, high));
    k_push(b, copy, k_comment(b, "a halo column: its steps again as its source's (halo_fixups)"));
    k_push(b, copy, fix);
    tc->plain = 0;
    for (int s = 1; s < g->K; s++) {
        for (int c = 0; c < g->C; c++) {
            tc->g = &cols[c];
            halo_fixup(tc, &fix->body, u, s);
        }
    }
    tc->g = g;
    tc->plain = 1;
}

/* Step s < K of copy u: the point where it is interior and its in-plane neighbours are in the
 * tile, else step s-1's value passed through; then the value into step s's queue and ring. */
static void inner_step(TbsCtx *tc, KBlock *out, int u, int s, int all_in)
{
    CgCtx *ctx = &tc->base;
    const IrProgram *p = ctx->prog;
    const TbsGeom *g = tc->g;
    Kb *b = &ctx->kb;
    BoundaryKind bc = BC_FIXED;
    TbEdge edge = cg_temporal_edge(p, &bc);
    KExpr *interior = edge == TB_WRAP ? k_var(b, "true") : tbs_var(ctx, g, "col_interior");
    KExpr *ps = k_var(b, "ps"), *n = k_var(b, g->sd == 1 ? "n1" : "n2");
    /* TB_MAP computes the halo planes too: those before 0 are overwritten later, those past the
     * end replaced by high_planes (a plane check here cost 7 registers on the H100: 64 -> 71) */
    if (!all_in && edge == TB_HOLD)
        interior = k_and(b, k_and(b, interior, k_bin(b, KO_GE, ps, k_int(b, 0))), k_bin(b, KO_LT, ps, n));
    interior = k_let(b, out, "bool", "interior", interior);
    int centre = (u + g->Q - g->Lag) % g->Q;
    for (int f = 0; f < p->nfields; f++) { /* step s-1's value, passed through where not computed */
        if (!tb_loads(ctx, f))
            continue;
        KExpr *before = tbs_queue(ctx, g, f, s - 1, centre);
        k_push(b, out, k_decl(b, 0, ctx->T, arena_printf(ctx->arena, "r%d", f), before));
    }
    /* select=on: computed everywhere (an edge column reads the padding or its neighbour's
     * slots), kept where computed; else a branch around the point */
    KExpr *computed = k_and(b, interior, tbs_var(ctx, g, "col_inner"));
    KStmt *compute = g->select ? k_scope(b) : k_if(b, computed);
    for (int f = 0; f < p->nfields; f++)
        if (tb_loads(ctx, f))
            k_push(b, &compute->body, k_array(b, 0, ctx->T, arena_printf(ctx->arena, "w%d", f), 1));
    ctx->kstore = keep_value;
    cg_point(ctx, &compute->body);
    ctx->kstore = NULL;
    for (int f = 0; f < p->nfields; f++) {
        if (!tb_loads(ctx, f))
            continue;
        KExpr *w = k_index(b, k_varf(b, "w%d", f), k_int(b, 0)), *r = k_varf(b, "r%d", f);
        k_push(b, &compute->body, k_assign(b, r, g->select ? k_select(b, computed, w, r) : w));
    }
    k_push(b, out, compute);
    if (!all_in && edge == TB_MAP)
        tbs_edge_high(ctx, out, g, s);
    for (int f = 0; f < p->nfields; f++) {
        if (!tb_loads(ctx, f))
            continue;
        KExpr *r = k_varf(b, "r%d", f);
        k_push(b, out, k_assign(b, tbs_queue(ctx, g, f, s, u), r));
        if (tbs_ring_read(g))
            k_push(b, out, k_assign(b, tbs_ring_at(ctx, g, f, s, (long long)u * g->plane), r));
    }
    if (!all_in && edge == TB_MAP)
        tbs_edge_low_now(ctx, out, g, u, s, bc);
}

/* Step s (1..K) of copy u: computes plane p0 - s*Lag from step s-1's queue. all_in: every plane
 * the loop computes lies inside the grid along the axis (the loop's fast copy), so only the
 * column decides whether a point is interior. */
static void step(TbsCtx *tc, KBlock *out, int u, int s, int all_in)
{
    CgCtx *ctx = &tc->base;
    const TbsGeom *g = tc->g;
    Kb *b = &ctx->kb;
    KStmt *scope = k_scope(b);
    KBlock *body = &scope->body;
    k_push(b, body, k_comment(b, arena_printf(ctx->arena, "step %d: plane p0 - %d", s, s * g->Lag)));
    k_let(b, body, "int", "ps", k_sub(b, k_var(b, "p0"), k_int(b, s * g->Lag)));
    k_let(b, body, "long long", "idx", tbs_plane_index(ctx, g, s, all_in));
    tb_may_go_unused(ctx, body, "idx"); /* only coef fields and the last step use it */
    tc->u = u;
    tc->from = s - 1;
    if (s == g->K) { /* to the level +1 buffer (three levels: +1 and +2) */
        KStmt *store = k_if(b, tbs_output_plane(ctx, g));
        ctx->kstore = tb_any_three_levels(ctx->prog) ? last_store : NULL;
        cg_point(ctx, &store->body);
        ctx->kstore = NULL;
        k_push(b, body, store);
    } else {
        inner_step(tc, body, u, s, all_in);
    }
    k_push(b, out, scope);
}

/* The plane loop, unrolled Q times: fast (all_in) or checked. In each copy every step is
 * built once per column of the thread, in a scope of its own (tc->g the column's geometry). */
static void plane_loop(TbsCtx *tc, KBlock *out, int all_in)
{
    CgCtx *ctx = &tc->base;
    const TbsGeom *g = tc->g;
    TbsGeom *cols = tbs_columns(ctx, g);
    BoundaryKind bc = BC_FIXED;
    int edges = !all_in && cg_temporal_edge(ctx->prog, &bc) == TB_MAP && g->K > 1;
    KStmt *loop = tbs_plane_loop(ctx, out, g);
    for (int u = 0; u < g->Q; u++) {
        KBlock *copy = tbs_copy(ctx, loop, g, u, all_in && tbs_wraps(ctx));
        if (edges)
            tbs_edge_high_sources(ctx, copy, g, u, bc);
        if (g->step_barriers)
            k_push(&ctx->kb, copy, k_barrier(&ctx->kb));
        for (int s = 1; s <= g->K; s++) {
            for (int c = 0; c < g->C; c++) {
                tc->g = &cols[c];
                step(tc, copy, u, s, all_in);
            }
            tc->g = g;
            if (g->step_barriers && s < g->K) /* after the plane written to step s's ring */
                k_push(&ctx->kb, copy, k_barrier(&ctx->kb));
        }
        if (edges)
            tbs_edge_low_late(ctx, copy, g, u, bc);
        if (tc->plain)
            halo_fixups(tc, copy, u);
        if (!g->step_barriers) /* the copy's only barrier */
            k_push(&ctx->kb, copy, k_barrier(&ctx->kb));
    }
}

static const char *describe(CgCtx *ctx, int stage, const TbsGeom *g)
{
    return arena_printf(ctx->arena,
                        "stage %d: temporal blocking with streaming along %c, %d steps per launch. In-plane "
                        "tile %dx%d, output %dx%d; %d output planes per block plus %d at each end; %d-plane "
                        "queues per step (registers + shared ring), a lag of %d plane%s per step.%s",
                        stage, "xyz"[g->sd], g->K, g->E[0], g->dims >= 3 ? g->E[1] : 1, g->O[0],
                        g->dims >= 3 ? g->O[1] : 1, g->SB, g->K * g->R, g->Q, g->Lag, g->Lag == 1 ? "" : "s",
                        g->C > 1 ? arena_printf(ctx->arena, " %d columns per thread, adjacent along %c.", g->C,
                                                "xyz"[g->ca]) : "");
}

KKernel *tbs_build_stream(CgCtx *ctx, int stage, const char *name, const CgArgs *args, const TbsGeom *g)
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    KKernel *k = tbs_kernel(ctx, name, args, g, describe(ctx, stage, g));
    KBlock *out = &k->body;
    BoundaryKind bc = BC_FIXED;
    TbsGeom *cols = tbs_columns(ctx, g);
    for (int c = 0; c < g->C && cg_temporal_edge(p, &bc) == TB_MAP; c++)
        ring_columns(ctx, out, &cols[c], bc);
    for (int f = 0; f < p->nfields; f++) {
        for (int c = 0; c < g->C && tb_loads(ctx, f); c++) {
            tbs_queue_registers(ctx, out, &cols[c], f);
            k_push(b, out, k_decl(b, 0, ctx->T, tbs_name(ctx, &cols[c], arena_printf(ctx->arena, "nx%d", f)), NULL));
            if (tb_three_levels(p, f))
                k_push(b, out, k_decl(b, 0, ctx->T, tbs_name(ctx, &cols[c], arena_printf(ctx->arena, "nxo%d", f)), NULL));
        }
    }
    tbs_load(ctx, out, g, k_var(b, "zload"), 0);
    TbsCtx tc = {*ctx, g, 0, 0, 0};
    tc.base.stage = stage;
    tc.base.kread = queue_read;
    tc.base.kcoord = queue_coord;
    tc.base.kidx = k_var(b, "idx");
    tc.base.prog = cg_fast_arith(p, stage, ctx->arena);
    /* In 2D, two copies of the plane loop: one for a chunk whose every computed plane lies inside
     * the grid along the axis (all but the first and last chunks), without the per-step plane
     * check, and one for the chunks at the ends. H100, 2026-11-23, 1000 steps, same run: j2d5pt
     * 1333 -> 1408 GStencil/s (`tb=256x1,stream=y,sb=256,tblock=12`), star2d2r 748 -> 767,
     * j2d9pt 731 -> 749, star2d1r 1410 -> 1393. In 3D the second copy cost star3d1r 478 -> 379
     * (`tb=32x32x1,stream=z,sb=128,tblock=3`: half its chunks touch an end of a 512 axis, and a
     * 1024-thread block has 64 registers per thread), so 3D keeps the checked loop alone. */
    if (g->dims == 2) {
        /* The fast loop takes each step's plane index as it is; where fused steps wrap or
         * reflect it also loads every plane as it is, so its chunks' last, prefetched plane
         * (zstop + K*Lag, tbs_copy) lies inside the grid too. H200, 2026-11-29, a symmetric
         * 5-point star under clamp, `tb=128x1,stream=y,sb=256,bm=2x1,tblock=16,select=on,
         * maxreg=128`, NAME_run: 1689 -> 1723 GStencil/s with the index as it is (fixed 1947);
         * the loads as they are moved the two-column kernels by -10% to +13% by configuration
         * and the 15 s tunings by 0 to +2% (docs/performance.md, "Clamp and mirror as
         * reflections"). */
        int L1 = (g->K - 1) * g->Lag, L1_loads = tbs_wraps(ctx) ? g->K * g->Lag + 1 : L1;
        KExpr *below = k_bin(b, KO_GE, k_sub(b, k_var(b, "zload"), k_int(b, L1)), k_int(b, 0));
        KExpr *above = k_bin(b, KO_LE, k_add(b, k_var(b, "zstop"), k_int(b, L1_loads)), k_var(b, "n1"));
        k_push(b, out, k_comment(b, "all_in: no plane check"));
        KStmt *split = k_if(b, k_let(b, out, "bool", "all_in", k_and(b, below, above)));
        tc.plain = g->fixups;
        plane_loop(&tc, &split->body, 1);
        tc.plain = 0;
        plane_loop(&tc, &split->els, 0);
        k_push(b, out, split);
    } else {
        plane_loop(&tc, out, 0);
    }
    return k;
}
