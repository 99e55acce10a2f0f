/* Prior configurations: kernel shapes that won across the benchmark stencils, one table per
 * grid dimension. GeST's dataset starts with those that are valid for the program and grid, so a
 * short budget that measures only a dozen variants of an expensive stencil (a 729-point box
 * compiles for seconds) still sees the streaming and merging kernels that pay most, instead of
 * hoping that random draws from a space of millions hit them. Which of them wins, and what is
 * near it, is still the search's job: on a GPU where a prior loses, it costs one measurement.
 *
 * The tables are data. Each row names its section in docs/priors.md, which says what put it
 * there: the measurement, the GPU and date, and the command that makes it again. A row is added,
 * moved or dropped together with its section (tests/check_tree.py checks that every row has
 * one). */
#include <string.h>

#include "guide.h"
#include "tune_int.h"

/* Which programs a prior is for: any, or only stars or only boxes (static features of the step,
 * see stencil_shape). Temporal blocking wins by different kernels: a star by the plain streaming
 * temporal kernel, a box (a weighted sum) by the retimed one, which reads (2R+1)^(d-1) values per
 * point and step from shared memory instead of (2R+1)^d. */
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
    const char *source; /* its section in docs/priors.md: where it comes from */
    int max_halo;       /* the widest halo (along x) it is for; ANY_HALO: any */
    long max_points;    /* the largest grid (interior points) it is for; 0: any */
    int min_halo;       /* the narrowest halo (along x) it is for; 0: any (no program: radius 1) */
} Prior;

enum { ANY_HALO = 0 };

/* A small grid: 4096^2 or fewer points. */
#define SMALL_GRID (4096L * 4096L)

/* Most promising first: the search takes the first `max` valid ones that are for the program,
 * so a row's place decides which runs reach it at the default of four (docs/priors.md lists
 * what each kind of program takes). */
static const Prior priors_2d[] = {
    /* merging 2x4 outputs per thread: register reuse along both axes */
    {"tb=128x4,uf=2x1,bm=2x4", FOR_ANY, ANY_STEPS, ANY_TYPE, "2d-merge-2x4", ANY_HALO, 0, 0},
    /* a star's step streamed along y with 8 planes per block in shared memory; a box would
     * read (2R+1)^2 values per point from them, the retimed kernel 2R+1 */
    {"tb=256x1,smem=on,stream=y,sb=8,uf=1x8",
     FOR_STAR, ONE_STEP, ANY_TYPE, "2d-star-stream-smem", ANY_HALO, 0, 0},
    /* 4x2 outputs per thread, x quadruples as float4/double4 accesses, coefficients in constant
     * memory; valid only where rows start on a float4 boundary (an even halo), and there it
     * takes the place of merging along y in the default four */
    {"tb=32x16,cmem=on,uf=4x1,bm=4x2,vec=4",
     FOR_STAR, ONE_STEP, ANY_TYPE, "2d-star-vec4", ANY_HALO, 0, 0},
    /* a box's step: a shared-memory tile, 8 rows unrolled and 16 merged per thread, the rows'
     * halo columns stored again (whole sectors) */
    {"tb=256x1,smem=on,uf=1x8,bm=1x16,hcol=on",
     FOR_BOX, ONE_STEP, ANY_TYPE, "2d-box-smem-hcol", ANY_HALO, 0, 0},
    /* a box's step: 2x8 outputs per thread, x pairs as float2/double2 accesses, 64 registers */
    {"tb=64x4,uf=2x8,bm=2x8,vec=2,maxreg=64",
     FOR_BOX, ONE_STEP, ANY_TYPE, "2d-box-vec2", ANY_HALO, 0, 0},
    /* streaming temporal blocking on a small grid: 128-wide tiles and 64-plane chunks give
     * enough blocks to fill the GPU, where 256 x 256 leave most SMs idle */
    {"tb=128x1,stream=y,sb=64,tblock=12",
     FOR_STAR, MULTI_STEP, ANY_TYPE, "2d-star-tblock12-small", ANY_HALO, SMALL_GRID, 0},
    {"tb=128x1,stream=y,sb=128,tblock=16,maxreg=128",
     FOR_STAR, MULTI_STEP, ANY_TYPE, "2d-star-tblock16-small", ANY_HALO, SMALL_GRID, 0},
    /* fused steps with two columns a thread along x (bm=2x1), the points selected, one row per
     * star radius (its halo along x), each before the one-column rows of its radius: 1.08x to
     * 1.20x them (docs/priors.md) */
    {"tb=128x1,stream=y,sb=256,tblock=16,bm=2x1,select=on",
     FOR_STAR, MULTI_STEP, ANY_TYPE, "2d-star-tblock16-r1-cols2", 1, 0, 0},
    /* the same at 128 registers: star2d1r's best, and clamp's and mirror's, which spill or
     * take 168 registers without the cap; j2d5pt loses with it, so both are measured */
    {"tb=128x1,stream=y,sb=256,tblock=16,bm=2x1,select=on,maxreg=128",
     FOR_STAR, MULTI_STEP, ANY_TYPE, "2d-star-tblock16-r1-cols2-maxreg128", 1, 0, 0},
    /* the same held over extended copies (hold=on), where the fused steps wrap or reflect (a
     * fixed boundary's space has no hold=on: skipped, the next row moves up) */
    {"tb=128x1,stream=y,sb=256,tblock=16,bm=2x1,select=on,maxreg=128,hold=on",
     FOR_STAR, MULTI_STEP, ANY_TYPE, "2d-star-tblock16-r1-cols2-hold", 1, 0, 0},
    {"tb=128x1,stream=y,sb=256,tblock=8,bm=2x1,select=on",
     FOR_STAR, MULTI_STEP, ANY_TYPE, "2d-star-tblock8-r2-cols2", 2, 0, 2},
    {"tb=128x1,stream=y,sb=256,tblock=6,bm=2x1,select=on",
     FOR_STAR, MULTI_STEP, ANY_TYPE, "2d-star-tblock6-r3-cols2", 3, 0, 3},
    {"tb=128x1,stream=y,sb=128,tblock=4,bm=2x1,select=on",
     FOR_STAR, MULTI_STEP, ANY_TYPE, "2d-star-tblock4-r4-cols2", 4, 0, 4},
    /* radius 1: 16 steps fused at 64 registers, the points selected, what 60 s searches of the
     * 5-point stars found (10 s ones stopped at 12, branched) */
    {"tb=256x1,stream=y,sb=256,tblock=16,maxreg=64,select=on",
     FOR_STAR, MULTI_STEP, ANY_TYPE, "2d-star-tblock16-r1", 1, 0, 0},
    /* radius 3: 6 steps fused at 64 registers, what a 60 s search found (10 s ones stopped at 3),
     * the points selected (select=on), which gains at this radius */
    {"tb=256x1,stream=y,sb=256,tblock=6,maxreg=64,select=on",
     FOR_STAR, MULTI_STEP, ANY_TYPE, "2d-star-tblock6-r3", 3, 0, 3},
    /* streaming temporal blocking (AN5D's shape), 8 and 12 steps fused; 8 with the points
     * selected (select=on), which the wider stars, j2d9pt and gradient2d gain from, 12 branched
     * around, which the 5-point stars (whose 12 it is) keep */
    {"tb=256x1,stream=y,sb=256,tblock=8,select=on",
     FOR_STAR, ANY_STEPS, ANY_TYPE, "2d-star-tblock8", ANY_HALO, 0, 0},
    {"tb=256x1,stream=y,sb=256,tblock=12",
     FOR_STAR, ANY_STEPS, ANY_TYPE, "2d-star-tblock12", ANY_HALO, 0, 0},
    /* 16 steps fused on 128-wide tiles at any grid size, after the rows above: the stars that
     * read a coef field (wave2d), which refuses the select=on rows, reach it at the default four */
    {"tb=128x1,stream=y,sb=128,tblock=16,maxreg=128",
     FOR_STAR, MULTI_STEP, ANY_TYPE, "2d-star-tblock16-any", ANY_HALO, 0, 0},
    /* a box of radius 1: 8 steps fused, two columns a thread, the points selected (box2d1r
     * 1.37x and j2d9pt-gol 1.22x the retimed row below) */
    {"tb=128x1,stream=y,sb=256,tblock=8,bm=2x1,select=on",
     FOR_BOX, MULTI_STEP, ANY_TYPE, "2d-box-tblock8-r1-cols2", 1, 0, 0},
    /* the same, retimed: each fused step of a box reads one new row per plane */
    {"tb=256x1,stream=y,sb=256,tblock=6,retime=on",
     FOR_BOX, ANY_STEPS, ANY_TYPE, "2d-box-tblock6-retime", ANY_HALO, 0, 0},
    /* retimed streaming (weighted sums) */
    {"tb=256x1,stream=y,sb=128,retime=on,uf=1x4",
     FOR_ANY, ANY_STEPS, ANY_TYPE, "2d-retime-stream", ANY_HALO, 0, 0},
    /* merging along y (large radius) */
    {"tb=256x1,uf=1x4,bm=1x8", FOR_ANY, ANY_STEPS, ANY_TYPE, "2d-merge-y", ANY_HALO, 0, 0},
    {"tb=256x1,stream=y,sb=128,tblock=4", FOR_ANY, ANY_STEPS, ANY_TYPE, "2d-tblock4", ANY_HALO, 0, 0},
    {"tb=64x1,cmem=on,uf=2x1,cm=2x2", FOR_ANY, ANY_STEPS, ANY_TYPE, "2d-cyclic-cmem", ANY_HALO, 0, 0},
    /* Shared memory with 16 or 8 rows merged along y. Last, so that a one-step run (where the
     * tblock ones are invalid) reaches them at `priors=6` (7 where the float4 prior fits; a 2D
     * box's first at 7), not at the default 4; gradient2d, which has no valid retimed prior (its
     * sum is not linear), takes the first at 4. */
    {"tb=256x1,smem=on,uf=1x16,bm=1x16",
     FOR_ANY, ANY_STEPS, ANY_TYPE, "2d-smem-merge-y16", ANY_HALO, 0, 0},
    {"tb=256x1,smem=on,uf=2x4,bm=2x8",
     FOR_ANY, ANY_STEPS, ANY_TYPE, "2d-smem-merge-2x8", ANY_HALO, 0, 0},
};

static const Prior priors_3d[] = {
    /* A star's step: cyclic merging, 8 x points 32 apart (one 128-byte line per warp and load,
     * 56 independent loads per plane) over 4 z planes. A one-step run takes it first with its
     * rows' halo columns stored again (hcol), which writes the sectors at the rows' ends whole;
     * the stores gain only with the coefficients in constant memory (without, they cost the
     * kernel occupancy), and they lose on the wider stars, so both forms go first. Multi-step
     * runs take only the plain one: beyond radius 1 a 3D star's temporal kernels lose to its
     * one-step kernel run step by step. */
    {"tb=32x8x1,cmem=on,uf=8x1x1,cm=8x1x4,maxreg=128,hcol=on", FOR_STAR, ONE_STEP, ANY_TYPE,
     "3d-star-cyclic-hcol", ANY_HALO, 0, 0},
    {"tb=32x8x1,uf=8x1x1,cm=8x1x4,maxreg=128",
     FOR_STAR, ANY_STEPS, ANY_TYPE, "3d-star-cyclic", ANY_HALO, 0, 0},
    /* the same over 8 z planes: radius 3's best (star3d3r, on both GPUs) */
    {"tb=32x8x1,uf=8x1x1,cm=8x1x8,maxreg=128",
     FOR_STAR, ANY_STEPS, ANY_TYPE, "3d-star-cyclic-z8-r3", 3, 0, 3},
    /* a star's step: merging 2x2 with the x pairs as float2/double2 accesses (one 4-byte access
     * per thread holds even a plain copy well below cudaMemcpy's bandwidth); up to radius 2 (at
     * 3 and 4 it ran at 1.5 and 1.57 times the best time) */
    {"tb=128x2x1,uf=2x2x1,bm=2x2x1,vec=2",
     FOR_STAR, ONE_STEP, ANY_TYPE, "3d-star-vec2", 2, 0, 0},
    /* a star's step: cyclic merging of float2 pairs (4 pairs 64 points apart) over 8 z planes
     * and 8 rows: the wider stars read more x neighbours per point */
    {"tb=32x8x1,uf=8x1x1,bm=2x1x1,cm=4x1x8,vec=2,maxreg=128", FOR_STAR, ANY_STEPS, ANY_TYPE,
     "3d-star-vec2-cyclic", ANY_HALO, 0, 0},
    /* A box's step of radius 1: retimed 2.5D streaming with prefetching, four rows a thread
     * (a 256x4 tile of 256 threads, 64 planes): a 3x3x3 box reads 4.5 staged values per point
     * and plane instead of 9 (in double a 128x8 tile, 128x2 threads); the one-row form of the
     * float tile follows. */
    {"tb=256x1x1,stream=z,sb=64,bm=1x4x1,retime=on,prefetch=on", FOR_BOX, ONE_STEP, FLOAT_ONLY,
     "3d-box-retime-rows4", 1, 0, 0},
    /* the same with eight rows (a 256x8 tile: fewer halo rows, a quarter of the warps) over 128
     * planes, faster where the bandwidth is higher: first with the planes copied asynchronously,
     * two ahead (104 registers; faster where measured), then through registers (126, capped at 128,
     * which schedules it better; docs/priors.md) */
    {"tb=256x1x1,stream=z,sb=128,bm=1x8x1,retime=on,async=on", FOR_BOX, ONE_STEP, FLOAT_ONLY,
     "3d-box-retime-rows8-async", 1, 0, 0},
    {"tb=256x1x1,stream=z,sb=128,bm=1x8x1,retime=on,prefetch=on,maxreg=128", FOR_BOX, ONE_STEP,
     FLOAT_ONLY, "3d-box-retime-rows8", 1, 0, 0},
    {"tb=128x2x1,stream=z,sb=64,bm=1x4x1,retime=on", FOR_BOX, ONE_STEP, DOUBLE_ONLY,
     "3d-box-retime-rows4-double", 1, 0, 0},
    /* A box's step: retimed 2.5D streaming with prefetching, a 256x4 tile of 512 planes, 32
     * registers so that 1024-thread blocks run two to an SM; radius 1 only (slow beyond). Float
     * only: in double a box takes the 128x4 tile first. */
    {"tb=256x4x1,stream=z,sb=512,retime=on,prefetch=on,uf=1x1x2,maxreg=32", FOR_BOX, ONE_STEP,
     FLOAT_ONLY, "3d-box-retime-256x4", 1, 0, 0},
    {"tb=128x4x1,stream=z,sb=64,retime=on,uf=1x1x2", FOR_BOX, ONE_STEP, DOUBLE_ONLY,
     "3d-box-retime-128x4-double", ANY_HALO, 0, 0},
    /* the eight-row one-step kernel first in a float multi-step run at radius 1, so that the
     * run measures the one-step figure it must beat (on some GPUs it beats the fused kernels;
     * add_spread adds the first one-step row, four rows, too) */
    {"tb=256x1x1,stream=z,sb=128,bm=1x8x1,retime=on,async=on", FOR_BOX, MULTI_STEP,
     FLOAT_ONLY, "3d-box-retime-rows8-multi", 1, 0, 0},
    /* retimed 2.5D streaming; a box's multi-step runs take it first */
    {"tb=128x4x1,stream=z,sb=64,retime=on,uf=1x1x2",
     FOR_STAR, ANY_STEPS, ANY_TYPE, "3d-retime-128x4", ANY_HALO, 0, 0},
    {"tb=128x4x1,stream=z,sb=64,retime=on,uf=1x1x2", FOR_BOX, MULTI_STEP, ANY_TYPE,
     "3d-box-retime-128x4-multi", ANY_HALO, 0, 0},
    /* streaming temporal blocking, 3 steps fused, four columns a thread (a 64x64 tile), 64
     * planes a block (twice the blocks of 128: fewer idle SMs in the last wave); where that does
     * not fit (wider stars, double), one column a thread. Each with the points selected, not
     * branched around (select=on); the branching form next, for a step that reads a coef field
     * (which select=on refuses) */
    {"tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1,select=on", FOR_STAR, ANY_STEPS, ANY_TYPE,
     "3d-star-tblock3-cols4-select", 1, 0, 0},
    {"tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1", FOR_STAR, ANY_STEPS, ANY_TYPE,
     "3d-star-tblock3-cols4", 1, 0, 0},
    {"tb=32x32x1,stream=z,sb=128,tblock=3,select=on",
     FOR_STAR, ANY_STEPS, ANY_TYPE, "3d-star-tblock3-select", ANY_HALO, 0, 0},
    {"tb=32x32x1,stream=z,sb=128,tblock=3",
     FOR_STAR, ANY_STEPS, ANY_TYPE, "3d-star-tblock3", ANY_HALO, 0, 0},
    /* merging along y (stars) */
    {"tb=128x1x1,uf=1x4x1,bm=1x4x1", FOR_STAR, ANY_STEPS, ANY_TYPE, "3d-star-merge-y", ANY_HALO, 0, 0},
    /* the same, retimed (boxes): two columns a thread (a 32x32 tile), then one */
    {"tb=32x16x1,stream=z,sb=128,tblock=2,retime=on,bm=1x2x1", FOR_BOX, ANY_STEPS, ANY_TYPE,
     "3d-box-tblock2-retime-cols2", 1, 0, 0},
    {"tb=32x16x1,stream=z,sb=128,tblock=2,retime=on",
     FOR_BOX, ANY_STEPS, ANY_TYPE, "3d-box-tblock2-retime", ANY_HALO, 0, 0},
    /* retiming, two rows a thread of a 32x16 tile, 512 planes (the one-row form below):
     * fewer halo points than 64x8 at radius 3, the wider boxes' first */
    {"tb=32x8x1,stream=z,sb=512,bm=1x2x1,retime=on,prefetch=on,maxreg=128", FOR_BOX, ANY_STEPS,
     ANY_TYPE, "3d-box-retime-32x8-rows2", ANY_HALO, 0, 0},
    /* retiming, larger tile (radius 3-4) */
    {"tb=64x8x1,stream=z,sb=128,retime=on,uf=1x1x2",
     FOR_ANY, ANY_STEPS, ANY_TYPE, "3d-retime-64x8", ANY_HALO, 0, 0},
    /* the same with prefetching, 256 planes, 32 registers */
    {"tb=64x8x1,stream=z,sb=256,retime=on,prefetch=on,uf=1x1x2,maxreg=32", FOR_ANY, ANY_STEPS,
     ANY_TYPE, "3d-retime-64x8-prefetch", ANY_HALO, 0, 0},
    /* a 32x16 tile reads fewer halo points than 64x8 at radius 3, 512 planes per block fewer
     * halo planes */
    {"tb=32x16x1,stream=z,sb=512,retime=on,prefetch=on,uf=1x1x2,maxreg=128", FOR_BOX, ANY_STEPS,
     ANY_TYPE, "3d-box-retime-32x16", ANY_HALO, 0, 0},
    /* merging 2 rows and 16 planes per thread */
    {"tb=512x1x1,bm=1x2x16", FOR_ANY, ANY_STEPS, ANY_TYPE, "3d-merge-yz", ANY_HALO, 0, 0},
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

enum {
    ROW_ONE_STEP_TOO = 1, /* a one-step row is for a run that may fuse steps too (its space holds
                           * the one-step kernels) */
    ROW_ANY_SHAPE = 2,    /* a row of either shape (star, box) */
};

/* Whether row r is for pb's program and run (shape, steps, type, halo, grid) and parses into a
 * configuration that pb accepts, into *c; how: ROW_* flags. */
static int row_applies_as(const Prior *r, const TuneProblem *pb, Config *c, int how)
{
    const Space *s = pb->space;
    int dims = s->dims ? s->dims : 3;
    int multi = tune_space_fuses(s);
    PriorType type = s->prog && s->prog->type == ELEM_DOUBLE ? DOUBLE_ONLY : FLOAT_ONLY;
    char why[256];
    if (r->when != FOR_ANY && r->when != stencil_shape(s->prog) && !(how & ROW_ANY_SHAPE))
        return 0;
    if ((r->steps == ONE_STEP && multi && !(how & ROW_ONE_STEP_TOO)) || (r->steps == MULTI_STEP && !multi))
        return 0;
    if (r->type != ANY_TYPE && r->type != type)
        return 0;
    if (r->max_halo != ANY_HALO && s->prog && s->prog->halo[0] > r->max_halo)
        return 0;
    if (r->min_halo && (!s->prog || s->prog->halo[0] < r->min_halo)) /* unknown: radius 1 */
        return 0;
    if (r->max_points && s->n[0] * s->n[1] * s->n[2] > r->max_points)
        return 0;
    return config_parse(r->config, dims, c, why, sizeof why) == 0 && tune_problem_accepts(pb, c);
}

static int row_applies(const Prior *r, const TuneProblem *pb, Config *c)
{
    return row_applies_as(r, pb, c, 0);
}

/* The table of dimension dims and its row count in *n (none: NULL, 0). */
static const Prior *table_of_dims(int dims, int *n)
{
    *n = dims == 2 ? (int)(sizeof priors_2d / sizeof *priors_2d)
       : dims == 3 ? (int)(sizeof priors_3d / sizeof *priors_3d) : 0;
    return dims == 2 ? priors_2d : dims == 3 ? priors_3d : NULL;
}

/* The table of the space's dimension (the program's, a replay's recording's; unknown: 3D). */
static const Prior *table_of(const Space *s, int *n)
{
    return table_of_dims(s->dims ? s->dims : 3, n);
}

/* Appends c to out[0..*n) unless it is there already. */
static void add_once(Config *out, int *n, const Config *c)
{
    for (int j = 0; j < *n; j++)
        if (tune_config_equal(&out[j], c))
            return;
    out[(*n)++] = *c;
}

/* Whether out[0..n) holds a configuration that fuses depth steps. */
static int has_depth(const Config *out, int n, int depth)
{
    for (int j = 0; j < n; j++)
        if (out[j].v[P_TB] == depth)
            return 1;
    return 0;
}

enum { SPREAD_DEPTHS = TUNE_SPREAD_MAX - 1 }; /* and the one-step row */

/* A run that may fuse steps opens, after the first rows, with what keeps its result from falling
 * below other depths' and the one-step kernels' (issue 33): the first row of each depth that
 * out[0..*n) lacks (at most SPREAD_DEPTHS; the rows of one radius fill the first places with
 * one depth, which loses where the step is heavier, gradient2d) and the first one-step row.
 * (The default configuration needs no place: the re-timing always times it, finalists.c.)
 * Appended to out, each once. */
static void add_spread(const TuneProblem *pb, Config *out, int *n)
{
    int count, depths = 0, one_step = 0;
    const Prior *list = table_of(pb->space, &count);
    for (int i = 0; i < count; i++) {
        Config c;
        if (depths < SPREAD_DEPTHS && row_applies(&list[i], pb, &c) && !has_depth(out, *n, c.v[P_TB])) {
            add_once(out, n, &c);
            depths++;
        }
        if (!one_step && list[i].steps == ONE_STEP && row_applies_as(&list[i], pb, &c, ROW_ONE_STEP_TOO)) {
            add_once(out, n, &c);
            one_step = 1;
        }
    }
}

/* A run that may fuse steps also times the first fused row of the other shape: a star with one
 * diagonal read is a box to stencil_shape, whose fused rows are the retimed kernels, where the
 * star's tile kernel ran tests/dist/periodic3d.st 1.35x faster (docs/priors.md, "The other
 * shape's fused row"). Appended once; its place in out, or -1. */
static int add_crossed(const TuneProblem *pb, Config *out, int *n)
{
    int count;
    const Prior *list = table_of(pb->space, &count);
    PriorFor shape = stencil_shape(pb->space->prog);
    for (int i = 0; i < count; i++) {
        Config c;
        if (list[i].when == (shape == FOR_STAR ? FOR_BOX : FOR_STAR) &&
            row_applies_as(&list[i], pb, &c, ROW_ANY_SHAPE) && c.v[P_TB] > 1) {
            int before = *n;
            add_once(out, n, &c);
            return *n > before ? before : -1;
        }
    }
    return -1;
}

/* Where the space offers hwrap=on (a distributed part whose fused steps wrap or reflect), the
 * first fused start and the crossed one again with it: the part's held kernels then wrap its
 * extended grid, which ran a periodic 3D program's part 1.15x the kernels that hold its faces
 * and the 2D reflected stars' 0.8x (docs/distributed.md). */
static void add_wrapped(const TuneProblem *pb, Config *out, int *n, int crossed)
{
    int first = -1;
    for (int j = 0; j < *n && first < 0; j++)
        if (out[j].v[P_TB] > 1)
            first = j;
    const int pick[2] = {first, crossed};
    for (int i = 0; i < 2; i++) {
        if (pick[i] < 0)
            continue;
        Config c = out[pick[i]];
        c.v[P_HWRAP] = 2;
        if (tune_problem_accepts(pb, &c))
            add_once(out, n, &c);
    }
}

int tune_priors(const TuneProblem *pb, Config *out, int max)
{
    int n, got = 0;
    const Prior *list = table_of(pb->space, &n);
    for (int i = 0; i < n && got < max; i++) {
        Config c;
        if (row_applies(&list[i], pb, &c))
            add_once(out, &got, &c);
    }
    return got;
}

int tune_priors_fused(const TuneProblem *pb, Config *out, int max)
{
    int n, got = 0;
    const Prior *list = table_of(pb->space, &n);
    for (int i = 0; i < n && got < max; i++) {
        Config c;
        if (list[i].max_halo != ANY_HALO && row_applies(&list[i], pb, &c) && c.v[P_TB] > 1)
            add_once(out, &got, &c);
    }
    return got;
}

int tune_starting_configs(const TuneProblem *pb, const Config *first, int nfirst, const TuneGuide *guide,
                          int want, Config *out)
{
    int n = 0;
    Config more[8];
    for (int i = 0; i < nfirst && i < TUNE_MAX_FIRST; i++)
        if (tune_problem_accepts(pb, &first[i]))
            add_once(out, &n, &first[i]);
    want = want < 8 ? want : 8;
    int nm = guide && tune_guide_model(guide) && pb->space->prog && want > 0
                 ? tune_guide_priors(guide, pb, more, want) : 0;
    for (int i = 0; i < nm; i++)
        add_once(out, &n, &more[i]);
    int nt = want > 0 ? tune_priors(pb, more, want) : 0;
    for (int i = 0; i < nt; i++)
        add_once(out, &n, &more[i]);
    if (want > 0 && tune_space_fuses(pb->space)) {
        add_spread(pb, out, &n);
        int crossed = add_crossed(pb, out, &n);
        add_wrapped(pb, out, &n, crossed);
    }
    return n;
}

int tune_prior_rows(int dims, Config *out, int max)
{
    int n, got = 0;
    const Prior *list = table_of_dims(dims, &n);
    for (int i = 0; i < n && got < max; i++) {
        char why[256];
        if (config_parse(list[i].config, dims, &out[got], why, sizeof why) == 0)
            got++;
    }
    return got;
}
