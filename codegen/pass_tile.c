/* The tile pass: smem, cmem, unrolling, cyclic and block merging, vector accesses and halo
 * columns (codegen/opt_tile.c builds the kernel). Its constraints apply to the configurations it
 * builds (streaming and temporal blocking off: they come before it in the table); the other
 * passes judge theirs. */
#include "opt_tile.h"
#include "pass.h"

#include <stdio.h>

enum {
    TILE_MAX_M_AXIS = 16,     /* points per thread along one axis */
    TILE_MAX_M_TOTAL = 64,    /* points per thread */
    TILE_SMEM_LIMIT = 100 * 1024, /* bytes: beyond, too few blocks per SM keep it busy */
    TILE_CMEM_LIMIT = 64 * 1024,  /* bytes of __constant__ memory of a module */
    TILE_MAX_CACHED = 256,    /* values held in registers per thread (floats; doubles count 2) */
};

extern const CgPass cg_pass_tile;

/* Built by this pass (no pass before it in the table applies). */
static int builds(const Config *c) { return cg_pass_builds(&cg_pass_tile, c); }

static int dims_of(const Space *s) { return s->prog ? s->prog->dims : 3; }

static int merge(const Config *c, int d) { return c->v[P_BMX + d] * c->v[P_CMX + d]; }

static int c_exclusive(const Space *s, const Config *c, char *why, int whylen)
{
    (void)s;
    if (!builds(c))
        return 1;
    int bm = c->v[P_BMX] * c->v[P_BMY] * c->v[P_BMZ];
    int cm = c->v[P_CMX] * c->v[P_CMY] * c->v[P_CMZ];
    /* The one exception: with vec, cyclic merging along x moves vectors, whose vec adjacent
     * points are bm x (c_vec checks bm x = vec). */
    if (c->v[P_VEC] > 1 && c->v[P_CMX] > 1 && c->v[P_BMX] == c->v[P_VEC])
        bm /= c->v[P_BMX];
    if (bm > 1 && cm > 1) {
        snprintf(why, (size_t)whylen, "block merging (bm) and cyclic merging (cm) together: a "
                 "thread's points are either adjacent or a block apart (except the vectors of "
                 "vec, bm x = vec, that cm x deals out)");
        return 0;
    }
    return 1;
}

static int c_unroll(const Space *s, const Config *c, char *why, int whylen)
{
    if (!builds(c))
        return 1;
    for (int d = 0; d < dims_of(s); d++)
        if (c->v[P_UFX + d] > merge(c, d)) {
            char uf[48];
            config_item(c, P_UFX, uf, sizeof uf);
            snprintf(why, (size_t)whylen, "%s unrolls %d points along %c but a thread has %d there: "
                     "the unroll factor is at most the merge factor", uf, c->v[P_UFX + d], "xyz"[d],
                     merge(c, d));
            return 0;
        }
    return 1;
}

static int c_points(const Space *s, const Config *c, char *why, int whylen)
{
    if (!builds(c))
        return 1;
    int total = 1;
    for (int d = 0; d < dims_of(s); d++) {
        if (merge(c, d) > TILE_MAX_M_AXIS) {
            snprintf(why, (size_t)whylen, "%d points per thread along %c: at most %d",
                     merge(c, d), "xyz"[d], TILE_MAX_M_AXIS);
            return 0;
        }
        total *= merge(c, d);
    }
    if (total > TILE_MAX_M_TOTAL) {
        snprintf(why, (size_t)whylen, "%d points per thread: at most %d", total, TILE_MAX_M_TOTAL);
        return 0;
    }
    return 1;
}

/* Like block-fits for the plain kernel: a tile (tb x merge) beyond the grid only adds idle
 * threads. Skipped when the size is unknown. */
static int c_tile_fits(const Space *s, const Config *c, char *why, int whylen)
{
    if (!builds(c))
        return 1;
    for (int d = 0; d < dims_of(s); d++) {
        long n = s->n[d];
        if (n <= 0 || merge(c, d) == 1)
            continue;
        long cover = 1;
        while (cover < n)
            cover *= 2;
        long tile = (long)c->v[P_TBX + d] * merge(c, d);
        if (tile > cover) {
            snprintf(why, (size_t)whylen, "a tile of %ld points along %c (tb %d x merge %d) "
                     "exceeds the grid's %ld points (rounded up to %ld)", tile, "xyz"[d],
                     c->v[P_TBX + d], merge(c, d), n, cover);
            return 0;
        }
    }
    return 1;
}

static int c_smem(const Space *s, const Config *c, char *why, int whylen)
{
    if (!builds(c) || c->v[P_SMEM] != 2 || !s->prog)
        return 1;
    int staged_any = 0;
    for (int st = 0; st < s->prog->nstages; st++) {
        TileGeom g;
        if (tile_geometry(s->prog, st, c, &g) != 0) {
            snprintf(why, (size_t)whylen, "stage %d reads more than %d (field, level) pairs",
                     st, TILE_MAX_ARRAYS);
            return 0;
        }
        long bytes = tile_smem_bytes(s->prog, &g);
        if (bytes > TILE_SMEM_LIMIT) {
            snprintf(why, (size_t)whylen, "stage %d stages %ld bytes of shared memory per block: "
                     "at most %d", st, bytes, TILE_SMEM_LIMIT);
            return 0;
        }
        staged_any |= bytes > 0;
    }
    if (!staged_any) {
        snprintf(why, (size_t)whylen, "smem=on but no stage reads a field at a non-zero offset: "
                 "the same kernel as smem=off");
        return 0;
    }
    return 1;
}

static int c_cmem(const Space *s, const Config *c, char *why, int whylen)
{
    if (!builds(c) || c->v[P_CMEM] != 2 || !s->prog)
        return 1;
    long count = 0;
    for (int st = 0; st < s->prog->nstages; st++)
        count += tile_const_count(s->prog, st);
    if (count == 0) {
        snprintf(why, (size_t)whylen, "cmem=on but the stencil has no constants other than 0 "
                 "and +-1: the same kernel as cmem=off");
        return 0;
    }
    if (count * ir_elem_size(s->prog) > TILE_CMEM_LIMIT) {
        snprintf(why, (size_t)whylen, "%ld constants exceed the %d bytes of constant memory",
                 count, TILE_CMEM_LIMIT);
        return 0;
    }
    return 1;
}

static int c_registers(const Space *s, const Config *c, char *why, int whylen)
{
    if (!builds(c) || !s->prog)
        return 1;
    for (int st = 0; st < s->prog->nstages; st++) {
        TileGeom g;
        if (tile_geometry(s->prog, st, c, &g) != 0)
            continue; /* c_smem or the emitter report it */
        /* one point's loads are the plain kernel's, which the compiler schedules as it likes;
         * the limit is on what reuse between a thread's unrolled points keeps alive */
        int unrolled_points = 1;
        for (int d = 0; d < 3; d++)
            unrolled_points *= g.unrolled[d] ? g.m[d] : 1;
        long values = tile_cached_values(s->prog, st, &g) * (ir_elem_size(s->prog) / 4);
        if (unrolled_points > 1 && values > TILE_MAX_CACHED) {
            snprintf(why, (size_t)whylen, "stage %d: the unrolled points of a thread read %ld "
                     "distinct values (in 32-bit registers): at most %d", st, values,
                     TILE_MAX_CACHED);
            return 0;
        }
    }
    return 1;
}

/* vec: a thread's x points move as one vector load/store of vec elements, which needs them
 * adjacent (block merging along x: bm x >= vec, or, with cyclic merging along x, runs of exactly
 * bm x = vec points dealt out cm x times, tb x vectors apart), enumerated by the generator
 * (uf x = bm x cm x, so their loads are registers that can be paired), read from global memory
 * (not staged), and
 * rows whose length is a multiple of vec (every row starts on a vector boundary); a vector is at
 * most 16 bytes, what one load moves on these GPUs. */
static int c_vec(const Space *s, const Config *c, char *why, int whylen)
{
    int v = c->v[P_VEC];
    if (v == 1)
        return 1;
    if (!builds(c)) {
        snprintf(why, (size_t)whylen, "vec=%d with streaming or temporal blocking: vector "
                 "accesses are made by the tile pass only", v);
        return 0;
    }
    if (c->v[P_CMX] > 1 ? c->v[P_BMX] != v : c->v[P_BMX] < v) {
        snprintf(why, (size_t)whylen, "vec=%d needs a thread's x points in adjacent runs of %d "
                 "(bm x >= %d, or bm x = %d with cyclic merging along x); bm x is %d, cm x %d",
                 v, v, v, v, c->v[P_BMX], c->v[P_CMX]);
        return 0;
    }
    if (c->v[P_UFX] < c->v[P_BMX] * c->v[P_CMX]) {
        snprintf(why, (size_t)whylen, "vec=%d needs the x points unrolled by the generator "
                 "(uf x = bm x * cm x = %d, not %d) to pair their loads", v,
                 c->v[P_BMX] * c->v[P_CMX], c->v[P_UFX]);
        return 0;
    }
    if (s->prog && v * ir_elem_size(s->prog) > 16) {
        snprintf(why, (size_t)whylen, "vec=%d of %d-byte elements: %d bytes, beyond the 16 of "
                 "one load", v, ir_elem_size(s->prog), v * ir_elem_size(s->prog));
        return 0;
    }
    if (c->v[P_SMEM] == 2) {
        snprintf(why, (size_t)whylen, "vec=%d with smem=on: the fast path reads shared memory, "
                 "where vector loads buy nothing", v);
        return 0;
    }
    if (s->prog && s->n[0] > 0) {
        long row = s->n[0] + 2L * s->prog->halo[0];
        if (row % v) {
            snprintf(why, (size_t)whylen, "vec=%d but a padded row holds %ld elements (nx + 2 x "
                     "halo): not a multiple of %d, so rows do not start on a vector boundary",
                     v, row, v);
            return 0;
        }
    }
    return 1;
}

/* hcol: the halo columns are stored only by the tile pass, and only for fields that qualify
 * (tile_halo_column_field: 2D or 3D, state, fixed boundary, read at step t by the stage that
 * writes it). Where none does, hcol=on would emit the same code as off. */
static int c_hcol(const Space *s, const Config *c, char *why, int whylen)
{
    if (c->v[P_HCOL] == 1)
        return 1;
    if (!builds(c)) {
        snprintf(why, (size_t)whylen, "hcol=on with streaming or temporal blocking: the halo "
                 "columns are stored by the tile pass only");
        return 0;
    }
    if (!s->prog)
        return 1;
    for (int st = 0; st < s->prog->nstages; st++)
        for (int w = 0; w < s->prog->stages[st].nwrites; w++)
            if (tile_halo_column_field(s->prog, st, w))
                return 1;
    snprintf(why, (size_t)whylen, "hcol=on but no field qualifies (a 2D or 3D state field with a "
             "fixed boundary, read at step t by the stage that writes it): it would change nothing");
    return 0;
}

static const SpaceConstraint tile_constraints[] = {
    {"tile-merge", c_exclusive, "block and cyclic merging exclude each other"},
    {"tile-unroll", c_unroll, "an unroll factor is at most the merge factor of its axis"},
    {"tile-points", c_points, "at most 16 points per thread along an axis, 64 in all"},
    {"tile-fits", c_tile_fits, "a merged tile larger than the grid only adds idle threads"},
    {"tile-smem", c_smem, "staged tiles fit 100 KiB of shared memory, and staging stages something"},
    {"tile-cmem", c_cmem, "constant memory holds something and fits 64 KiB"},
    {"tile-regs", c_registers, "the values a thread keeps in registers stay few enough not to spill"},
    {"tile-hcol", c_hcol, "halo-column stores: tile pass only, for a 2D or 3D fixed-boundary state field the stage reads"},
    {"tile-vec", c_vec, "vector accesses: adjacent, unrolled, unstaged x points, rows a multiple of vec, at most 16 bytes"},
    {0},
};

/* Any of them on asks for the tile pass. */
static int wants(const Config *c) { return cg_pass_params_set(&cg_pass_tile, c); }

static const int onoff[] = {1, 2};
static const int factors[] = {1, 2, 4, 8, 16};
static const int vec_values[] = {1, 2, 4};

static const CgParam params[] = {
    {.key = "smem", .kind = PK_BOOL, .first = P_SMEM, .pos = 1, .dims = 1, .values = onoff,
     .nvalues = 2, .doc_values = "on/off",
     .doc = "stage the block's input tile (with its halo) in shared memory; with streaming, "
            "the planes read at in-plane offsets (the stream pass's ring)"},
    {.key = "cmem", .kind = PK_BOOL, .first = P_CMEM, .pos = 2, .dims = 1, .values = onoff,
     .nvalues = 2, .doc_values = "on/off",
     .doc = "put the stencil's constants in constant memory"},
    {.key = "uf", .kind = PK_TRIPLE, .first = P_UFX, .pos = 5, .flags = PF_POW2, .dims = 1,
     .values = factors, .nvalues = 5, .doc_values = "`XxYxZ`, each 1..16",
     .doc = "unroll factors of the per-thread loops (with streaming, along the streaming axis: "
            "planes per iteration of the plane loop)"},
    {.key = "cm", .kind = PK_TRIPLE, .first = P_CMX, .pos = 6, .flags = PF_POW2, .dims = 1,
     .values = factors, .nvalues = 5, .doc_values = "`XxYxZ`, each 1..16",
     .doc = "cyclic merging: points per thread, strided by the block size"},
    {.key = "bm", .kind = PK_TRIPLE, .first = P_BMX, .pos = 7, .flags = PF_POW2, .dims = 1,
     .values = factors, .nvalues = 5, .doc_values = "`XxYxZ`, each 1..16",
     .doc = "block merging: points per thread, adjacent (with streaming in 3D, rows along the "
            "other in-plane axis; with stream=z and tblock, columns along y; with stream=y and "
            "tblock in 2D, columns along x)"},
    {.key = "vec", .kind = PK_NUMBER, .first = P_VEC, .pos = 8, .flags = PF_POW2, .dims = 1,
     .values = vec_values, .nvalues = 3, .doc_values = "1, 2, 4",
     .doc = "a thread's adjacent x points as one vector load and store (float2, float4, "
            "double2)"},
    {.key = "hcol", .kind = PK_BOOL, .first = P_HCOL, .pos = 9, .dims = 1, .values = onoff,
     .nvalues = 2, .doc_values = "on/off",
     .doc = "store the halo columns of the rows a block writes again (the values they hold), "
            "so that the sectors at the rows' ends are written whole"},
    {0},
};

const CgPass cg_pass_tile = {
    .name = "tile",
    .params = params,
    .constraints = tile_constraints,
    .applies = wants,
    .build = cg_emit_stage_tile,
};
