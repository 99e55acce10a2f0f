/* Prior configurations: shapes of kernel that won on the H100 across the benchmark stencils
 * (bench/RESULTS.md, docs/config.md, the recordings in tests/data), written once per grid
 * dimension. GeST's dataset starts with those that are valid for the program and grid, so a
 * short budget that measures only a dozen variants of an expensive stencil (a 729-point box
 * compiles for seconds) still sees the streaming and merging kernels that pay most, instead of
 * hoping that random draws from a space of millions hit them. Which of them wins, and what
 * is near it, is still the search's job. */
#include <string.h>

#include "tune_int.h"

/* Most promising first: the search takes the first `max` valid ones. */
static const char *const priors_2d[] = {
    "tb=128x4,uf=2x1,bm=2x4",                   /* merging, register reuse (star2d1r: 95%) */
    "tb=256x1,stream=y,sb=256,tblock=8",        /* streaming temporal blocking (AN5D's shape) */
    "tb=256x1,stream=y,sb=128,retime=on,uf=1x4", /* retimed streaming (weighted sums) */
    "tb=256x1,uf=1x4,bm=1x8",                   /* merging along y (large radius) */
    "tb=256x1,stream=y,sb=128,tblock=4",
    "tb=64x1,cmem=on,uf=2x1,cm=2x2",
    /* Shared memory with 16 or 8 rows merged along y: 7 of the 12 2D winners of the 120 s
     * quality searches (bench/RESULTS.md) have this shape. Last, so that a one-step run (where
     * the tblock ones are invalid) reaches them at `priors=6`, not at the default 4, until they
     * are measured live (`bench/suite.py --strategies gest,gest-smem`); gradient2d, which has
     * no valid retimed prior (its sum is not linear), takes the first at 4. */
    "tb=256x1,smem=on,uf=1x16,bm=1x16",
    "tb=256x1,smem=on,uf=2x4,bm=2x8",
};

static const char *const priors_3d[] = {
    "tb=128x4x1,stream=z,sb=64,retime=on,uf=1x1x2", /* retimed 2.5D streaming: boxes 1.7-3.6x */
    "tb=128x1x1,uf=1x4x1,bm=1x4x1",                 /* merging along y (stars) */
    "tb=32x32x1,stream=z,sb=128,tblock=3",          /* streaming temporal blocking (star3d1r 481) */
    "tb=64x8x1,stream=z,sb=128,retime=on,uf=1x1x2", /* retiming, larger tile (radius 3-4) */
    /* box3d2r's best in a 120 s search (157 GStencil/s; 145 without prefetch and maxreg) */
    "tb=64x8x1,stream=z,sb=256,retime=on,prefetch=on,uf=1x1x2,maxreg=32",
    "tb=512x1x1,bm=1x2x16",
};

int tune_priors(const TuneProblem *pb, Config *out, int max)
{
    const Space *s = pb->space;
    /* The program's dimension (space_init), a replay's recording's (replay_space); unknown: 3D. */
    int dims = s->dims ? s->dims : 3;
    const char *const *list = dims == 2 ? priors_2d : dims == 3 ? priors_3d : NULL;
    int n = dims == 2 ? (int)(sizeof priors_2d / sizeof *priors_2d)
          : dims == 3 ? (int)(sizeof priors_3d / sizeof *priors_3d) : 0;
    int got = 0;
    for (int i = 0; i < n && got < max; i++) {
        Config c;
        char why[256];
        if (config_parse(list[i], dims, &c, why, sizeof why) != 0)
            continue;
        if (!pb->valid(pb->valid_ctx, &c, why, sizeof why))
            continue;
        int dup = 0;
        for (int j = 0; j < got; j++)
            dup |= tune_config_equal(&out[j], &c);
        if (!dup)
            out[got++] = c;
    }
    return got;
}
