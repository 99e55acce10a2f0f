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
#include "opt.h"
#include "opt_tile.h"

#include <stdio.h>
#include <string.h>

int cg_tile_wants(const Config *c) { return tile_config_on(c); }

typedef struct {
    int field, level, off[3];
} Cached;

/* The emitter's context: CgCtx first, so the read hook can get back to the rest. */
typedef struct {
    CgCtx base;
    const TileGeom *g;
    int fast;        /* 1: reads come from the register cache; 0: direct loads at the point */
    int u[3];        /* fast: the point's offset from the pass's base point */
    Cached *cache;
    int ncache, cap;
    int lane;          /* vec fast path: the point's place in its vector (x mod vec) */
    const char **warr; /* vec fast path: each stored write's array, as the store hook saw it */
} TileCtx;

static const char axis_local[3][3] = {"li", "lj", "lk"};

static const TileArray *array_of(const TileGeom *g, int field, int level)
{
    for (int a = 0; a < g->narr; a++)
        if (g->arr[a].field == field && g->arr[a].level == level)
            return &g->arr[a];
    return NULL;
}

/* "name + c" with the sign folded, or "name" when c is 0. */
static void put_plus(StrBuf *out, const char *name, int c)
{
    if (c == 0)
        sb_puts(out, name);
    else
        sb_printf(out, "%s %s %d", name, c < 0 ? "-" : "+", c < 0 ? -c : c);
}

/* The load of (field, level) at offset off from the point whose local coordinates are li, lj,
 * lk and whose linear index is idxname: from its shared array when staged, else global. */
static void emit_load(TileCtx *tc, int field, int level, const int off[3], const char *idxname,
                      StrBuf *out)
{
    const TileGeom *g = tc->g;
    const TileArray *t = array_of(g, field, level);
    if (t && t->staged) {
        int a = (int)(t - g->arr);
        sb_printf(out, "sm%d[", a);
        /* ((lk + c2) * e1 + (lj + c1)) * e0 + (li + c0), for the axes the grid has */
        for (int d = g->dims - 1; d >= 1; d--)
            sb_puts(out, "(");
        for (int d = g->dims - 1; d >= 0; d--) {
            put_plus(out, axis_local[d], off[d] - t->lo[d]);
            if (d > 0)
                sb_printf(out, ") * %d + ", t->ext[d - 1]);
        }
        sb_puts(out, "]");
        return;
    }
    PlanArg a = {ARG_BUF, field, level, 0};
    char an[160];
    cg_arg_name(tc->base.prog, &a, an, sizeof an);
    sb_printf(out, "%s[%s", an, idxname);
    cg_emit_offset_term(out, off[2], "s2");
    cg_emit_offset_term(out, off[1], "s1");
    cg_emit_offset_term(out, off[0], NULL);
    sb_puts(out, "]");
}

static void read_hook(CgCtx *ctx, const IrNode *n, StrBuf *out)
{
    TileCtx *tc = (TileCtx *)ctx;
    if (!tc->fast) {
        emit_load(tc, n->field, n->level, n->off, "idx", out);
        return;
    }
    Cached key = {n->field, n->level, {n->off[0] + tc->u[0], n->off[1] + tc->u[1], n->off[2] + tc->u[2]}};
    int at = 0;
    while (at < tc->ncache && memcmp(&tc->cache[at], &key, sizeof key) != 0)
        at++;
    if (at == tc->ncache)
        *ARENA_PUSH(ctx->arena, tc->cache, tc->ncache, tc->cap) = key;
    sb_printf(out, "r%d", at);
}

/* vec fast path: the point's stores go to w<write>_<lane>, stored as one vector per write once
 * the vector's last point is done (emit_vector_stores). */
static void store_hook(CgCtx *ctx, int w, const char *array, const char *value, const char *indent)
{
    TileCtx *tc = (TileCtx *)ctx;
    tc->warr[w] = arena_strdup(ctx->arena, array);
    sb_printf(ctx->src, "%sw%d_%d = %s;\n", indent, w, tc->lane, value);
}

static const char *const lane_name[4] = {"x", "y", "z", "w"};

/* The index "idxb + z * s2 + y * s1 + x" of a point at offset u from the thread's first point. */
static void put_point_index(StrBuf *out, const int u[3])
{
    sb_puts(out, "idxb");
    cg_emit_offset_term(out, u[2], "s2");
    cg_emit_offset_term(out, u[1], "s1");
    cg_emit_offset_term(out, u[0], NULL);
}

/* The vector of the points u[0]-vec+1 .. u[0] (the last one just emitted), one store per write. */
static void emit_vector_stores(TileCtx *tc, StrBuf *o, const char *ind, int nstored)
{
    const TileGeom *g = tc->g;
    int first[3] = {tc->u[0] - (g->vec - 1), tc->u[1], tc->u[2]};
    for (int w = 0; w < nstored; w++) {
        sb_printf(o, "%s*(%s%d *)&%s[", ind, tc->base.T, g->vec, tc->warr[w]);
        put_point_index(o, first);
        sb_printf(o, "] = %s%d{", tc->base.T, g->vec);
        for (int l = 0; l < g->vec; l++)
            sb_printf(o, "%sw%d_%d", l ? ", " : "", w, l);
        sb_puts(o, "};\n");
    }
}

static int floor_mod(int a, int m) { return ((a % m) + m) % m; }

/* Declares the register cache r0, r1, ...: with vec > 1, each aligned run of vec values of the
 * same (field, level, y, z) from one vector load q<k>, the rest one load each. */
static void emit_cache_decls(TileCtx *tc, StrBuf *o, const char *ind)
{
    const TileGeom *g = tc->g;
    const char *T = tc->base.T;
    char *done = arena_alloc(tc->base.arena, (size_t)tc->ncache + 1);
    int nq = 0;
    for (int c = 0; g->vec > 1 && c < tc->ncache; c++) {
        const Cached *k = &tc->cache[c];
        if (floor_mod(k->off[0], g->vec) != 0)
            continue;
        int member[4], all = 1;
        for (int l = 0; l < g->vec && all; l++) {
            Cached want = *k;
            want.off[0] += l;
            member[l] = -1;
            for (int e = 0; e < tc->ncache; e++)
                if (!done[e] && memcmp(&tc->cache[e], &want, sizeof want) == 0)
                    member[l] = e;
            all = member[l] >= 0;
        }
        if (!all)
            continue;
        sb_printf(o, "%sconst %s%d q%d = *(const %s%d *)&", ind, T, g->vec, nq, T, g->vec);
        emit_load(tc, k->field, k->level, k->off, "idxb", o);
        sb_puts(o, ";\n");
        for (int l = 0; l < g->vec; l++) {
            sb_printf(o, "%sconst %s r%d = q%d.%s;\n", ind, T, member[l], nq, lane_name[l]);
            done[member[l]] = 1;
        }
        nq++;
    }
    for (int c = 0; c < tc->ncache; c++) {
        if (done[c])
            continue;
        const Cached *k = &tc->cache[c];
        sb_printf(o, "%sconst %s r%d = ", ind, T, c);
        emit_load(tc, k->field, k->level, k->off, "idxb", o);
        sb_puts(o, ";\n");
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

static const char axis_global[3] = {'i', 'j', 'k'};
static const char *const thread_idx[3] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
static const char *const block_idx[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};

/* Declares li/lj/lk (when shared arrays need them) and i/j/k of the point at loop counters
 * m0..m2 (axes in `looped`). */
static void emit_point_coords(TileCtx *tc, StrBuf *o, const char *ind, const int looped[3],
                              int any_staged)
{
    const TileGeom *g = tc->g;
    for (int d = 0; d < g->dims; d++) {
        StrBuf local = {0};
        sb_printf(&local, "b%d", d);
        if (looped[d]) {
            if (g->step[d] == 1)
                sb_printf(&local, " + m%d", d);
            else if (g->bm[d] == 1)
                sb_printf(&local, " + m%d * %d", d, g->step[d]);
            else
                sb_printf(&local, " + m%d / %d * %d + m%d %% %d", d, g->bm[d], g->step[d], d,
                          g->bm[d]);
        }
        if (any_staged) {
            sb_printf(o, "%sconst int %s = %s;\n", ind, axis_local[d], local.data);
            sb_printf(o, "%sconst int %c = o%d + %s;\n", ind, axis_global[d], d, axis_local[d]);
        } else {
            sb_printf(o, "%sconst int %c = o%d + %s;\n", ind, axis_global[d], d, local.data);
        }
        sb_free(&local);
    }
}

static void emit_linear_index(TileCtx *tc, StrBuf *o, const char *ind, const char *idxname)
{
    const IrProgram *p = tc->base.prog;
    sb_printf(o, "%sconst long long %s = ", ind, idxname);
    if (p->dims >= 3)
        sb_printf(o, "(long long)(k + %d) * s2 + ", p->halo[2]);
    if (p->dims >= 2)
        sb_printf(o, "(long long)(j + %d) * s1 + ", p->halo[1]);
    sb_printf(o, "(i + %d);\n", p->halo[0]);
}

/* Opens `for` loops over the axes in looped (z outermost) with the given pragma value. */
static int open_loops(TileCtx *tc, StrBuf *o, const int looped[3], int slow, char *ind, int *depth)
{
    const TileGeom *g = tc->g;
    int opened = 0;
    for (int d = 2; d >= 0; d--) {
        if (!looped[d])
            continue;
        sb_printf(o, "%s#pragma unroll %d\n", ind, slow ? 1 : g->uf[d]);
        sb_printf(o, "%sfor (int m%d = 0; m%d < %d; m%d++) {\n", ind, d, d, g->m[d], d);
        ind[(*depth)++] = ' ', ind[(*depth)++] = ' ', ind[(*depth)++] = ' ', ind[(*depth)++] = ' ';
        ind[*depth] = 0;
        opened++;
    }
    return opened;
}

static void close_loops(StrBuf *o, int opened, char *ind, int *depth)
{
    for (int k = 0; k < opened; k++) {
        *depth -= 4;
        ind[*depth] = 0;
        sb_printf(o, "%s}\n", ind);
    }
}

/* The fast path: every point of the thread is inside the grid. */
static void emit_fast(TileCtx *tc, int any_staged)
{
    const TileGeom *g = tc->g;
    StrBuf *o = tc->base.src;
    char ind[64] = "        ";
    int depth = 8;
    int looped[3];
    for (int d = 0; d < 3; d++)
        looped[d] = d < g->dims && !g->unrolled[d] && g->m[d] > 1;
    int opened = open_loops(tc, o, looped, 0, ind, &depth);
    emit_point_coords(tc, o, ind, looped, any_staged);
    emit_linear_index(tc, o, ind, "idxb");
    /* The points, into a side buffer first: their reads fill the register cache. */
    StrBuf body = {0};
    tc->base.src = &body;
    tc->fast = 1;
    tc->ncache = 0;
    int nstored = stored_writes(tc->base.prog, tc->base.stage);
    if (g->vec > 1) {
        tc->base.store_hook = store_hook;
        tc->warr = arena_alloc(tc->base.arena, sizeof(char *) * (size_t)(nstored + 1));
    }
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
                StrBuf idx = {0};
                put_point_index(&idx, tc->u);
                tc->base.idx = arena_strdup(tc->base.arena, idx.data);
                sb_free(&idx);
                sb_printf(&body, "%s{\n", ind);
                char inner[72];
                snprintf(inner, sizeof inner, "%s    ", ind);
                cg_emit_point(&tc->base, inner);
                sb_printf(&body, "%s}\n", ind);
                if (g->vec > 1 && tc->lane == g->vec - 1)
                    emit_vector_stores(tc, &body, ind, nstored);
            }
    tc->base.src = o;
    tc->base.store_hook = NULL;
    tc->fast = 0;
    StrBuf decls = {0};
    emit_cache_decls(tc, &decls, ind);
    for (int w = 0; g->vec > 1 && w < nstored; w++) {
        sb_printf(&decls, "%s%s", ind, tc->base.T);
        for (int l = 0; l < g->vec; l++)
            sb_printf(&decls, "%s w%d_%d", l ? "," : "", w, l);
        sb_puts(&decls, ";\n");
    }
    if (decls.data)
        sb_puts(o, decls.data);
    if (body.data)
        sb_puts(o, body.data);
    sb_free(&decls);
    sb_free(&body);
    close_loops(o, opened, ind, &depth);
}

/* The slow path: one point at a time, each checked against the grid. */
static void emit_slow(TileCtx *tc, int any_staged)
{
    const TileGeom *g = tc->g;
    StrBuf *o = tc->base.src;
    char ind[64] = "        ";
    int depth = 8;
    int looped[3];
    for (int d = 0; d < 3; d++)
        looped[d] = d < g->dims && g->m[d] > 1;
    int opened = open_loops(tc, o, looped, 1, ind, &depth);
    emit_point_coords(tc, o, ind, looped, any_staged);
    sb_printf(o, "%sif (", ind);
    if (g->shift)
        sb_puts(o, "i >= 0 && ");
    for (int d = 0; d < g->dims; d++)
        sb_printf(o, "%s%c < n%d", d ? " && " : "", axis_global[d], d);
    sb_puts(o, ") {\n");
    char inner[72];
    snprintf(inner, sizeof inner, "%s    ", ind);
    emit_linear_index(tc, o, inner, "idx");
    tc->base.idx = "idx";
    tc->fast = 0;
    cg_emit_point(&tc->base, inner);
    sb_printf(o, "%s}\n", ind);
    close_loops(o, opened, ind, &depth);
}

/* Cooperative copy of each staged array's box (tile plus halo) into shared memory, positions
 * beyond the padded buffer holding 0 (no point inside the grid reads them). The box is walked
 * linearly by the block's threads (consecutive threads, consecutive x: coalesced), in chunks of
 * up to TILE_STAGE_BATCH loads issued before their stores, so that many loads are in flight
 * instead of one latency per row. */
enum { TILE_STAGE_BATCH = 8 };

/* Declares `name`, the thread's rank in its block (x fastest). */
static void emit_thread_rank(StrBuf *o, const TileGeom *g, const char *indent, const char *name)
{
    sb_printf(o, "%sconst int %s = (int)threadIdx.x", indent, name);
    if (g->tb[1] > 1 || g->tb[2] > 1)
        sb_printf(o, " + %d * ((int)threadIdx.y + %d * (int)threadIdx.z)", g->tb[0], g->tb[1]);
    sb_puts(o, ";\n");
}

static void emit_staging(TileCtx *tc)
{
    const TileGeom *g = tc->g;
    const IrProgram *p = tc->base.prog;
    StrBuf *o = tc->base.src;
    int threads = g->tb[0] * g->tb[1] * g->tb[2];
    emit_thread_rank(o, g, "    ", "tid");
    for (int a = 0; a < g->narr; a++) {
        const TileArray *t = &g->arr[a];
        if (!t->staged)
            continue;
        PlanArg arg = {ARG_BUF, t->field, t->level, 0};
        char an[160];
        cg_arg_name(p, &arg, an, sizeof an);
        long elems = (long)t->ext[0] * t->ext[1] * t->ext[2];
        long iters = (elems + threads - 1) / threads;
        int batch = iters < TILE_STAGE_BATCH ? (int)iters : TILE_STAGE_BATCH;
        long chunks = (iters + batch - 1) / batch;
        int full = elems % ((long)threads * batch) == 0; /* every guard t < elems holds */
        const char *ind = "        ";
        sb_printf(o, "    /* %s: %d x %d x %d elements */\n", an, t->ext[0], t->ext[1], t->ext[2]);
        if (chunks > 1)
            sb_printf(o, "    #pragma unroll 1\n    for (int c = 0; c < %ld; c++) {\n"
                      "        const int t0 = tid + c * %d;\n", chunks, threads * batch);
        else
            sb_puts(o, "    {\n        const int t0 = tid;\n");
        for (int q = 0; q < batch; q++) {
            sb_printf(o, "%sconst int t%d_ = t0 + %d;\n", ind, q, q * threads);
            /* coordinates in the box: x fastest, as the array is laid out */
            sb_printf(o, "%sconst int gi%d = o0", ind, q);
            cg_emit_offset_term(o, t->lo[0], NULL);
            sb_printf(o, " + (int)((unsigned)t%d_ %% %du);\n", q, t->ext[0]);
            if (g->dims >= 2) {
                sb_printf(o, "%sconst int gj%d = o1", ind, q);
                cg_emit_offset_term(o, t->lo[1], NULL);
                if (g->dims >= 3)
                    sb_printf(o, " + (int)((unsigned)t%d_ / %du %% %du);\n", q, t->ext[0], t->ext[1]);
                else
                    sb_printf(o, " + (int)((unsigned)t%d_ / %du);\n", q, t->ext[0]);
            }
            if (g->dims >= 3) {
                sb_printf(o, "%sconst int gk%d = o2", ind, q);
                cg_emit_offset_term(o, t->lo[2], NULL);
                sb_printf(o, " + (int)((unsigned)t%d_ / %du);\n", q, t->ext[0] * t->ext[1]);
            }
            sb_printf(o, "%sconst %s v%d_ = (", ind, tc->base.T, q);
            if (!full)
                sb_printf(o, "t%d_ < %ld && ", q, elems);
            static const char gv[3][3] = {"gi", "gj", "gk"};
            for (int d = 0; d < g->dims; d++)
                sb_printf(o, "%s%s%d < n%d + %d", d ? " && " : "", gv[d], q, d, p->halo[d]);
            sb_printf(o, ")\n%s    ? %s[", ind, an);
            if (g->dims >= 3)
                sb_printf(o, "(long long)(gk%d + %d) * s2 + ", q, p->halo[2]);
            if (g->dims >= 2)
                sb_printf(o, "(long long)(gj%d + %d) * s1 + ", q, p->halo[1]);
            sb_printf(o, "(gi%d + %d)] : (%s)0;\n", q, p->halo[0], tc->base.T);
        }
        for (int q = 0; q < batch; q++) {
            if (full)
                sb_printf(o, "%ssm%d[t%d_] = v%d_;\n", ind, a, q, q);
            else
                sb_printf(o, "%sif (t%d_ < %ld)\n%s    sm%d[t%d_] = v%d_;\n", ind, q, elems, ind, a, q, q);
        }
        sb_puts(o, "    }\n");
    }
    sb_puts(o, "    __syncthreads();\n");
}

/* A copy of the program in which the stage's non-trivial constants are reads of parameters
 * named "<kernel>_c[k]": the point computation then prints p_<kernel>_c[k], an element of the
 * kernel's __constant__ array. Emits that array. */
static const IrProgram *constants_to_cmem(CgCtx *ctx, int stage, const char *name)
{
    const IrProgram *p = ctx->prog;
    const IrStage *st = &p->stages[stage];
    int nconst = tile_const_count(p, stage);
    if (nconst == 0)
        return p;
    IrProgram *copy = arena_alloc(ctx->arena, sizeof *copy);
    *copy = *p;
    copy->params = arena_alloc(ctx->arena, sizeof(IrParam) * (size_t)(p->nparams + nconst));
    if (p->nparams)
        memcpy(copy->params, p->params, sizeof(IrParam) * (size_t)p->nparams);
    copy->stages = arena_alloc(ctx->arena, sizeof(IrStage) * (size_t)p->nstages);
    memcpy(copy->stages, p->stages, sizeof(IrStage) * (size_t)p->nstages);
    IrStage *cs = &copy->stages[stage];
    cs->nodes = arena_alloc(ctx->arena, sizeof(IrNode) * (size_t)(st->nnodes + 1));
    memcpy(cs->nodes, st->nodes, sizeof(IrNode) * (size_t)st->nnodes);
    double *values = arena_alloc(ctx->arena, sizeof(double) * (size_t)nconst);
    int nv = 0;
    for (int i = 0; i < st->nnodes; i++) {
        IrNode *n = &cs->nodes[i];
        if (n->op != N_CONST || !tile_const_nontrivial(n->value))
            continue;
        int k = 0;
        while (k < nv && values[k] != n->value)
            k++;
        if (k == nv) {
            values[nv] = n->value;
            IrParam *par = &copy->params[p->nparams + nv];
            par->name = arena_printf(ctx->arena, "%s_c[%d]", name, nv);
            par->used = 1;
            nv++;
        }
        n->op = N_PARAM;
        n->param = p->nparams + k;
    }
    copy->nparams = p->nparams + nv;
    StrBuf *o = ctx->src;
    sb_printf(o, "__constant__ %s p_%s_c[%d] = {", ctx->T, name, nv);
    for (int k = 0; k < nv; k++) {
        sb_puts(o, k ? (k % 6 ? ", " : ",\n    ") : "\n    ");
        cg_emit_const(o, values[k], p->type);
    }
    sb_puts(o, "};\n");
    return copy;
}

/* vec_ok: the rows (s1 elements) and every buffer the kernel touches start on a vector
 * boundary. The grid and the pointers come from the caller at run time. */
static void emit_vector_check(CgCtx *ctx, const TileGeom *g, const CgArgs *args)
{
    StrBuf *o = ctx->src;
    sb_puts(o, "    const bool vec_ok = ");
    if (g->dims >= 2)
        sb_printf(o, "s1 %% %d == 0 && ", g->vec);
    sb_puts(o, "((");
    int first = 1;
    for (int a = 0; a < args->nargs; a++) {
        if (args->args[a].kind != ARG_BUF)
            continue;
        char an[160];
        cg_arg_name(ctx->prog, &args->args[a], an, sizeof an);
        sb_printf(o, "%s(unsigned long long)%s", first ? "" : " | ", an);
        first = 0;
    }
    if (first)
        sb_puts(o, "0ull");
    sb_printf(o, ") %% %du) == 0;\n", (unsigned)(g->vec * ir_elem_size(ctx->prog)));
}

/* hcol=on: the halo columns of the rows the block writes, stored again with the values they
 * hold. A step writes a row's interior only, so the sectors at its two ends (a row of n0 + 2 h0
 * elements rarely ends on a 32-byte boundary) are written in part, and a partly written sector
 * can cost the memory system more than a whole one: at 512^3 in float about 2 sectors of every
 * 64. For a state field with a fixed boundary every buffer holds the same halo (docs/c-api.md),
 * so the block that holds x = 0 (or x = n0 - 1) copies the newest buffer's halo columns of its
 * rows into the buffer it writes, completing those sectors. Measured (H100, docs/performance.md):
 * star3d1r's cyclic kernel 327.7 -> 341.3 GStencil/s, star3d3r's and star3d4r's 2% slower, so it
 * is a parameter. Fields of other boundaries have their halo filled after the step
 * (tile_halo_column_field says which fields qualify). */
static void emit_halo_columns(CgCtx *ctx, const TileGeom *g)
{
    const IrProgram *p = ctx->prog;
    const IrStage *st = &p->stages[ctx->stage];
    if (ctx->cfg->v[P_HCOL] != 2)
        return;
    StrBuf body = {0};
    for (int w = 0; w < st->nwrites; w++) {
        int f = st->writes[w].field;
        if (!tile_halo_column_field(p, ctx->stage, w))
            continue; /* it qualifies only when read at step t: its newest buffer is an argument */
        char out[160], in[160];
        cg_arg_name(p, &(PlanArg){ARG_BUF, f, 1, 0}, out, sizeof out);
        cg_arg_name(p, &(PlanArg){ARG_BUF, f, 0, 0}, in, sizeof in);
        for (int c = 0; c < p->halo[0]; c++) {
            sb_printf(&body, "            if (lo) %s[row + %d] = %s[row + %d];\n", out, c, in, c);
            sb_printf(&body, "            if (hi) %s[row + n0 + %d] = %s[row + n0 + %d];\n", out,
                      p->halo[0] + c, in, p->halo[0] + c);
        }
    }
    if (!body.data)
        return;
    int rows = g->tile[1] * (p->dims >= 3 ? g->tile[2] : 1);
    int threads = g->tb[0] * g->tb[1] * g->tb[2];
    StrBuf *o = ctx->src;
    sb_printf(o, "    /* the halo columns of the block's rows: whole sectors at the rows' ends */\n"
              "    const bool lo = o0 <= 0, hi = o0 <= n0 - 1 && o0 + %d > n0 - 1;\n"
              "    if (lo || hi) {\n", g->tile[0]);
    emit_thread_rank(o, g, "        ", "htid");
    sb_printf(o, "        for (int r = htid; r < %d; r += %d) {\n", rows, threads);
    sb_printf(o, "            const int j = o1 + r %% %d;\n", g->tile[1]);
    if (p->dims >= 3)
        sb_printf(o, "            const int k = o2 + r / %d;\n", g->tile[1]);
    sb_printf(o, "            if (j >= n1%s)\n                continue;\n",
              p->dims >= 3 ? " || k >= n2" : "");
    sb_puts(o, "            const long long row = ");
    if (p->dims >= 3)
        sb_printf(o, "(long long)(k + %d) * s2 + ", p->halo[2]);
    sb_printf(o, "(long long)(j + %d) * s1;\n", p->halo[1]);
    sb_puts(o, body.data);
    sb_puts(o, "        }\n    }\n");
    sb_free(&body);
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

int cg_emit_stage_tile(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                       char *why, int whylen)
{
    const IrProgram *p = ctx->prog;
    const Config *c = ctx->cfg;
    TileGeom g;
    if (tile_geometry(p, stage, c, &g) != 0) {
        snprintf(why, (size_t)whylen, "stage %d reads more than %d (field, level) pairs", stage,
                 TILE_MAX_ARRAYS);
        return -1;
    }
    StrBuf *o = ctx->src;
    sb_printf(o, "/* stage %d: tile pass, %d x %d x %d points per thread (%s merging), tile %d x %d x %d"
              "%s%s", stage, g.m[0], g.m[1], g.m[2],
              merging_kind(&g), g.tile[0],
              g.tile[1], g.tile[2], g.smem ? ", shared-memory staging" : "",
              c->v[P_CMEM] == 2 ? ", constants in constant memory" : "");
    if (g.vec > 1)
        sb_printf(o, ", x in vectors of %d from %d before the grid", g.vec, g.shift);
    sb_puts(o, " */\n");
    TileCtx tc;
    memset(&tc, 0, sizeof tc);
    tc.base = *ctx;
    tc.base.stage = stage;
    tc.base.read_hook = read_hook;
    tc.g = &g;
    tc.base.prog = cg_fast_arith(p, stage, ctx->arena);
    if (c->v[P_CMEM] == 2) {
        ctx->prog = tc.base.prog; /* the constants of the rewritten stage go to the array */
        tc.base.prog = constants_to_cmem(ctx, stage, name);
        ctx->prog = p;
    }
    int block[3] = {g.tb[0], g.tb[1], g.tb[2]};
    cg_emit_signature(ctx, name, block, args);
    int any_staged = 0;
    for (int a = 0; a < g.narr; a++)
        any_staged |= g.arr[a].staged;
    if (any_staged)
        sb_printf(o, "    extern __shared__ __align__(16) unsigned char tile_smem[];\n");
    cg_emit_strides(ctx);
    for (int d = 0; d < g.dims; d++) {
        if (d == 0 && g.shift) /* the tiles start g.shift points before the grid */
            sb_printf(o, "    const int o0 = (int)(%s * %du) - %d;\n", block_idx[0], g.tile[0],
                      g.shift);
        else
            sb_printf(o, "    const int o%d = (int)(%s * %du);\n", d, block_idx[d], g.tile[d]);
        if (g.bm[d] > 1)
            sb_printf(o, "    const int b%d = (int)%s * %d;\n", d, thread_idx[d], g.bm[d]);
        else
            sb_printf(o, "    const int b%d = (int)%s;\n", d, thread_idx[d]);
    }
    for (int a = 0; a < g.narr; a++)
        if (g.arr[a].staged)
            sb_printf(o, "    %s *const sm%d = (%s *)tile_smem + %d;\n", ctx->T, a, ctx->T,
                      g.arr[a].base);
    if (any_staged)
        emit_staging(&tc);
    if (g.vec > 1)
        emit_vector_check(ctx, &g, args);
    int points = g.m[0] * g.m[1] * g.m[2];
    sb_puts(o, "    if (");
    if (g.shift)
        sb_puts(o, "o0 + b0 >= 0 && ");
    if (g.vec > 1)
        sb_puts(o, "vec_ok && ");
    for (int d = 0; d < g.dims; d++) {
        sb_printf(o, "%so%d + b%d", d ? " && " : "", d, d);
        if (g.m[d] > 1)
            sb_printf(o, " + %d", tile_point_offset(&g, d, g.m[d] - 1));
        sb_printf(o, " < n%d", d);
    }
    sb_puts(o, ") {\n");
    emit_fast(&tc, any_staged);
    if (points > 1) {
        sb_puts(o, "    } else {\n");
        emit_slow(&tc, any_staged);
    }
    sb_puts(o, "    }\n");
    ctx->stage = stage;
    emit_halo_columns(ctx, &g);
    sb_puts(o, "}\n\n");
    for (int d = 0; d < 3; d++) {
        l->block[d] = g.tb[d];
        l->tile[d] = d < g.dims ? g.tile[d] : g.tb[d];
    }
    l->extra[0] = g.shift; /* the tiles start g.shift points before the grid */
    l->smem_bytes = (int)tile_smem_bytes(p, &g);
    return 0;
}
