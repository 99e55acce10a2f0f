/* The launch: what every kernel shares, whichever pass builds it: the thread block (tb) and
 * the register cap (maxreg), and the constraints CUDA puts on them. Not a pass of its own (no
 * builder): its row comes first in the table, so its constraints are checked first. */
#include "pass.h"

#include <stdio.h>

static int dims_of(const Space *s) { return s->prog ? s->prog->dims : 3; }

static long block_threads(const Config *c)
{
    return (long)c->v[P_TBX] * c->v[P_TBY] * c->v[P_TBZ];
}

static int c_block_max(const Space *s, const Config *c, char *why, int whylen)
{
    if (block_threads(c) > 1024) {
        snprintf(why, (size_t)whylen, "thread block of %ld threads: CUDA allows at most 1024",
                 block_threads(c));
        return 0;
    }
    if (c->v[P_TBZ] > 64) {
        snprintf(why, (size_t)whylen, "tb=%dx%dx%d: CUDA allows at most 64 threads on z",
                 c->v[P_TBX], c->v[P_TBY], c->v[P_TBZ]);
        return 0;
    }
    return 1;
}

/* The smallest power of two >= n (n > 0). */
static long cover_of(long n)
{
    long cover = 1;
    while (cover < n)
        cover *= 2;
    return cover;
}

/* A warp, or the whole grid where it has fewer points (rounded up per axis): a 1D grid of 10
 * points is served best by one block of 16 threads. Where the grid is unknown (plan_build), a
 * small block is a tuning choice, not an error: no minimum. */
static long block_min_threads(const Space *s)
{
    long all = 1;
    for (int d = 0; d < dims_of(s); d++) {
        if (s->n[d] <= 0)
            return 1;
        all *= cover_of(s->n[d]);
        if (all >= 32)
            return 32;
    }
    return all;
}

static int c_block_min(const Space *s, const Config *c, char *why, int whylen)
{
    long min = block_min_threads(s);
    if (block_threads(c) < min && min == 32) {
        snprintf(why, (size_t)whylen, "thread block of %ld threads: less than one warp (32) wastes "
                 "lanes", block_threads(c));
        return 0;
    }
    if (block_threads(c) < min) {
        snprintf(why, (size_t)whylen, "thread block of %ld threads: fewer than the grid's %ld points "
                 "(rounded up per axis) leaves lanes idle", block_threads(c), min);
        return 0;
    }
    return 1;
}

/* A block far wider than the grid only adds idle threads; the grid size is known to the tuner
 * (not to plan_build, which passes 0 = unknown and skips this). */
static int c_block_fits_grid(const Space *s, const Config *c, char *why, int whylen)
{
    for (int d = 0; d < dims_of(s); d++) {
        long n = s->n[d];
        if (n <= 0)
            continue;
        long cover = cover_of(n);
        if (c->v[P_TBX + d] > cover) {
            snprintf(why, (size_t)whylen, "tb=%dx%dx%d: %d along %c exceeds the grid's %ld points "
                     "on that axis (rounded up to %ld)", c->v[P_TBX], c->v[P_TBY],
                     c->v[P_TBZ], c->v[P_TBX + d], "xyz"[d], n, cover);
            return 0;
        }
    }
    return 1;
}

/* CUDA allows at most 65535 blocks along y and z; the plain kernel puts one block per tile. */
static int c_grid_fits(const Space *s, const Config *c, char *why, int whylen)
{
    for (int d = 1; d < dims_of(s); d++) {
        long n = s->n[d];
        if (n <= 0)
            continue;
        long blocks = (n + c->v[P_TBX + d] - 1) / c->v[P_TBX + d];
        if (blocks > 65535) {
            snprintf(why, (size_t)whylen, "%ld blocks along %c: CUDA allows at most 65535",
                     blocks, "xyz"[d]);
            return 0;
        }
    }
    return 1;
}

static int c_maxreg_fits(const Space *s, const Config *c, char *why, int whylen)
{
    int cap = c->v[P_MAXREG];
    if (cap == 1)
        return 1;
    if (cap < 16 || cap > 255) {
        snprintf(why, (size_t)whylen, "maxreg=%d: a register cap must be between 16 and 255", cap);
        return 0;
    }
    if ((long)cap * block_threads(c) > 65536) {
        snprintf(why, (size_t)whylen, "maxreg=%d with %ld threads needs more than the 65536 "
                 "registers of an SM", cap, block_threads(c));
        return 0;
    }
    return 1;
}

static const SpaceConstraint constraints[] = {
    {"block-max", c_block_max, "CUDA's limit of 1024 threads per block (64 on z)"},
    {"block-min", c_block_min, "a block smaller than a warp (or than the grid) leaves lanes idle"},
    {"block-fits", c_block_fits_grid, "a block larger than the grid only adds idle threads"},
    {"grid-fits", c_grid_fits, "at most 65535 blocks along y and z"},
    {"maxreg", c_maxreg_fits, "a register cap must leave the block launchable"},
    {0},
};

static const int tb_values[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
static const int maxreg_values[] = {1, 32, 64, 128};

static const CgParam params[] = {
    {.key = "tb", .kind = PK_TRIPLE, .first = P_TBX, .pos = 0, .flags = PF_POW2 | PF_SHOWN,
     .dims = 1, .values = tb_values, .nvalues = 11, .doc_values = "`XxYxZ`, each 1..1024",
     .doc = "thread-block shape. Default 256x1x1 (1D), 32x8x1 (2D), 32x4x2 (3D); on a grid "
            "where that block does not fit (16^3, a 1D grid of 10, a 3D grid one point deep) "
            "the default is the valid block nearest to it (fewest doublings or halvings per "
            "axis, then the most threads; `codegen/space_default.c`), e.g. 16x4x2 on 16^3, 16 "
            "on a 1D grid of 10, 32x1x2 on 64x1x64. Axes beyond the grid's dimension must be "
            "1; 32 to 1024 threads per block (fewer only where the whole grid, each axis "
            "rounded up to a power of two, has fewer points), at most 64 on z"},
    {.key = "maxreg", .kind = PK_NUMBER, .first = P_MAXREG, .pos = 14,
     .flags = PF_POW2 | PF_OFF, .dims = 1, .values = maxreg_values, .nvalues = 4,
     .doc_values = "16..255, power of two; `off`/`none`",
     .doc = "register cap per thread (`__maxnreg__`); off = `__launch_bounds__(threads)`"},
    {0},
};

const CgPass cg_pass_launch = {
    .name = "launch",
    .params = params,
    .constraints = constraints,
};
