/* The temporal pass: temporal blocking by overlapped (redundant-halo) tiling in shared memory.
 *
 * One launch advances K = tblock time steps. A block loads the extended tile E of every state
 * field (its output tile plus K*R points on each side, R = the program's halo on that axis)
 * into shared memory, computes K steps there, ping-ponging between two buffers per field, the
 * valid region shrinking by R per step, and writes the output tile O = E - 2*K*R of step K to
 * the level +1 buffer. Consecutive blocks' output tiles abut; their extended tiles overlap (the
 * redundant halo).
 *
 * Thread mapping (opt_temporal.h): one thread per point of the extended tile along every axis
 * but the last, where each thread covers M points strided by the block (M = tbx/tby in 2D,
 * tby/tbz in 3D, at least 1: a square tile, or a square y-z cross-section), so E = tb with the
 * last axis times M. Several points per thread keep several loads in flight per thread; with
 * one point per thread an SM holds too few bytes in flight to approach the memory bandwidth.
 *
 * Boundary semantics are the interpreter's for `boundary fixed` (pass_temporal.c refuses the
 * others): only interior points (global coordinates in [0, n)) are computed; a halo point keeps
 * the value loaded, in both buffers, through every fused step. Coef fields are read-only and are
 * read from global memory (through the read-only cache), so they cost no shared memory.
 *
 * The point update is kir_point.c's: reads go through the read hook below, from the step's input
 * buffer tb_in<f>; an intermediate step's stores go to its output buffer tb_out<f> in shared
 * memory (the store hook), the last step's to the level +1 buffer. Every value is declared as
 * the text before the kernel representation declared it, with (void)x where some programs leave
 * it unused: where nvcc sees a value declared changes its PTX (registers numbered otherwise).
 *
 * This file also chooses the pass's kernel: with stream=on the streaming kernels of
 * opt_temporal_stream.c and opt_temporal_retime.c take the place of the overlapped tile. The
 * kernel goes to the plan's module (the tests walk it there) and its source. */
#include "opt_temporal_build.h"

#include <stdio.h>

int cg_temporal_wants(const Config *c) { return c->v[P_TB] > 1; }

/* The builder's context: CgCtx first, so the hooks can get back to the geometry and to how the
 * steps treat the points outside the grid (edge, of the state fields' condition bc). */
typedef struct {
    CgCtx base;
    const TbGeom *g;
    TbEdge edge;
    BoundaryKind bc;
    KExpr *step; /* the fused step being built: 1 .. K */
} TbCtx;

static const char *const thread_var[3] = {"tx", "ty", "tz"};
static const char *const virtual_var[3] = {"vx", "vy", "vz"};
static const char *const axis_var[3] = {"i", "j", "k"};

static int is_state(const IrProgram *p, int f) { return p->fields[f].role == ROLE_STATE; }

/* State fields from the step's input buffer in shared memory, coef fields from global memory at
 * the point's global index; where a halo point is computed as another point (TB_WRAP, TB_MAP),
 * at that point's index (vidx), and under TB_MAP around its place in the tile (vlidx). */
static KExpr *tile_read(CgCtx *ctx, const IrNode *n)
{
    const TbCtx *tc = (TbCtx *)ctx;
    const TbGeom *g = tc->g;
    Kb *b = &ctx->kb;
    if (!is_state(ctx->prog, n->field))
        return cg_global_read(ctx, n, k_var(b, tc->edge == TB_HOLD ? "idx" : "vidx"));
    long long off = n->off[0] + (long long)n->off[1] * g->E[0] + (long long)n->off[2] * g->E[0] * g->E[1];
    KExpr *at = k_var(b, tc->edge == TB_MAP ? "vlidx" : "lidx");
    return k_index(b, k_varf(b, n->level < 0 ? "tb_prev%d" : "tb_in%d", n->field), k_plus(b, at, off));
}

/* The built-ins' coordinates (CgCtx.kcoord): the point's i, j, k (src_i.. where halo points are
 * computed); fused step `step` (1 .. K)
 * has step - 1 steps of the launch before it. */
static KExpr *tile_coord(CgCtx *ctx, int axis)
{
    static const char *const source_var[3] = {"src_i", "src_j", "src_k"};
    if (axis != CG_FUSED_STEP) /* a halo point computed as its source has the source's */
        return k_var(&ctx->kb, ((TbCtx *)ctx)->edge == TB_HOLD ? axis_var[axis] : source_var[axis]);
    KExpr *step = ((TbCtx *)ctx)->step;
    return step->kind == KE_INT ? k_int(&ctx->kb, step->ival - 1) : k_plus(&ctx->kb, step, -1);
}

/* An intermediate step's stores: to the step's output buffer, at the point's place in the tile. */
static void tile_store(CgCtx *ctx, KBlock *out, int w, KExpr *array, KExpr *value)
{
    (void)array;
    Kb *b = &ctx->kb;
    KExpr *buffer = k_varf(b, "tb_out%d", tb_stored_field(ctx->prog, ctx->stage, w));
    k_push(b, out, k_assign(b, k_index(b, buffer, k_var(b, "lidx")), value));
}

/* Whether this thread's point is computed at fused step `step`: inside the step's valid region
 * (step*R from the tile's edges), and interior where the halo holds (TB_HOLD, and the last step,
 * which stores interior points only). Under TB_MAP the place computed (vx..) decides. */
static KExpr *valid(const TbCtx *tc, KExpr *step, int last)
{
    const TbGeom *g = tc->g;
    Kb *b = &((CgCtx *)tc)->kb;
    int hold = tc->edge == TB_HOLD || last;
    KExpr *ok = hold ? k_var(b, "interior") : NULL;
    for (int d = 0; d < g->dims; d++) {
        if (!g->R[d])
            continue;
        const char *t = !hold && tc->edge == TB_MAP ? virtual_var[d] : thread_var[d];
        KExpr *from = k_sub(b, k_var(b, t), k_mul(b, step, k_int(b, g->R[d])));
        KExpr *width = k_sub(b, k_int(b, g->E[d]), k_mul(b, step, k_int(b, 2 * g->R[d])));
        ok = k_and(b, ok, k_bin(b, KO_LT, k_cast(b, "unsigned", from), k_cast(b, "unsigned", width)));
    }
    return ok ? ok : k_var(b, "true");
}

/* `interior` (or, loading, `in_buffer`: inside the grid or its halo) of the point at i, j, k */
static KExpr *inside(Kb *b, const TbGeom *g, int with_halo)
{
    KExpr *all = NULL;
    for (int d = 0; d < g->dims; d++) {
        KExpr *v = k_var(b, axis_var[d]), *n = k_varf(b, "n%d", d);
        KExpr *lo = k_int(b, with_halo ? -g->R[d] : 0), *hi = with_halo ? k_add(b, n, k_int(b, g->R[d])) : n;
        all = k_and(b, k_and(b, all, k_bin(b, KO_GE, v, lo)), k_bin(b, KO_LT, v, hi));
    }
    return all;
}

/* The place in a padded buffer of global coordinates c: sum of (c_d + R_d) * s_d. */
static KExpr *global_index(Kb *b, const TbGeom *g, KExpr *const c[3])
{
    KExpr *idx = NULL;
    for (int d = g->dims - 1; d >= 1; d--) {
        KExpr *term = k_mul(b, k_cast(b, "long long", k_add(b, c[d], k_int(b, g->R[d]))), k_varf(b, "s%d", d));
        idx = idx ? k_add(b, idx, term) : term;
    }
    KExpr *x = k_add(b, c[0], k_int(b, g->R[0]));
    return idx ? k_add(b, idx, x) : x;
}

/* The place in the tile of tile coordinates t. */
static KExpr *tile_index(Kb *b, const TbGeom *g, KExpr *const t[3])
{
    if (g->dims >= 3)
        return k_add(b, k_mul(b, k_add(b, k_mul(b, t[2], k_int(b, g->E[1])), t[1]), k_int(b, g->E[0])), t[0]);
    if (g->dims >= 2)
        return k_add(b, k_mul(b, t[1], k_int(b, g->E[0])), t[0]);
    return t[0];
}

/* Where a halo point's value comes from (TB_WRAP, TB_MAP): the source coordinates (exact when
 * loading), their global index (loading: sidx, else vidx) and, stepping under TB_MAP, the
 * source's place in the tile vx.. and vlidx. */
static void source_vars(TbCtx *tc, KBlock *out, KExpr *const t[3], KExpr *const c[3], int loading)
{
    CgCtx *ctx = &tc->base;
    const TbGeom *g = tc->g;
    Kb *b = &ctx->kb;
    KExpr *src[3] = {0}, *vt[3] = {0};
    for (int d = 0; d < g->dims; d++) {
        const char *name = arena_printf(ctx->arena, "src_%s", axis_var[d]);
        /* exact where far halo points may be computed: loads, and coef reads under TB_WRAP */
        src[d] = tb_source(ctx, out, tc->bc, c[d], k_varf(b, "n%d", d), loading || tc->edge == TB_WRAP, name);
        vt[d] = t[d];
        if (!loading && tc->edge == TB_MAP)
            vt[d] = k_let(b, out, "int", virtual_var[d], k_add(b, t[d], k_sub(b, src[d], c[d])));
    }
    const char *index = loading ? "sidx" : "vidx"; /* unused where the step reads no state field */
    k_let(b, out, "long long", index, global_index(b, g, src));
    tb_may_go_unused(ctx, out, index);
    if (loading || tc->edge != TB_MAP)
        return;
    k_let(b, out, "int", "vlidx", tile_index(b, g, vt));
    tb_may_go_unused(ctx, out, "vlidx");
}

/* The coordinates of the thread's point number m (of M along the last axis): tx.., i.., whether
 * the point is interior (loading: and whether in the buffer), its global index idx and its place
 * in the tile lidx; where halo points are computed, where their values come from. */
static void point_vars(TbCtx *tc, KBlock *out, int loading)
{
    CgCtx *ctx = &tc->base;
    const TbGeom *g = tc->g;
    Kb *b = &ctx->kb;
    KExpr *t[3] = {0}, *c[3] = {0};
    for (int d = 0; d < g->dims; d++) {
        KExpr *tid = k_cast(b, "int", k_thread(b, d));
        if (d == g->L && g->M > 1)
            tid = k_add(b, tid, k_mul(b, k_var(b, "m"), k_int(b, g->B[d])));
        t[d] = k_let(b, out, "int", thread_var[d], tid);
        KExpr *origin = k_cast(b, "int", k_mul(b, k_block(b, d), k_uint(b, g->O[d])));
        c[d] = k_let(b, out, "int", axis_var[d], k_sub(b, k_add(b, origin, t[d]), k_int(b, g->K * g->R[d])));
    }
    k_let(b, out, "bool", "interior", inside(b, g, 0));
    if (loading && tc->edge == TB_HOLD)
        k_let(b, out, "bool", "in_buffer", inside(b, g, 1));
    k_let(b, out, "long long", "idx", global_index(b, g, c));
    k_let(b, out, "int", "lidx", tile_index(b, g, t));
    tb_may_go_unused(ctx, out, "idx");
    tb_may_go_unused(ctx, out, "interior");
    if (tc->edge == TB_HOLD)
        return;
    tb_may_go_unused(ctx, out, "lidx"); /* the last step reads around vlidx, stores at idx */
    source_vars(tc, out, t, c, loading);
}

/* `#pragma unroll` over the thread's M points, pushed onto out; returns the loop's body. */
static KBlock *points_loop(Kb *b, KBlock *out, const TbGeom *g)
{
    KStmt *loop = k_for(b, "m", k_int(b, 0), k_int(b, g->M), NULL, -1);
    k_push(b, out, loop);
    return &loop->body;
}

/* `const T name = ...;` into out: the point's value of field f's level `level` in global
 * memory: where the halo holds, the buffer's value inside it and 0 beyond; else its source's. */
static KExpr *load_point(TbCtx *tc, KBlock *out, int f, int level, const char *name)
{
    CgCtx *ctx = &tc->base;
    Kb *b = &ctx->kb;
    if (tc->edge != TB_HOLD)
        return k_let(b, out, ctx->T, name, k_index(b, cg_buf(ctx, f, level), k_var(b, "sidx")));
    KExpr *load = k_index(b, cg_buf(ctx, f, level), k_var(b, "idx"));
    return k_let(b, out, ctx->T, name, k_select(b, k_var(b, "in_buffer"), load, tb_zero(ctx)));
}

/* The extended tile of every state field the step reads into both its buffers (a held halo
 * stays in both); a three-level field's level t-1 into its third buffer. */
static void load_tile(TbCtx *tc, KBlock *out)
{
    CgCtx *ctx = &tc->base;
    const IrProgram *p = ctx->prog;
    const TbGeom *g = tc->g;
    Kb *b = &ctx->kb;
    KBlock *body = points_loop(b, out, g);
    point_vars(tc, body, 1);
    KExpr *lidx = k_var(b, "lidx");
    for (int f = 0; f < p->nfields; f++) {
        if (!tb_loads(ctx, f))
            continue;
        KStmt *scope = k_scope(b);
        KExpr *v = load_point(tc, &scope->body, f, 0, "v");
        KExpr *buf = k_varf(b, "tb_buf%d", f);
        k_push(b, &scope->body, k_assign(b, k_index(b, buf, lidx), v));
        k_push(b, &scope->body, k_assign(b, k_index(b, buf, k_add(b, lidx, k_int(b, g->elems))), v));
        if (tb_three_levels(p, f)) {
            KExpr *older = load_point(tc, &scope->body, f, -1, "v_older");
            k_push(b, &scope->body, k_assign(b, k_index(b, buf, k_add(b, lidx, k_int(b, 2 * g->elems))), older));
        }
        k_push(b, body, scope);
    }
    k_push(b, out, k_barrier(b));
}

/* One fused step over the thread's points: the buffers of step `step` (tb_in<f>, and for an
 * intermediate step tb_out<f>, from `buffers`), then the point where it is valid. */
static void step_points(TbCtx *tc, KBlock *out, KExpr *step, int last, void (*buffers)(TbCtx *, KBlock *, int))
{
    CgCtx *ctx = &tc->base;
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    KBlock *body = points_loop(b, out, tc->g);
    point_vars(tc, body, 0);
    tc->step = step;
    KStmt *guard = k_if(b, valid(tc, step, last));
    for (int f = 0; f < p->nfields; f++)
        if (is_state(p, f))
            buffers(tc, &guard->body, f);
    cg_point(ctx, &guard->body);
    k_push(b, body, guard);
}

/* `const T *const tb_prev<f> = buffer;`: a three-level field's level t-1 of the step. */
static void older_buffer(TbCtx *tc, KBlock *out, int f, KExpr *buffer)
{
    const char *name = arena_printf(tc->base.arena, "tb_prev%d", f);
    tb_pointer(&tc->base, out, KQ_CONST, name, buffer);
    tb_may_go_unused(&tc->base, out, name);
}

/* tb_buf<f> + ((step + shift) % 3) * elems: the buffer of step + shift's level of a three-level
 * field, whose step t+j lies in buffer j mod 3 (t-1 in buffer 2). */
static KExpr *level_buffer(TbCtx *tc, int f, KExpr *step, int shift)
{
    Kb *b = &tc->base.kb;
    KExpr *which = k_bin(b, KO_MOD, k_plus(b, step, shift), k_int(b, 3));
    return k_add(b, k_varf(b, "tb_buf%d", f), k_mul(b, which, k_int(b, tc->g->elems)));
}

/* Steps 1 .. K-1: step s reads buffer (s-1)&1 and writes buffer s&1 (three levels: reads
 * buffers (s-1)%3 and (s+1)%3, writes buffer s%3). */
static void inner_buffers(TbCtx *tc, KBlock *out, int f)
{
    Kb *b = &tc->base.kb;
    KExpr *step = k_var(b, "step"), *buf = k_varf(b, "tb_buf%d", f), *elems = k_int(b, tc->g->elems);
    KExpr *in = k_add(b, buf, k_mul(b, k_bin(b, KO_BAND, k_sub(b, step, k_int(b, 1)), k_int(b, 1)), elems));
    KExpr *to = k_add(b, buf, k_mul(b, k_bin(b, KO_BAND, step, k_int(b, 1)), elems));
    int three = tb_three_levels(tc->base.prog, f);
    if (three) {
        in = level_buffer(tc, f, step, -1);
        to = level_buffer(tc, f, step, 0);
    }
    const char *name = arena_printf(tc->base.arena, "tb_in%d", f);
    tb_pointer(&tc->base, out, KQ_CONST, name, in);
    tb_pointer(&tc->base, out, 0, arena_printf(tc->base.arena, "tb_out%d", f), to);
    tb_may_go_unused(&tc->base, out, name); /* a state field the step does not read */
    if (three)
        older_buffer(tc, out, f, level_buffer(tc, f, step, 1));
}

/* Step K: from buffer (K-1)&1 (three levels: (K-1)%3, and (K+1)%3 for t-1) to the level +1
 * buffer in global memory. */
static void last_buffers(TbCtx *tc, KBlock *out, int f)
{
    Kb *b = &tc->base.kb;
    const TbGeom *g = tc->g;
    int three = tb_three_levels(tc->base.prog, f);
    long long in_at = three ? (g->K - 1) % 3 * g->elems : ((g->K - 1) & 1) * g->elems;
    KExpr *in = k_add(b, k_varf(b, "tb_buf%d", f), k_int(b, in_at));
    const char *name = arena_printf(tc->base.arena, "tb_in%d", f);
    tb_pointer(&tc->base, out, KQ_CONST, name, in);
    tb_may_go_unused(&tc->base, out, name);
    if (three)
        older_buffer(tc, out, f, k_add(b, k_varf(b, "tb_buf%d", f), k_int(b, (g->K + 1) % 3 * g->elems)));
}

/* Step t+K-1 of three-level field f at the point: step K's input buffer at its place. */
static KExpr *tile_older(CgCtx *ctx, int f)
{
    return k_index(&ctx->kb, k_varf(&ctx->kb, "tb_in%d", f), k_var(&ctx->kb, "lidx"));
}

static void last_store(CgCtx *ctx, KBlock *out, int w, KExpr *array, KExpr *value)
{
    tb_store_last(ctx, out, w, array, value, tile_older);
}

static const char *describe(CgCtx *ctx, int stage, const TbGeom *g)
{
    return arena_printf(ctx->arena,
                        "stage %d: temporal blocking, %d steps per launch. Extended tile %dx%dx%d (%d point%s "
                        "per thread along %c), output tile %dx%dx%d, two shared buffers per state field%s.",
                        stage, g->K, g->E[0], g->E[1], g->E[2], g->M, g->M > 1 ? "s" : "", "xyz"[g->L],
                        g->dims > 0 ? g->O[0] : 1, g->dims > 1 ? g->O[1] : 1, g->dims > 2 ? g->O[2] : 1,
                        tb_any_three_levels(ctx->prog) ? " (three for a three-level field, which stores its last "
                                                      "two steps)" : "");
}

KKernel *tb_build_tile(CgCtx *ctx, int stage, const char *name, const CgArgs *args, const TbGeom *g)
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    KKernel *k = cg_kernel(ctx, name, g->B, args);
    k->comment = describe(ctx, stage, g);
    KExpr *s[3];
    tb_shared_memory(ctx, &k->body);
    cg_strides(ctx, &k->body, s);
    long long slot = 0; /* field f's buffers at tb_buf<f>, buffer b at + b * elems */
    for (int f = 0; f < p->nfields; f++)
        if (is_state(p, f)) {
            tb_smem_pointer(ctx, &k->body, arena_printf(ctx->arena, "tb_buf%d", f), slot * g->elems);
            slot += tb_three_levels(p, f) ? 3 : 2;
        }
    TbCtx tc = {*ctx, g, cg_temporal_edge(p, NULL), BC_FIXED, NULL};
    cg_temporal_edge(p, &tc.bc);
    tc.base.stage = stage;
    load_tile(&tc, &k->body);
    tc.base.prog = cg_fast_arith(p, stage, ctx->arena);
    tc.base.kread = tile_read;
    tc.base.kstore = tile_store;
    tc.base.kidx = k_var(b, "lidx");
    tc.base.kcoord = tile_coord;
    KStmt *steps = k_for(b, "step", k_int(b, 1), k_int(b, g->K), NULL, 1);
    step_points(&tc, &steps->body, k_var(b, "step"), 0, inner_buffers);
    k_push(b, &steps->body, k_barrier(b));
    k_push(b, &k->body, steps);
    tc.base.kstore = tb_any_three_levels(p) ? last_store : NULL;
    tc.base.kidx = k_var(b, "idx");
    step_points(&tc, &k->body, k_int(b, g->K), 1, last_buffers);
    return k;
}

/* ---- the pass's kernel ---- */

/* The kernel's arguments: args and, for a three-level field, both input levels (the kernels
 * load both, whatever the step reads) and level +2, which step K writes (tb_store_last); into
 * l too. */
static const CgArgs *level_args(CgCtx *ctx, const CgArgs *args, PlanLaunch *l)
{
    const IrProgram *p = ctx->prog;
    if (!tb_any_three_levels(p))
        return args;
    CgArgs *own = arena_alloc(ctx->arena, sizeof *own); /* zeroed */
    for (int i = 0; i < args->nargs; i++)
        cg_args_add(ctx, own, args->args[i], args->writes[i]);
    static const int levels[3] = {2, 0, -1};
    for (int f = 0; f < p->nfields; f++)
        for (int i = 0; i < 3 && tb_three_levels(p, f); i++)
            if (cg_args_find(own, ARG_BUF, f, levels[i], 0) < 0)
                cg_args_add(ctx, own, (PlanArg){ARG_BUF, f, levels[i], 0}, levels[i] > 0);
    l->args = own->args;
    l->nargs = own->nargs;
    return own;
}

static int empty_tile(const int O[3], int dims, int K, char *why, int whylen)
{
    for (int d = 0; d < dims; d++)
        if (O[d] < 1) {
            snprintf(why, (size_t)whylen, "tblock=%d: the output tile along %c is empty", K, "xyz"[d]);
            return 1;
        }
    return 0;
}

/* The stage kernel the configuration asks for, and its launch geometry into l; NULL with a
 * reason in why. */
static KKernel *temporal_kernel(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                                char *why, int whylen)
{
    const IrProgram *p = ctx->prog;
    ctx->stage = stage;
    if (ctx->cfg->v[P_STREAM] == 2) {
        TbsGeom g;
        cg_temporal_stream_geom(p, ctx->cfg, &g);
        if (p->nstages != 1 || p->dims < 2) {
            snprintf(why, (size_t)whylen, "tblock with stream: needs a single-stage step on a 2D or 3D grid");
            return NULL;
        }
        if (empty_tile(g.O, p->dims, g.K, why, whylen) || !cg_temporal_columns_ok(p, ctx->cfg, why, whylen))
            return NULL;
        KKernel *k = g.retime ? tbs_build_retime(ctx, stage, name, args, &g, why, whylen)
                              : tbs_build_stream(ctx, stage, name, level_args(ctx, args, l), &g);
        tb_launch(l, g.B, g.O, g.dims, cg_temporal_stream_smem(p, &g), g.K);
        return k;
    }
    TbGeom g;
    cg_temporal_geom(p, ctx->cfg, &g);
    if (p->nstages != 1) {
        snprintf(why, (size_t)whylen, "tblock: temporal blocking needs a single-stage step");
        return NULL;
    }
    if (empty_tile(g.O, p->dims, g.K, why, whylen))
        return NULL;
    tb_launch(l, g.B, g.O, g.dims, cg_temporal_smem(p, &g), g.K);
    return tb_build_tile(ctx, stage, name, level_args(ctx, args, l), &g);
}

int cg_emit_stage_temporal(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                           char *why, int whylen)
{
    KKernel *k = temporal_kernel(ctx, stage, name, args, l, why, whylen);
    if (!k)
        return -1;
    cg_add_kernel(ctx, k);
    return 0;
}
