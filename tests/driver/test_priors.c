/* GeST's prior configurations (tuner/priors.c) on the real spaces of the 21 benchmark stencils
 * at their benchmark grids (8192^2, 512^3), one step and 100 steps: every prior the search takes
 * is valid there, a longer list starts with the shorter; a 2D star's one step takes streaming
 * with shared-memory planes, a 3D box's one step first the retimed 256x4 tile with prefetching,
 * then the 32x16 tile of 512 planes, and the
 * shared-memory merging priors come last (`priors=6`, bench's gest-smem); a multi-step run takes
 * the temporal prior of its shape, retimed for a box, and a 3D star's also the two cyclic
 * kernels (of points and of float2 pairs); a 3D star's one step also the cyclic kernel with its
 * halo columns stored (hcol); a 2D star's one step of even radius also star2d4r's merging kernel
 * with float4 accesses; a 2D box's one step, second, box2d2r's shared-memory merging kernel with
 * its halo columns stored, third, box2d3r's merging kernel with float2 accesses; a 3D box's one
 * step in double, the 128x4 tile first. No GPU needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../frontend/ast.h"
#include "check.h"
#include "load_program.h"
#include "../../tuner/tune_int.h"


static int has_smem(const Config *c)
{
    return c->v[P_SMEM] == 2;
}

/* The benchmarks whose step reads off-axis points in other planes (priors.c's boxes). */
static int is_box_name(const char *name)
{
    return !strncmp(name, "box", 3) || !strcmp(name, "j3d27pt") || !strcmp(name, "j2d9pt-gol");
}

/* The tuning problem of steps steps of p on grid, over the space *s it sets up (distributed: a
 * distributed run's part's). */
static TuneProblem problem_on(Space *s, const IrProgram *p, const long grid[3], long steps, int distributed)
{
    if (distributed)
        space_init_distributed(s, p, grid);
    else
        space_init(s, p, grid);
    space_set_steps(s, steps);
    return (TuneProblem){s, tune_space_valid, s};
}

static TuneProblem problem_of(Space *s, const IrProgram *p, const long grid[3], long steps)
{
    return problem_on(s, p, grid, steps, 0);
}

/* The first four priors GeST takes for 1000 steps of 2D program p on a side x side grid. */
static int four_priors_2d(const IrProgram *p, long side, Config four[4])
{
    long grid[3] = {side, side, 1};
    Space s;
    TuneProblem pb = problem_of(&s, p, grid, 1000);
    return tune_priors(&pb, four, 4);
}

/* A run that may fuse steps opens, after the first four rows, with the first row of each other
 * depth and the first one-step row (priors.c, add_spread): gradient2d's
 * four fuse 16 steps (the 5-point stars' rows) where its own best fuses 8 (556 GStencil/s against
 * 394 for a 10 s search without it, H200), and its one-step winner, a one-step row, was not among
 * them either. A one-step run opens with the four alone. */
static void check_spread(void)
{
    Arena *arena = arena_new();
    IrProgram *grad = load_example("bench/gradient2d.st", arena);
    CHECK(grad != NULL);
    for (long steps = 1; grad && steps <= 1000; steps *= 1000) {
        long grid[3] = {8192, 8192, 1};
        Space s;
        TuneProblem pb = problem_of(&s, grad, grid, steps);
        Config out[TUNE_STARTS_MAX];
        int n = tune_starting_configs(&pb, NULL, 0, NULL, 4, out), eight = 0, smem = 0;
        for (int k = 0; k < n; k++) {
            CHECK(tune_problem_accepts(&pb, &out[k]));
            eight += out[k].v[P_TB] == 8;
            smem += has_smem(&out[k]) && out[k].v[P_STREAM] == 2 && out[k].v[P_TB] == 1;
        }
        if (steps == 1)
            CHECK(n == 4 && eight == 0);
        else
            CHECK(n > 4 && n <= 4 + TUNE_SPREAD_MAX + 1 && eight >= 1 && smem == 1);
    }
    arena_free(arena);
}

/* A 2D star's multi-step run on a small grid takes the 128-wide fused priors first (gray_scott at
 * 2048^2: 369.9 GStencil/s against 173.9 for 256 x 256, wave2d at 4096^2 431.3 against 292.6,
 * H100); on 8192^2 it does not take them. */
static void check_small_grid(void)
{
    Arena *arena = arena_new();
    IrProgram *p = load_example("reaction_diffusion.st", arena);
    CHECK(p != NULL);
    for (long side = 2048; p && side <= 8192; side *= 4) {
        Config four[4];
        int n = four_priors_2d(p, side, four), small = 0;
        for (int k = 0; k < n; k++)
            small += four[k].v[P_TB] == 12 && four[k].v[P_TBX] == 128 && four[k].v[P_SB] == 64;
        CHECK(n == 4 && small == (side == 2048));
        CHECK(side > 2048 || (four[1].v[P_TBX] == 128 && four[1].v[P_SB] == 64 &&
                              four[2].v[P_TB] == 16 && four[2].v[P_SB] == 128));
    }
    arena_free(arena);
}

/* A star that reads a coef field refuses the select=on rows, so on a grid above 4096^2 it takes
 * the 16-step 128-wide row at any size (2d-star-tblock16-any: wave2d at 8192^2 644.7 GStencil/s
 * against 496.7 for a 10 s search without it, H200), third; star2d1r's four keep the select rows. */
static void check_coef_star(void)
{
    Arena *arena = arena_new();
    IrProgram *wave = load_example("wave2d.st", arena);
    IrProgram *star = load_example("bench/star2d1r.st", arena);
    CHECK(wave != NULL && star != NULL);
    for (int big = 0; wave && star && big < 2; big++) {
        Config four[4];
        int n = four_priors_2d(wave, big ? 8192 : 4096, four), sixteen = 0;
        for (int k = 0; k < n; k++)
            sixteen += four[k].v[P_TB] == 16 && four[k].v[P_TBX] == 128 && four[k].v[P_SB] == 128 &&
                       four[k].v[P_SELECT] != 2;
        CHECK(n == 4 && sixteen == 1);
        CHECK(!big || (four[2].v[P_TB] == 16 && four[2].v[P_SB] == 128));
        n = four_priors_2d(star, 8192, four);
        for (int k = 1; k < n; k++)
            CHECK(four[k].v[P_SELECT] == 2);
    }
    arena_free(arena);
}

/* A symmetric radius-1 star that reflects or wraps takes the two-column fused rows, then the same
 * held over extended copies (2d-star-tblock16-r1-cols2-hold: mirror 1528 -> 1782 GStencil/s at
 * 8192^2, H200), fourth; with a fixed boundary hold=on is not in the space and the row is skipped. */
static void check_hold(void)
{
    Arena *arena = arena_new();
    const IrProgram *star = load_example("../tests/programs/symstar2d.st", arena);
    CHECK(star != NULL);
    for (int bc = 0; star && bc < 4; bc++) {
        IrProgram copy = *star;
        IrField field = star->fields[0];
        const BoundaryKind kinds[4] = {BC_MIRROR, BC_CLAMP, BC_PERIODIC, BC_FIXED};
        ir_bc_set(&field, kinds[bc], 0.0);
        copy.fields = &field;
        Config four[4];
        int n = four_priors_2d(&copy, 8192, four), held = 0;
        for (int k = 0; k < n; k++)
            held += four[k].v[P_HOLD] == 2;
        CHECK(n == 4 && held == (kinds[bc] != BC_FIXED));
        CHECK(kinds[bc] == BC_FIXED || (four[3].v[P_HOLD] == 2 && four[3].v[P_BMX] == 2));
    }
    arena_free(arena);
}

/* A 2D star of radius 3 takes the 6-step fused prior at 64 registers among its first four
 * multi-step priors (star2d3r: 581.7 GStencil/s against 548.0, H100); radius 1, 2 and 4 do not.
 * Radius 1 takes the 16-step one with its points selected (star2d1r 1493.7 against 1444.7 for 12
 * steps branched, j2d5pt 1507.6 against 1392.2); the others do not. Each radius takes, before
 * them, its fused row of two columns a thread (H100: star2d1r 1740 against 1500, star2d2r 960
 * against 890, star2d3r 694 against 637, star2d4r 522 against 485), and radius 1 that row at 128
 * registers too (H200: star2d1r 1840 against 1765, its clamp 1482 against 1351). */
static void check_radius3(void)
{
    static const char *const names[] = {"star2d1r", "star2d2r", "star2d3r", "star2d4r"};
    for (int r = 0; r < 4; r++) {
        char rel[64];
        snprintf(rel, sizeof rel, "bench/%s.st", names[r]);
        Arena *arena = arena_new();
        IrProgram *p = load_example(rel, arena);
        CHECK(p != NULL);
        if (p) {
            Config four[4];
            int n = four_priors_2d(p, 8192, four), six = 0, sixteen = 0, cols2 = -1, capped = 0;
            for (int k = 0; k < n; k++) {
                six += four[k].v[P_TB] == 6 && four[k].v[P_MAXREG] == 64 && four[k].v[P_TBX] == 256;
                sixteen += four[k].v[P_TB] == 16 && four[k].v[P_MAXREG] == 64 && four[k].v[P_SELECT] == 2;
                capped += four[k].v[P_BMX] == 2 && four[k].v[P_MAXREG] == 128;
                if (four[k].v[P_BMX] == 2 && four[k].v[P_STREAM] == 2 && cols2 < 0)
                    cols2 = four[k].v[P_TB];
            }
            CHECK(n == 4 && six == (r == 2) && sixteen == (r == 0) && capped == (r == 0));
            CHECK(cols2 == (r == 0 ? 16 : r == 1 ? 8 : r == 2 ? 6 : 4));
        }
        arena_free(arena);
    }
}

/* The rows of 3D fused steps: star3d1r's first four multi-step priors hold the four-column kernel
 * with its points selected (select=on: 630 GStencil/s against 582 branched, H100); its whole
 * list holds the branching form too, which a step reading a coef field (where select=on is
 * refused) takes in its place. */
static void check_select_3d(void)
{
    Arena *arena = arena_new();
    IrProgram *p = load_example("bench/star3d1r.st", arena);
    CHECK(p != NULL);
    for (int max = 4; p && max <= 32; max *= 8) {
        long grid[3] = {512, 512, 512};
        Space s;
        TuneProblem pb = problem_of(&s, p, grid, 100);
        Config all[32];
        int n = tune_priors(&pb, all, max), selected = 0, branched = 0;
        for (int k = 0; k < n; k++) {
            int cols4 = all[k].v[P_TB] == 3 && all[k].v[P_BMY] == 4;
            selected += cols4 && all[k].v[P_SELECT] == 2;
            branched += cols4 && all[k].v[P_SELECT] == 1;
        }
        CHECK(selected == 1 && branched == (max > 4));
    }
    arena_free(arena);
}

/* A distributed part whose fused steps wrap (star3d1r made periodic, 512^3, 300 steps): the
 * starts hold the first fused one and the crossed one again with hwrap=on (priors.c,
 * add_wrapped); one GPU's space offers no hwrap for it, and the fixed star's part takes none. */
static void check_wrapped(void)
{
    Arena *arena = arena_new();
    IrProgram *p = load_example("bench/star3d1r.st", arena);
    CHECK(p != NULL);
    for (int periodic = 0; p && periodic < 2; periodic++)
        for (int dist = 0; dist < 2; dist++) {
            for (int f = 0; periodic && f < p->nfields; f++)
                if (p->fields[f].role == ROLE_STATE)
                    ir_bc_set(&p->fields[f], BC_PERIODIC, 0.0);
            long grid[3] = {512, 512, 512};
            Space s;
            TuneProblem pb = problem_on(&s, p, grid, 300, dist);
            Config out[TUNE_STARTS_MAX];
            int n = tune_starting_configs(&pb, NULL, 0, NULL, 4, out), wrapped = 0;
            for (int k = 0; k < n; k++) {
                CHECK(tune_problem_accepts(&pb, &out[k]));
                wrapped += out[k].v[P_HWRAP] == 2 && out[k].v[P_TB] > 1;
            }
            CHECK((wrapped > 0) == (periodic && dist) && wrapped <= 2);
        }
    arena_free(arena);
}

/* A run that may fuse steps times the other shape's first fused row too (add_crossed): a star
 * with one diagonal read (tests/dist/periodic3d.st, a box to the priors, whose fused rows are
 * retimed) gets the star's tile kernel, the box3d1r benchmark the star's fused row, and a
 * one-step run neither. */
static void check_crossed(void)
{
    Arena *arena = arena_new();
    char path[512];
    const char *root = getenv("STC_SOURCE_ROOT");
    snprintf(path, sizeof path, "%s/tests/dist/periodic3d.st", root ? root : ".");
    IrProgram *progs[2] = {load_program(path, arena), load_example("bench/box3d1r.st", arena)};
    for (int i = 0; i < 2; i++) {
        CHECK(progs[i] != NULL);
        for (long steps = 1; progs[i] && steps <= 300; steps *= 300) {
            long grid[3] = {512, 512, 512};
            Space s;
            TuneProblem pb = problem_of(&s, progs[i], grid, steps);
            Config out[TUNE_STARTS_MAX];
            int n = tune_starting_configs(&pb, NULL, 0, NULL, 4, out), tile = 0;
            for (int k = 0; k < n; k++)
                tile += out[k].v[P_TB] > 1 && out[k].v[P_RETIME] != 2;
            CHECK(steps == 1 ? tile == 0 : tile >= 1);
        }
    }
    arena_free(arena);
}

int main(void)
{
    static const char *const names[] = {
        "star2d1r", "star2d2r", "star2d3r", "star2d4r", "box2d1r",  "box2d2r",  "box2d3r",
        "box2d4r",  "j2d5pt",   "j2d9pt",   "j2d9pt-gol", "gradient2d", "star3d1r", "star3d2r",
        "star3d3r", "star3d4r", "box3d1r",  "box3d2r",  "box3d3r",  "box3d4r",  "j3d27pt"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "bench/%s.st", names[i]);
        Arena *arena = arena_new();
        IrProgram *p = load_example(rel, arena);
        CHECK(p != NULL);
        if (!p) {
            arena_free(arena);
            continue;
        }
        long grid[3] = {p->dims == 2 ? 8192 : 512, p->dims == 2 ? 8192 : 512, p->dims == 2 ? 1 : 512};
        for (int steps = 1; steps <= 100; steps += 99) {
            Space s;
            TuneProblem pb = problem_of(&s, p, grid, steps);
            Config all[32], six[16], four[16];
            int nall = tune_priors(&pb, all, 32);
            int n6 = tune_priors(&pb, six, 6);
            int n4 = tune_priors(&pb, four, 4);
            char why[256];
            CHECK(n4 == 4 && n6 >= n4); /* 3D one-step runs have five valid, box3d3r/4r four */
            for (int k = 0; k < n6; k++) {
                int ok = space_check(&s, &six[k], why, sizeof why);
                if (!ok)
                    fprintf(stderr, "%s, %d steps, prior %d: %s\n", names[i], steps, k, why);
                CHECK(ok);
            }
            for (int k = 0; k < n4 && k < n6; k++) /* a longer list starts with the shorter */
                CHECK(tune_config_equal(&four[k], &six[k]));
            int smem4 = 0, smem6 = 0, smem_all = 0;
            for (int k = 0; k < n4; k++)
                smem4 += has_smem(&four[k]);
            for (int k = 0; k < n6; k++)
                smem6 += has_smem(&six[k]);
            for (int k = 0; k < nall; k++)
                smem_all += has_smem(&all[k]);
            for (int k = 0; k < n6 && k < nall; k++)
                CHECK(tune_config_equal(&six[k], &all[k]));
            if (!strcmp(names[i], "box3d2r") && steps == 1) {
                /* the 120 s search's best (157 GStencil/s, 145 without prefetch and maxreg) */
                int found = 0;
                for (int k = 0; k < n4; k++)
                    found |= four[k].v[P_PREFETCH] == 2 && four[k].v[P_MAXREG] == 32 && four[k].v[P_SB] == 256;
                CHECK(found);
            }
            if (p->dims == 3 && is_box_name(names[i])) {
                /* a 3D box of radius 1 starts its one step from four rows a thread of a 256x4
                 * tile (354 GStencil/s against 320 for one row on an H200), its multi-step runs
                 * from eight rows with the planes copied asynchronously (an H200 ran the one-step
                 * kernels faster than the fused ones, and that one fastest: 389); its one step
                 * then from those eight rows, the eight rows through registers under a cap of 128
                 * and box3d1r's earlier best (retimed streaming with prefetching, 256x4, 32
                 * registers); the wider ones' one step from two rows a thread of 32x8 (their
                 * 256x4 is slow), their multi-step runs from the 128x4 tile */
                int rows4 = four[0].v[P_TBX] == 256 && four[0].v[P_TBY] == 1 && four[0].v[P_BMY] == 4 &&
                            four[0].v[P_PREFETCH] == 2 && four[0].v[P_SB] == 64;
                int rows8 = four[0].v[P_TBX] == 256 && four[0].v[P_TBY] == 1 && four[0].v[P_BMY] == 8 &&
                            four[0].v[P_ASYNC] == 2 && four[0].v[P_PREFETCH] == 1;
                int small = four[0].v[P_TBX] == 128 && four[0].v[P_TBY] == 4 && four[0].v[P_SB] == 64;
                int rows2 = four[0].v[P_TBX] == 32 && four[0].v[P_TBY] == 8 && four[0].v[P_BMY] == 2;
                CHECK(p->halo[0] == 1 ? (steps == 1 ? rows4 : rows8) : steps == 1 ? rows2 : small);
                if (p->halo[0] == 1)
                    CHECK(steps == 1 ? four[1].v[P_TBX] == 256 && four[1].v[P_BMY] == 8 && four[1].v[P_ASYNC] == 2 &&
                                           four[2].v[P_BMY] == 8 && four[2].v[P_MAXREG] == 128 &&
                                           four[2].v[P_ASYNC] == 1 && four[2].v[P_PREFETCH] == 2 &&
                                           four[3].v[P_TBX] == 256 && four[3].v[P_TBY] == 4 && four[3].v[P_MAXREG] == 32
                                     : four[1].v[P_TBX] == 128 && four[1].v[P_TBY] == 4 && four[1].v[P_SB] == 64);
            }
            if (p->dims == 3 && is_box_name(names[i]) && steps == 1) {
                /* in double, a 3D box's one step starts from a 128x8 tile (four rows a thread
                 * at radius 1: 206.9 GStencil/s against 193.6 for 128x4 on an H200) and the
                 * 128x4 tile: with the float 256x4 one first, 10 s searches chose 64x8 tiles at
                 * 140 GStencil/s for box3d1r and j3d27pt, against 158 for 128x4 (H100) */
                IrProgram *pd = load_example(rel, arena);
                ir_set_type(pd, ELEM_DOUBLE);
                Space sd;
                TuneProblem pbd = problem_of(&sd, pd, grid, 1);
                Config d4[4];
                int nd = tune_priors(&pbd, d4, 4);
                int r = p->halo[0] == 1; /* the rows' row first at radius 1 */
                CHECK(nd == 4 && d4[0].v[P_TBX] == 128 && d4[0].v[P_TBY] == (r ? 2 : 4) && d4[0].v[P_SB] == 64);
                CHECK(d4[0].v[P_BMY] == (r ? 4 : 1));
                CHECK(!r || (d4[1].v[P_TBX] == 128 && d4[1].v[P_TBY] == 4 && d4[1].v[P_BMY] == 1));
                for (int k = 0; k < nd; k++)
                    CHECK(!(d4[k].v[P_TBX] == 256 && d4[k].v[P_MAXREG] == 32));
            }
            if (!strcmp(names[i], "star3d1r") && steps == 100) {
                int found = 0; /* fusing 3 steps: 481 GStencil/s against 412 with 2 */
                for (int k = 0; k < n4; k++)
                    found |= four[k].v[P_TB] == 3;
                CHECK(found);
            }
            int is_box = is_box_name(names[i]);
            /* vector accesses: a 3D star's one step starts from two kernels with them, merging
             * 2x2 (up to radius 2) and cyclic merging of pairs (star3d2r's and star3d4r's
             * fastest), its multi-step runs from the second; a 2D star's one step, where float4 rows fit (an even halo on
             * 8192 columns), from merging 4x2 with float4 accesses (star2d4r's 20-minute best,
             * 356 GStencil/s against 322 for the streaming prior its 60 s part chose) */
            int vec4_star = p->dims == 2 && !is_box && steps == 1 && p->halo[0] % 2 == 0;
            int vec = 0, vec_cyclic = 0, vec4 = 0;
            for (int k = 0; k < n4; k++) {
                vec += four[k].v[P_VEC] > 1;
                vec_cyclic += four[k].v[P_VEC] > 1 && four[k].v[P_CMX] > 1;
                vec4 += four[k].v[P_VEC] == 4 && four[k].v[P_BMX] == 4 && four[k].v[P_BMY] == 2;
            }
            int box2d_one = p->dims == 2 && is_box && steps == 1;
            CHECK(vec == (p->dims == 3 && !is_box) * (steps == 1 && p->halo[0] <= 2 ? 2 : 1) + vec4_star +
                             box2d_one);
            /* a 3D star of radius 3: cyclic merging over 8 z planes, third (star3d3r's best on
             * both GPUs: 0.506 ms a step against 0.527 over 4 planes in its 20-minute reference
             * on the H100, 292.5 GStencil/s against 271.1 for a 20 s guided search without it
             * on the H200), one step and several */
            int z8 = 0;
            for (int k = 0; k < n4; k++)
                z8 += four[k].v[P_CMX] == 8 && four[k].v[P_CMZ] == 8 && four[k].v[P_VEC] == 1;
            CHECK(z8 == (p->dims == 3 && !is_box && p->halo[0] == 3));
            CHECK(vec4 == vec4_star);
            CHECK(vec_cyclic == (p->dims == 3 && !is_box)); /* multi-step runs too */
            /* and from cyclic merging of 8 x points (star3d1r's long best), multi-step runs too
             * (a 3D star beyond radius 1 runs faster step by step than temporally blocked); a
             * one-step run also from the same with the halo columns stored (star3d1r 341) */
            int cyclic = 0, hcol = 0;
            for (int k = 0; k < n4; k++) {
                cyclic += four[k].v[P_CMX] == 8 && four[k].v[P_CMZ] == 4 && four[k].v[P_TB] == 1;
                hcol += four[k].v[P_HCOL] == 2;
            }
            CHECK(cyclic == (p->dims == 3 && !is_box) * (steps == 1 ? 2 : 1));
            CHECK(hcol == ((p->dims == 3 && !is_box && steps == 1) || box2d_one));
            /* a 2D box's one step: second, box2d2r's 20-minute best (a shared-memory tile with 16
             * rows merged and the halo columns stored: 340 GStencil/s against 329 for the
             * streaming kernel its 60 s part chose); third, box2d3r's (merging 2x8 with float2
             * accesses, 64 registers: 321 against 268), which 60 s runs of box2d2r-4r then chose
             * or refined (box2d4r 283 GStencil/s, its 20-minute search's best 238) */
            if (box2d_one) {
                CHECK(n4 >= 3);
                CHECK(has_smem(&four[1]) && four[1].v[P_BMY] == 16 && four[1].v[P_UFY] == 8 &&
                      four[1].v[P_HCOL] == 2 && four[1].v[P_STREAM] == 1);
                CHECK(four[2].v[P_VEC] == 2 && four[2].v[P_BMX] == 2 && four[2].v[P_BMY] == 8 &&
                      four[2].v[P_UFX] == 2 && four[2].v[P_UFY] == 8 && four[2].v[P_MAXREG] == 64 &&
                      four[2].v[P_TBX] == 64 && four[2].v[P_TBY] == 4);
            }
            int wide = p->dims == 3 && p->halo[0] >= 3; /* too wide a halo for the temporal priors' tiles */
            if (steps == 100) {
                /* temporal blocking: retimed for a box (box2d2r 488 GStencil/s against 294), plain
                 * for a star (j2d9pt 729 against 681); a 2D box of radius 1 plain too, with two
                 * columns a thread, first (box2d1r 1171 against 852 retimed, H100) */
                int retimed = 0, plain = 0;
                for (int k = 0; k < n4; k++) {
                    retimed += four[k].v[P_TB] > 1 && four[k].v[P_RETIME] == 2;
                    plain += four[k].v[P_TB] > 1 && four[k].v[P_RETIME] == 1;
                }
                int box2d_cols = p->dims == 2 && is_box && p->halo[0] == 1;
                if (wide)
                    CHECK(retimed == 0 && plain == 0);
                else if (box2d_cols)
                    CHECK(retimed >= 1 && plain == 1 && four[1].v[P_BMX] == 2 && four[1].v[P_TB] == 8);
                else if (is_box)
                    CHECK(retimed >= 1 && plain == 0);
                else
                    CHECK(retimed == 0 && plain >= 1);
                /* in 3D at radius 1, in float, the temporal kernel with several columns a thread
                 * first (star3d1r 512 GStencil/s with four against 475 with one; box3d1r 316
                 * with two against 301), at radius 2 and beyond not at all */
                int cols = 0;
                for (int k = 0; k < n4; k++)
                    cols += four[k].v[P_TB] > 1 && four[k].v[P_BMY] > 1;
                if (p->dims == 3 && p->type == ELEM_FLOAT)
                    CHECK(cols == (p->halo[0] == 1));
            }
            int streamed_smem = 0, box3d_wide = 0;
            for (int k = 0; k < n4; k++) {
                streamed_smem += has_smem(&four[k]) && four[k].v[P_STREAM] == 2 && four[k].v[P_SB] == 8;
                box3d_wide += four[k].v[P_SB] == 512 && four[k].v[P_TBX] == 32 &&
                              four[k].v[P_TBY] * four[k].v[P_BMY] == 16;
            }
            if (p->dims == 2 && steps == 1) {
                /* A star's one step starts from streaming with shared-memory planes (star2d2r 361
                 * GStencil/s against 320-350); a box's does not (box2d2r 238 against 329). */
                CHECK(streamed_smem == !is_box);
                /* the shared-memory merging priors: last, the first of them at priors=6 (7
                 * where star2d4r's float4 kernel fits), not at the default (but for gradient2d,
                 * whose retimed prior is invalid: its sum is not linear) */
                CHECK(has_smem(&all[nall - 1]));
                if (is_box) /* box2d2r's best second, the merging ones at priors=7 and after */
                    CHECK(smem4 == 1 && smem6 == 1 && smem_all == 3 && has_smem(&all[nall - 2]));
                else
                    CHECK(smem4 == 1 && smem_all == 3 &&
                          smem6 == (strcmp(names[i], "gradient2d") ? 2 : 3) - vec4_star);
            } else
                CHECK(streamed_smem == 0); /* only for one step in 2D */
            /* box3d3r's 20-minute best (32x16, 512 planes; now as two rows a thread of 32x8) for
             * a 3D box's one step and its steps beyond radius 1 (box3d2r's 10 s multi-step
             * search chose its four-row form, 174.9 GStencil/s against 156.0, H100); at radius
             * 1 four rows, eight rows (both forms) and the 256x4 tile fill the four */
            CHECK(!!box3d_wide == (p->dims == 3 && is_box && p->halo[0] >= 2));
        }
        arena_free(arena);
    }
    check_spread();
    check_wrapped();
    check_crossed();
    check_small_grid();
    check_radius3();
    check_select_3d();
    check_coef_star();
    check_hold();
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        printf("ok\n");
    return failures ? 1 : 0;
}
