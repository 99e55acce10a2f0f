/* The tile pass: kernel emitter. A stage kernel under the tile pass maps each thread to
 * m = m0 x m1 x m2 points (block merging: adjacent; cyclic merging: tb apart; along x with vec
 * and both, runs of vec adjacent points tb x vec apart), so a block covers a tile of tb * m
 * points. With smem on, the block first stages the tile of every field read at
 * non-zero offsets (with its halo) in dynamic shared memory, cooperatively and coalesced along
 * x. A thread whose points are all inside the grid takes the fast path: along the axes whose
 * unroll factor equals the merge factor, its points are enumerated by the generator and every
 * distinct value they read is loaded once into a register (the reuse between neighbouring
 * points of block merging); along the other axes a loop with `#pragma unroll UF` walks the
 * points. A thread at the grid's edge takes the slow path: one point at a time with a bounds
 * check. With cmem on, the stage's constants are read from a __constant__ array. With vec > 1
 * the x tiling starts (halo x mod vec) points before the grid, so that a thread's first point sits
 * on a vector boundary of its row; the fast path then loads each aligned run of vec cached values
 * (same field, level, y and z) with one vector load and stores its vec points with one vector
 * store. It is taken only where the rows and the buffers are aligned for it (checked in the
 * kernel, since the C API takes any grid size and any pointers): elsewhere the slow path runs. */
#include "opt_tile_build.h"

#include <stdio.h>
#include <string.h>

int cg_tile_wants(const Config *c) { return tile_config_on(c); }

typedef struct {
    int field, level, off[3];
} Cached;

/* The builder's context: CgCtx first, so the read hook can get back to the rest. */
typedef struct {
    CgCtx base;
    const TileGeom *g;
    int fast;        /* 1: reads come from the register cache; 0: direct loads at the point */
    int u[3];        /* fast: the point's offset from the pass's base point */
    Cached *cache;
    int ncache, cap;
    int lane;        /* vec fast path: the point's place in its vector (x mod vec) */
    KExpr **warr;    /* vec fast path: each stored write's array, as the store hook saw it */
    KExpr *s[3];     /* the strides */
} TileCtx;

static const char *const axis_local[3] = {"li", "lj", "lk"};
static const char *const axis_global[3] = {"i", "j", "k"};
static const char *const lane_name[4] = {"x", "y", "z", "w"};

static const TileArray *array_of(const TileGeom *g, int field, int level)
{
    for (int a = 0; a < g->narr; a++)
        if (g->arr[a].field == field && g->arr[a].level == level)
            return &g->arr[a];
    return NULL;
}

/* The load of (field, level) at offset off from the point whose local coordinates are li, lj,
 * lk and whose linear index is idx: from its shared array when staged, else global. */
static KExpr *load(TileCtx *tc, int field, int level, const int off[3], KExpr *idx)
{
    Kb *b = &tc->base.kb;
    const TileGeom *g = tc->g;
    const TileArray *t = array_of(g, field, level);
    if (!t || !t->staged) {
        IrNode n = {.op = N_READ, .field = field, .level = level, .off = {off[0], off[1], off[2]}};
        return cg_global_read(&tc->base, &n, idx);
    }
    /* ((lk + c2) * e1 + lj + c1) * e0 + li + c0, for the axes the grid has */
    int d = g->dims - 1;
    KExpr *at = k_plus(b, k_var(b, axis_local[d]), off[d] - t->lo[d]);
    for (d--; d >= 0; d--)
        at = k_plus(b, k_add(b, k_mul(b, at, k_int(b, t->ext[d])), k_var(b, axis_local[d])), off[d] - t->lo[d]);
    return k_index(b, k_varf(b, "sm%d", (int)(t - g->arr)), at);
}

static KExpr *read_value(CgCtx *ctx, const IrNode *n)
{
    TileCtx *tc = (TileCtx *)ctx;
    if (!tc->fast)
        return load(tc, n->field, n->level, n->off, k_var(&ctx->kb, "idx"));
    Cached key = {n->field, n->level, {n->off[0] + tc->u[0], n->off[1] + tc->u[1], n->off[2] + tc->u[2]}};
    int at = 0;
    while (at < tc->ncache && memcmp(&tc->cache[at], &key, sizeof key) != 0)
        at++;
    if (at == tc->ncache)
        *ARENA_PUSH(ctx->arena, tc->cache, tc->ncache, tc->cap) = key;
    return k_varf(&ctx->kb, "r%d", at);
}

/* vec fast path: the point's stores go to w<write>_<lane>, stored as one vector per write once
 * the vector's last point is done (vector_stores). */
static void store_lane(CgCtx *ctx, KBlock *out, int w, KExpr *array, KExpr *value)
{
    TileCtx *tc = (TileCtx *)ctx;
    tc->warr[w] = array;
    k_push(&ctx->kb, out, k_assign(&ctx->kb, k_varf(&ctx->kb, "w%d_%d", w, tc->lane), value));
}

/* idxb + z * s2 + y * s1 + x: the index of the point at offset u from the thread's first point. */
static KExpr *point_index(TileCtx *tc, const int u[3])
{
    Kb *b = &tc->base.kb;
    KExpr *at = k_var(b, "idxb");
    for (int d = 2; d >= 1; d--)
        if (u[d])
            at = k_plus_scaled(b, at, u[d], tc->s[d]);
    return k_plus(b, at, u[0]);
}

static const char *vector_type(TileCtx *tc) { return arena_printf(tc->base.arena, "%s%d", tc->base.T, tc->g->vec); }

/* The vector of the points u[0]-vec+1 .. u[0] (the last one just built), one store per write. */
static void vector_stores(TileCtx *tc, KBlock *out, int nstored)
{
    Kb *b = &tc->base.kb;
    const TileGeom *g = tc->g;
    int first[3] = {tc->u[0] - (g->vec - 1), tc->u[1], tc->u[2]};
    const char *vt = vector_type(tc);
    for (int w = 0; w < nstored; w++) {
        KExpr *lanes[4];
        for (int l = 0; l < g->vec; l++)
            lanes[l] = k_varf(b, "w%d_%d", w, l);
        KExpr *at = k_un(b, KO_ADDR, k_index(b, tc->warr[w], point_index(tc, first)));
        KExpr *dst = k_un(b, KO_DEREF, k_cast(b, arena_printf(tc->base.arena, "%s *", vt), at));
        k_push(b, out, k_assign(b, dst, k_brace(b, vt, lanes, g->vec)));
    }
}

static int floor_mod(int a, int m) { return ((a % m) + m) % m; }

/* The cache entries of an aligned run of vec values of one (field, level, y, z) starting at
 * entry c, into member[]; 0 when c does not start such a run. */
static int vector_run(const TileCtx *tc, const char *done, int c, int member[4])
{
    const Cached *k = &tc->cache[c];
    if (floor_mod(k->off[0], tc->g->vec) != 0)
        return 0;
    for (int l = 0; l < tc->g->vec; l++) {
        Cached want = *k;
        want.off[0] += l;
        member[l] = -1;
        for (int e = 0; e < tc->ncache; e++)
            if (!done[e] && memcmp(&tc->cache[e], &want, sizeof want) == 0)
                member[l] = e;
        if (member[l] < 0)
            return 0;
    }
    return 1;
}

/* Declares the register cache r0, r1, ...: with vec > 1, each aligned run of vec values of the
 * same (field, level, y, z) from one vector load q<k>, the rest one load each. */
static void cache_decls(TileCtx *tc, KBlock *out)
{
    Kb *b = &tc->base.kb;
    const TileGeom *g = tc->g;
    const char *T = tc->base.T;
    char *done = arena_alloc(tc->base.arena, (size_t)tc->ncache + 1);
    int nq = 0, member[4];
    for (int c = 0; g->vec > 1 && c < tc->ncache; c++) {
        if (!vector_run(tc, done, c, member))
            continue;
        const Cached *k = &tc->cache[c];
        const char *vt = vector_type(tc);
        KExpr *at = k_un(b, KO_ADDR, load(tc, k->field, k->level, k->off, k_var(b, "idxb")));
        KExpr *q = k_let(b, out, vt, arena_printf(tc->base.arena, "q%d", nq++),
                         k_un(b, KO_DEREF, k_cast(b, arena_printf(tc->base.arena, "const %s *", vt), at)));
        for (int l = 0; l < g->vec; l++) {
            k_let(b, out, T, arena_printf(tc->base.arena, "r%d", member[l]), k_member(b, q, lane_name[l]));
            done[member[l]] = 1;
        }
    }
    for (int c = 0; c < tc->ncache; c++) {
        const Cached *k = &tc->cache[c];
        if (!done[c])
            k_let(b, out, T, arena_printf(tc->base.arena, "r%d", c), load(tc, k->field, k->level, k->off, k_var(b, "idxb")));
    }
}

static int stored_writes(const IrProgram *p, int stage)
{
    const IrStage *st = &p->stages[stage];
    int n = 0;
    for (int w = 0; w < st->nwrites; w++)
        n += cg_field_stored(p, st->writes[w].field);
    return n;
}

/* Declares li/lj/lk (when shared arrays need them) and i/j/k of the point at loop counters
 * m0..m2 (axes in `looped`): b + m * step, or b + m / bm * step + m % bm. */
static void point_coords(TileCtx *tc, KBlock *out, const int looped[3], int any_staged)
{
    Kb *b = &tc->base.kb;
    const TileGeom *g = tc->g;
    for (int d = 0; d < g->dims; d++) {
        KExpr *o = k_varf(b, "o%d", d), *m = k_varf(b, "m%d", d);
        KExpr *at = any_staged ? k_varf(b, "b%d", d) : k_add(b, o, k_varf(b, "b%d", d));
        if (looped[d] && g->step[d] == 1)
            at = k_add(b, at, m);
        else if (looped[d] && g->bm[d] == 1)
            at = k_add(b, at, k_mul(b, m, k_int(b, g->step[d])));
        else if (looped[d])
            at = k_add(b, k_add(b, at, k_mul(b, k_bin(b, KO_DIV, m, k_int(b, g->bm[d])), k_int(b, g->step[d]))),
                       k_bin(b, KO_MOD, m, k_int(b, g->bm[d])));
        if (any_staged)
            at = k_add(b, o, k_let(b, out, "int", axis_local[d], at));
        k_let(b, out, "int", axis_global[d], at);
    }
}

/* Opens `for` loops over the axes in looped (z outermost); returns the innermost body. */
static KBlock *open_loops(TileCtx *tc, KBlock *out, const int looped[3], int slow)
{
    Kb *b = &tc->base.kb;
    for (int d = 2; d >= 0; d--) {
        if (!looped[d])
            continue;
        KStmt *loop = k_for(b, arena_printf(tc->base.arena, "m%d", d), k_int(b, 0), k_int(b, tc->g->m[d]), NULL,
                            slow ? 1 : tc->g->uf[d]);
        k_push(b, out, loop);
        out = &loop->body;
    }
    return out;
}

/* The built-ins' coordinates (CgCtx.kcoord): i, j, k, plus the fast path's offset of the point
 * from the pass's base point. */
static KExpr *point_coord(CgCtx *ctx, int axis)
{
    TileCtx *tc = (TileCtx *)ctx;
    if (axis == CG_FUSED_STEP)
        return NULL;
    return k_plus(&ctx->kb, k_var(&ctx->kb, axis_global[axis]), tc->fast ? tc->u[axis] : 0);
}

static KExpr *linear_index(TileCtx *tc)
{
    Kb *b = &tc->base.kb;
    KExpr *c[3] = {k_var(b, "i"), k_var(b, "j"), k_var(b, "k")};
    return cg_linear_index(&tc->base, c, tc->s);
}

/* The points of the fast path, into body: their reads fill the register cache. */
static void fast_points(TileCtx *tc, KBlock *body, int nstored)
{
    const TileGeom *g = tc->g;
    Kb *b = &tc->base.kb;
    int pts[3];
    for (int d = 0; d < 3; d++)
        pts[d] = g->unrolled[d] ? g->m[d] : 1;
    for (int z = 0; z < pts[2]; z++)
        for (int y = 0; y < pts[1]; y++)
            for (int x = 0; x < pts[0]; x++) {
                tc->u[0] = tile_point_offset(g, 0, x);
                tc->u[1] = tile_point_offset(g, 1, y);
                tc->u[2] = tile_point_offset(g, 2, z);
                tc->lane = x % g->vec;
                tc->base.kidx = point_index(tc, tc->u);
                KStmt *scope = k_scope(b);
                cg_point(&tc->base, &scope->body);
                k_push(b, body, scope);
                if (g->vec > 1 && tc->lane == g->vec - 1)
                    vector_stores(tc, body, nstored);
            }
    tc->base.kidx = NULL;
}

/* The fast path: every point of the thread is inside the grid. */
static void fast_path(TileCtx *tc, KBlock *out, int any_staged)
{
    const TileGeom *g = tc->g;
    Kb *b = &tc->base.kb;
    int looped[3];
    for (int d = 0; d < 3; d++)
        looped[d] = d < g->dims && !g->unrolled[d] && g->m[d] > 1;
    out = open_loops(tc, out, looped, 0);
    point_coords(tc, out, looped, any_staged);
    k_let(b, out, "long long", "idxb", linear_index(tc));
    KBlock body = {0};
    tc->fast = 1;
    tc->ncache = 0;
    int nstored = stored_writes(tc->base.prog, tc->base.stage);
    if (g->vec > 1) {
        tc->base.kstore = store_lane;
        tc->warr = arena_alloc(tc->base.arena, sizeof(KExpr *) * (size_t)(nstored + 1));
    }
    fast_points(tc, &body, nstored);
    tc->base.kstore = NULL;
    tc->fast = 0;
    cache_decls(tc, out);
    for (int w = 0; g->vec > 1 && w < nstored; w++)
        for (int l = 0; l < g->vec; l++)
            k_push(b, out, k_decl(b, 0, tc->base.T, arena_printf(tc->base.arena, "w%d_%d", w, l), NULL));
    for (int i = 0; i < body.n; i++)
        k_push(b, out, body.items[i]);
}

/* The slow path: one point at a time, each checked against the grid. */
static void slow_path(TileCtx *tc, KBlock *out, int any_staged)
{
    const TileGeom *g = tc->g;
    Kb *b = &tc->base.kb;
    int looped[3];
    for (int d = 0; d < 3; d++)
        looped[d] = d < g->dims && g->m[d] > 1;
    out = open_loops(tc, out, looped, 1);
    point_coords(tc, out, looped, any_staged);
    KExpr *inside = g->shift ? k_bin(b, KO_GE, k_var(b, "i"), k_int(b, 0)) : NULL;
    for (int d = 0; d < g->dims; d++)
        inside = k_and(b, inside, k_bin(b, KO_LT, k_var(b, axis_global[d]), k_varf(b, "n%d", d)));
    KStmt *guard = k_if(b, inside);
    k_let(b, &guard->body, "long long", "idx", linear_index(tc));
    tc->fast = 0;
    tc->base.kidx = NULL;
    tc->base.idx = "idx";
    cg_point(&tc->base, &guard->body);
    k_push(b, out, guard);
}

/* The block's tile origin o<d> and the thread's first point b<d> in it; the shared arrays. */
static void origins(TileCtx *tc, KBlock *out, int any_staged)
{
    const TileGeom *g = tc->g;
    Kb *b = &tc->base.kb;
    for (int d = 0; d < g->dims; d++) {
        KExpr *o = k_cast(b, "int", k_mul(b, k_block(b, d), k_uint(b, g->tile[d])));
        if (d == 0 && g->shift) /* the tiles start g->shift points before the grid */
            o = k_sub(b, o, k_int(b, g->shift));
        k_let(b, out, "int", arena_printf(tc->base.arena, "o%d", d), o);
        KExpr *t = k_cast(b, "int", k_thread(b, d));
        k_let(b, out, "int", arena_printf(tc->base.arena, "b%d", d), g->bm[d] > 1 ? k_mul(b, t, k_int(b, g->bm[d])) : t);
    }
    const char *ptr = arena_printf(tc->base.arena, "%s *", tc->base.T);
    for (int a = 0; any_staged && a < g->narr; a++)
        if (g->arr[a].staged)
            k_push(b, out, k_decl(b, 0, arena_printf(tc->base.arena, "%sconst", ptr), arena_printf(tc->base.arena, "sm%d", a),
                                  k_plus(b, k_cast(b, ptr, k_var(b, "tile_smem")), g->arr[a].base)));
}

/* Every point of the thread inside the grid (and, with vec, the accesses aligned). */
static KExpr *fast_guard(TileCtx *tc)
{
    const TileGeom *g = tc->g;
    Kb *b = &tc->base.kb;
    KExpr *all = NULL;
    if (g->shift)
        all = k_bin(b, KO_GE, k_add(b, k_var(b, "o0"), k_var(b, "b0")), k_int(b, 0));
    if (g->vec > 1)
        all = k_and(b, all, k_var(b, "vec_ok"));
    for (int d = 0; d < g->dims; d++) {
        KExpr *last = k_add(b, k_varf(b, "o%d", d), k_varf(b, "b%d", d));
        if (g->m[d] > 1)
            last = k_plus(b, last, tile_point_offset(g, d, g->m[d] - 1));
        all = k_and(b, all, k_bin(b, KO_LT, last, k_varf(b, "n%d", d)));
    }
    return all;
}

static const char *merging_kind(const TileGeom *g)
{
    int block = 0, cyclic = 0;
    for (int d = 0; d < 3; d++) {
        block |= g->bm[d] > 1;
        cyclic |= g->step[d] > 1;
    }
    return block && cyclic ? "block-cyclic" : cyclic ? "cyclic" : "block";
}

static void describe(CgCtx *ctx, int stage, const TileGeom *g)
{
    const char *text = arena_printf(ctx->arena, "stage %d: tile pass, %d x %d x %d points per thread (%s merging), tile %d x %d x %d%s%s",
                                    stage, g->m[0], g->m[1], g->m[2], merging_kind(g), g->tile[0], g->tile[1], g->tile[2],
                                    g->smem ? ", shared-memory staging" : "",
                                    ctx->cfg->v[P_CMEM] == 2 ? ", constants in constant memory" : "");
    if (g->vec > 1)
        text = arena_printf(ctx->arena, "%s, x in vectors of %d from %d before the grid", text, g->vec, g->shift);
    cg_add_global(ctx, k_comment(&ctx->kb, text));
}

/* The kernel's body: origins, staging, the fast path and (points > 1) the slow path. */
static void build_body(TileCtx *tc, KKernel *k, const CgArgs *args)
{
    const TileGeom *g = tc->g;
    Kb *b = &tc->base.kb;
    int any_staged = 0;
    for (int a = 0; a < g->narr; a++)
        any_staged |= g->arr[a].staged;
    if (any_staged) {
        KStmt *smem = k_array(b, KQ_SHARED, "unsigned char", "tile_smem", 0);
        smem->align = 16;
        k_push(b, &k->body, smem);
    }
    cg_strides(&tc->base, &k->body, tc->s);
    origins(tc, &k->body, any_staged);
    if (any_staged)
        tile_staging(&tc->base, &k->body, g, tc->s);
    if (g->vec > 1)
        k_let(b, &k->body, "bool", "vec_ok", tile_vector_check(&tc->base, g, args, tc->s));
    KStmt *split = k_if(b, fast_guard(tc));
    fast_path(tc, &split->body, any_staged);
    if (g->m[0] * g->m[1] * g->m[2] > 1)
        slow_path(tc, &split->els, any_staged);
    k_push(b, &k->body, split);
}

int cg_emit_stage_tile(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                       char *why, int whylen)
{
    const IrProgram *p = ctx->prog;
    TileGeom g;
    if (tile_geometry(p, stage, ctx->cfg, &g) != 0) {
        snprintf(why, (size_t)whylen, "stage %d reads more than %d (field, level) pairs", stage, TILE_MAX_ARRAYS);
        return -1;
    }
    describe(ctx, stage, &g);
    TileCtx tc;
    memset(&tc, 0, sizeof tc);
    tc.base = *ctx;
    tc.base.stage = stage;
    tc.base.kread = read_value;
    tc.base.kcoord = point_coord;
    tc.g = &g;
    tc.base.prog = cg_fast_arith(p, stage, ctx->arena);
    if (ctx->cfg->v[P_CMEM] == 2) /* the constants of the rewritten stage go to the array */
        tc.base.prog = tile_constants_to_cmem(ctx, tc.base.prog, stage, name);
    KKernel *k = cg_kernel(ctx, name, g.tb, args);
    if (ctx->fold) /* the fused step (emit_reduce_fused.c): the points fold its reductions */
        cg_fold_begin(&tc.base, &k->body);
    build_body(&tc, k, args);
    ctx->stage = stage;
    tc.base.prog = p;
    tile_halo_columns(&tc.base, &k->body, &g, tc.s);
    const int extra[3] = {g.shift, 0, 0};
    if (ctx->fold)
        cg_fold_end(&tc.base, &k->body, g.tb, g.tile, extra);
    cg_add_kernel(ctx, k);
    for (int d = 0; d < 3; d++) {
        l->block[d] = g.tb[d];
        l->tile[d] = d < g.dims ? g.tile[d] : g.tb[d];
    }
    l->extra[0] = g.shift; /* the tiles start g.shift points before the grid */
    l->smem_bytes = (int)tile_smem_bytes(p, &g);
    return 0;
}
