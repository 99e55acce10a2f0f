/* Prior configurations: shapes of kernel that won on the H100 across the benchmark stencils
 * (bench/RESULTS.md, docs/config.md, the recordings in tests/data), written once per grid
 * dimension. GeST's dataset starts with those that are valid for the program and grid, so a
 * short budget that measures only a dozen variants of an expensive stencil (a 729-point box
 * compiles for seconds) still sees the streaming and merging kernels that pay most, instead of
 * hoping that random draws from a space of millions hit them. Which of them wins, and what
 * is near it, is still the search's job. */
#include <string.h>

#include "tune_int.h"

/* Which programs a prior is for: any, or only stars or only boxes (static features of the step,
 * see stencil_shape). Temporal blocking wins by different kernels: a star by the plain streaming
 * temporal kernel, a box (a weighted sum) by the retimed one, which reads (2R+1)^(d-1) values per
 * point and step from shared memory instead of (2R+1)^d (H100, 2026-11-23, 1000 steps: box2d2r
 * 294 -> 488 GStencil/s, box3d1r 187 -> 302; on j2d9pt, a star, 729 -> 681). */
typedef enum { FOR_ANY, FOR_STAR, FOR_BOX } PriorFor;

/* Which runs a prior is for: any, only one step (a space without temporal blocking), or only
 * several steps. */
typedef enum { ANY_STEPS, ONE_STEP, MULTI_STEP } PriorSteps;

/* Which element type a prior is for: both, float or double. A replay's recording, with no
 * program, counts as float (tests/data holds float recordings). */
typedef enum { ANY_TYPE, FLOAT_ONLY, DOUBLE_ONLY } PriorType;

typedef struct {
    const char *config;
    PriorFor when;
    PriorSteps steps;
    PriorType type;
} Prior;

/* Most promising first: the search takes the first `max` valid ones that are for the program. */
static const Prior priors_2d[] = {
    /* merging, register reuse (star2d1r: 95%) */
    {"tb=128x4,uf=2x1,bm=2x4", FOR_ANY, ANY_STEPS, ANY_TYPE},
    /* One step of a star: streaming with its planes in shared memory, 8 planes per block. The
     * family of star2d2r's best in a 12-minute search; in one run (H100, 2026-11-23, one step,
     * GStencil/s) 361 there against 320-350 for what 60 s searches chose, and within 2% of the
     * 120 s searches' bests or above them on all seven 2D stars (j2d9pt 357 against 346). Not
     * for a box: box2d1r -2%, box2d2r 238 against 329. */
    {"tb=256x1,smem=on,stream=y,sb=8,uf=1x8", FOR_STAR, ONE_STEP, ANY_TYPE},
    /* One step of a star whose rows fit float4: merging 4x2 outputs per thread, the x quadruples as
     * float4/double4 loads and stores, coefficients in constant memory. star2d4r's best in a
     * 20-minute search, found at 1172 s: 355.6 GStencil/s re-timed against 321.9 for the
     * streaming prior above, which its 60 s part had chosen and not left (H100, 2026-11-25,
     * bench/RESULTS.md). With it a separate 60 s run chose the same with 32x8 threads and the
     * halo columns stored: 360.2 GStencil/s, ratio 0.990 to the reference. It fits where rows
     * start on a float4 boundary (an even halo on 8192 columns: star2d2r, star2d4r, j2d9pt),
     * and there takes the place of `bm=1x8` in the default four: offline on their references'
     * logs (bench/experiments/gest_locality_study.py) star2d2r 1.002, j2d9pt 1.003, as before. */
    {"tb=32x16,cmem=on,uf=4x1,bm=4x2,vec=4", FOR_STAR, ONE_STEP, ANY_TYPE},
    /* One step of a box: a shared-memory tile, 8 rows unrolled and 16 merged per thread, the
     * rows' halo columns stored again. box2d2r's best in a 20-minute search, found at 1103 s:
     * 340.4 GStencil/s re-timed against 329.3 for the retimed streaming kernel its 60 s part
     * had chosen at 5 s (H100, 2026-11-25, bench/RESULTS.md). It takes the place of the cyclic
     * prior below in a 2D box's default four; offline on the references' logs
     * (bench/experiments/gest_locality_study.py, 5 seeds of 60 s) box2d2r 1.060 -> 1.000 (two
     * seeds had stopped at 1.101), box2d1r 1.008 -> 1.004, j2d9pt-gol 1.009 -> 1.005. The
     * smem merging priors at the end of this list have its shape but come after the four. */
    {"tb=256x1,smem=on,uf=1x8,bm=1x16,hcol=on", FOR_BOX, ONE_STEP, ANY_TYPE},
    /* One step of a box: merging 2x8 outputs per thread, the x pairs as float2/double2 loads
     * and stores, 64 registers. box2d3r's best in a 20-minute search, found at 1116 s: 320.7
     * GStencil/s re-timed against 268.5 for the retimed streaming kernel its 60 s part had chosen
     * at 2 s and not left (H100, 2026-11-25, bench/RESULTS.md); its family (uf=2x8,bm=2x8,vec=2)
     * holds the log's 24 fastest kernels, with any of 7 block shapes. It takes the place of
     * `bm=1x8` in a 2D box's default four; offline on the references' logs
     * (bench/experiments/gest_locality_study.py, 5 seeds of 60 s) box2d3r 1.206 -> 1.000, the other
     * 2D boxes as before (box2d1r 1.004, box2d2r 1.000, j2d9pt-gol 1.005). */
    {"tb=64x4,uf=2x8,bm=2x8,vec=2,maxreg=64", FOR_BOX, ONE_STEP, ANY_TYPE},
    /* streaming temporal blocking (AN5D's shape) */
    {"tb=256x1,stream=y,sb=256,tblock=8", FOR_STAR, ANY_STEPS, ANY_TYPE},
    /* the same fusing 12 steps: star2d1r 1410 and j2d5pt 1408 GStencil/s against 1291 and 1333
     * with 8 (H100, 2026-11-23); with 8, star2d2r 767 and j2d9pt 749 */
    {"tb=256x1,stream=y,sb=256,tblock=12", FOR_STAR, ANY_STEPS, ANY_TYPE},
    /* the same, retimed (box2d2r 488) */
    {"tb=256x1,stream=y,sb=256,tblock=6,retime=on", FOR_BOX, ANY_STEPS, ANY_TYPE},
    /* retimed streaming (weighted sums) */
    {"tb=256x1,stream=y,sb=128,retime=on,uf=1x4", FOR_ANY, ANY_STEPS, ANY_TYPE},
    /* merging along y (large radius) */
    {"tb=256x1,uf=1x4,bm=1x8", FOR_ANY, ANY_STEPS, ANY_TYPE},
    {"tb=256x1,stream=y,sb=128,tblock=4", FOR_ANY, ANY_STEPS, ANY_TYPE},
    {"tb=64x1,cmem=on,uf=2x1,cm=2x2", FOR_ANY, ANY_STEPS, ANY_TYPE},
    /* Shared memory with 16 or 8 rows merged along y: 7 of the 12 2D winners of the 120 s
     * quality searches (bench/RESULTS.md) have this shape. Last, so that a one-step run (where
     * the tblock ones are invalid) reaches them at `priors=6` (7 where the float4 prior above
     * fits: an even halo; a 2D box's first at 7, after box2d2r's and box2d3r's), not at the
     * default 4, until they are measured live (`bench/suite.py --strategies gest,gest-smem`);
     * gradient2d, which has no valid retimed prior (its sum is not linear), takes the first at 4. */
    {"tb=256x1,smem=on,uf=1x16,bm=1x16", FOR_ANY, ANY_STEPS, ANY_TYPE},
    {"tb=256x1,smem=on,uf=2x4,bm=2x8", FOR_ANY, ANY_STEPS, ANY_TYPE},
};

static const Prior priors_3d[] = {
    /* A star's step: cyclic merging, 8 x points 32 apart (one 128-byte line per warp and
     * load, 56 independent loads per plane) over 4 z planes. star3d1r's best in a 20-minute
     * search: 327.3 GStencil/s re-timed against 318.7 for the vector prior below, which 60 s
     * searches had chosen (H100, 2026-11-24, bench/RESULTS.md). Multi-step runs take it too:
     * beyond radius 1 a 3D star's temporal kernels lose to its one-step kernel run step by step
     * (star3d2r: 305.6 GStencil/s with this one against 265.9 for what a 100-step search chose
     * without it, bench/RESULTS.md).
     * A one-step run takes it first with its rows' halo columns stored again (hcol,
     * docs/config.md), which writes the sectors at the rows' ends whole: star3d1r 327.7 -> 341.3
     * GStencil/s in one run, but star3d3r 255.7 -> 250.8 and star3d4r's pair-cyclic kernel
     * 267.0 -> 261.0 (H100, 2026-11-25, bench/logs/halo-columns-ab-h100-2026-11-25.txt.gz), so
     * both forms go first. The gain needs the coefficients in constant memory too: without
     * cmem the stores take the kernel from 79 to 86 registers, 2 blocks per SM instead of 3,
     * and both forms ran at 327-328 (H100, 2026-11-25; docs/performance.md). Multi-step runs
     * take only the plain one: their four are it and the kernels below (star3d1r fuses 3
     * steps: 479). */
    {"tb=32x8x1,cmem=on,uf=8x1x1,cm=8x1x4,maxreg=128,hcol=on", FOR_STAR, ONE_STEP, ANY_TYPE},
    {"tb=32x8x1,uf=8x1x1,cm=8x1x4,maxreg=128", FOR_STAR, ANY_STEPS, ANY_TYPE},
    /* One step of a star: merging 2x2 with the x pairs as float2/double2 loads and stores.
     * star3d1r 304 -> 319.5 GStencil/s against the merging kernel searches had chosen (one 4-byte
     * access per thread caps even a plain copy at 80% of cudaMemcpy's bandwidth; H100, 2026-11-24). */
    {"tb=128x2x1,uf=2x2x1,bm=2x2x1,vec=2", FOR_STAR, ONE_STEP, ANY_TYPE},
    /* A star's step: cyclic merging of float2 pairs (4 pairs 64 points apart, 4 z planes).
     * star3d2r 321.3 GStencil/s against 305.9 for the scalar cyclic kernel above in one run,
     * star3d1r 286 against 327 (bench/logs/vec-cyclic-sweep-h100-2026-11-24.txt.gz); 10 s
     * searches then chose its family for star3d2r (325.0) and star3d4r (265.9, against 216.1
     * per step for the 100-step search of the same run, which did not have this prior).
     * With 8 z planes and 8 rows: star3d2r's 20-minute best (323.9) and the family of
     * star3d4r's (268.9; this one 267.0), where the 4-plane form above gave 242.6 to a 10 s
     * search that stayed on it (H100, 2026-11-24/25, bench/RESULTS.md). */
    {"tb=32x8x1,uf=8x1x1,bm=2x1x1,cm=4x1x8,vec=2,maxreg=128", FOR_STAR, ANY_STEPS, ANY_TYPE},
    /* One step of a box: retimed 2.5D streaming with prefetching, a 256x4 tile of 512 planes,
     * 32 registers so that 1024-thread blocks run two to an SM. box3d1r's best in a 20-minute
     * search, 291.8 GStencil/s re-timed against 262.9 for the prior below, which its 60 s part
     * had chosen and not left (H100, 2026-11-25, bench/RESULTS.md). Beyond radius 1 it is slow
     * (box3d2r 1.14 ms against 0.86 for the best prior), a measurement those runs spend: their
     * 60 s runs still chose their references' kernels or faster (docs/autotune.md).
     * Float only: in double, the 10 s searches of the one-step suite with it first chose
     * 64x8 tiles at 140 GStencil/s for box3d1r and j3d27pt (H100, 2026-11-25), where those of
     * 2026-11-22, with the 128x4 tile below first, had chosen that tile at 158; a double box
     * takes that tile first. */
    {"tb=256x4x1,stream=z,sb=512,retime=on,prefetch=on,uf=1x1x2,maxreg=32", FOR_BOX, ONE_STEP,
     FLOAT_ONLY},
    {"tb=128x4x1,stream=z,sb=64,retime=on,uf=1x1x2", FOR_BOX, ONE_STEP, DOUBLE_ONLY},
    /* retimed 2.5D streaming: boxes 1.7-3.6x; a box's multi-step runs take it first */
    {"tb=128x4x1,stream=z,sb=64,retime=on,uf=1x1x2", FOR_STAR, ANY_STEPS, ANY_TYPE},
    {"tb=128x4x1,stream=z,sb=64,retime=on,uf=1x1x2", FOR_BOX, MULTI_STEP, ANY_TYPE},
    /* streaming temporal blocking (star3d1r 481) */
    {"tb=32x32x1,stream=z,sb=128,tblock=3", FOR_STAR, ANY_STEPS, ANY_TYPE},
    /* merging along y (stars) */
    {"tb=128x1x1,uf=1x4x1,bm=1x4x1", FOR_STAR, ANY_STEPS, ANY_TYPE},
    /* the same, retimed (box3d1r 302) */
    {"tb=32x16x1,stream=z,sb=128,tblock=2,retime=on", FOR_BOX, ANY_STEPS, ANY_TYPE},
    /* retiming, larger tile (radius 3-4) */
    {"tb=64x8x1,stream=z,sb=128,retime=on,uf=1x1x2", FOR_ANY, ANY_STEPS, ANY_TYPE},
    /* box3d2r's best in a 120 s search (157 GStencil/s; 145 without prefetch and maxreg) */
    {"tb=64x8x1,stream=z,sb=256,retime=on,prefetch=on,uf=1x1x2,maxreg=32",
     FOR_ANY, ANY_STEPS, ANY_TYPE},
    /* box3d3r's best in a 20-minute search, 4% faster than the one above there (71.1 against
     * 68.2 GStencil/s, same run): a 32x16 tile reads fewer halo points than 64x8 at radius 3,
     * 512 planes per block fewer halo planes */
    {"tb=32x16x1,stream=z,sb=512,retime=on,prefetch=on,uf=1x1x2,maxreg=128",
     FOR_BOX, ANY_STEPS, ANY_TYPE},
    {"tb=512x1x1,bm=1x2x16", FOR_ANY, ANY_STEPS, ANY_TYPE},
};

/* A box reads a point off the streaming axis (the last one) in a plane other than its own: the
 * plain streaming temporal kernel reads its whole neighbourhood from shared memory. A star, or
 * an unknown program (a replay without its source), is not a box. */
static PriorFor stencil_shape(const IrProgram *p)
{
    if (!p || p->nstages < 1 || p->dims < 2)
        return FOR_STAR;
    int sd = p->dims - 1;
    for (int st = 0; st < p->nstages; st++)
        for (int i = 0; i < p->stages[st].nnodes; i++) {
            const IrNode *n = &p->stages[st].nodes[i];
            if (n->op != N_READ || n->off[sd] == 0)
                continue;
            for (int a = 0; a < sd; a++)
                if (n->off[a] != 0)
                    return FOR_BOX;
        }
    return FOR_STAR;
}

/* Whether every value of c is one its parameter takes in s: a space's validity function need
 * not check it (a test's synthetic space, a recording's), and GeST's statistics index values. */
static int in_space(const Space *s, const Config *c)
{
    for (int p = 0; p < P_COUNT; p++)
        if (tune_value_index(&s->params[p], c->v[p]) < 0)
            return 0;
    return 1;
}

int tune_priors(const TuneProblem *pb, Config *out, int max)
{
    const Space *s = pb->space;
    /* The program's dimension (space_init), a replay's recording's (replay_space); unknown: 3D. */
    int dims = s->dims ? s->dims : 3;
    const Prior *list = dims == 2 ? priors_2d : dims == 3 ? priors_3d : NULL;
    PriorFor shape = stencil_shape(s->prog);
    int n = dims == 2 ? (int)(sizeof priors_2d / sizeof *priors_2d)
          : dims == 3 ? (int)(sizeof priors_3d / sizeof *priors_3d) : 0;
    int multi = s->params[P_TB].nvalues > 1; /* temporal blocking: a multi-step run */
    PriorType type = s->prog && s->prog->type == ELEM_DOUBLE ? DOUBLE_ONLY : FLOAT_ONLY;
    int got = 0;
    for (int i = 0; i < n && got < max; i++) {
        Config c;
        char why[256];
        if (list[i].when != FOR_ANY && list[i].when != shape)
            continue;
        if ((list[i].steps == ONE_STEP && multi) || (list[i].steps == MULTI_STEP && !multi))
            continue;
        if (list[i].type != ANY_TYPE && list[i].type != type)
            continue;
        if (config_parse(list[i].config, dims, &c, why, sizeof why) != 0 || !in_space(s, &c))
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
