/* The exchange depth and overlap of a distributed run (codegen/dist_model.c): the model on
 * hand-made inputs, and the candidates that the generated code allows for hand-built plans. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "hand_ir.h"

/* A 512^3 float part of star3d1r in slabs along z (1x1x4): one 1.06 MB face per step. With
 * overlap (1: of a kernel whose blocks are short-lived, 2: long-lived, as a fused kernel's), the
 * depth-1 candidate again with overlap. */
static CgDistChoice slabs(double link_gbs, const double t_local_ms[4], int with_overlap)
{
    CgDistChoice c = {.dims = 3, .global = {512, 512, 2048}, .procs = {1, 1, 4}, .link_gbs = link_gbs,
                      .owned_volume = 512.0 * 512 * 512, .long_blocks = with_overlap == 2};
    snprintf(c.link, sizeof c.link, "test");
    for (int i = 0; i < 4; i++) {
        CgDistCand *k = &c.cand[c.ncand++];
        k->depth = i + 1;
        k->volume = 512.0 * 512 * (512 + 2 * i);
        k->t_local_ms = t_local_ms[i];
        k->bytes[2] = 514.0 * 514 * 4;
    }
    if (with_overlap) { /* slabs: three launches, all of the interior beside the exchange */
        c.cand[c.ncand] = c.cand[0];
        c.cand[c.ncand].interior = 1;
        c.cand[c.ncand].launches = 3;
        c.cand[c.ncand++].overlap = 1;
    }
    return c;
}

static const CgDistCand *chosen(const CgDistChoice *c)
{
    assert(c->chosen >= 0 && c->chosen < c->ncand);
    return &c->cand[c->chosen];
}

/* The doc's check: 20 us + 1.06 MB / 390 GB/s = 23 us a step at depth 1 on NVLink. Where the
 * extra layers cost little, deeper halos win (a / K); where they cost much, depth 1 does. */
static void depth_by_local_cost(void)
{
    const double flat[4] = {0.312, 0.3122, 0.3124, 0.3126}, steep[4] = {0.312, 0.330, 0.350, 0.370};
    CgDistChoice c = slabs(390, flat, 0);
    cg_dist_choose(&c);
    assert(c.cand[0].t_x_ms > 0.0225 && c.cand[0].t_x_ms < 0.0235);
    assert(chosen(&c)->depth == 4);
    assert(chosen(&c)->efficiency > c.cand[0].efficiency);
    c = slabs(390, steep, 0);
    cg_dist_choose(&c);
    assert(chosen(&c)->depth == 1);
    /* a tie keeps the smaller depth: 0.300 + 20 us against 0.310 + 10 us */
    const double tie[4] = {0.300, 0.310, 0.330, 0.340};
    c = slabs(390, tie, 0);
    cg_dist_choose(&c);
    assert(chosen(&c)->depth == 1);
}

/* Overlap hides the whole exchange, fixed cost and bandwidth, up to the interior's time, at
 * 8.5 us for its split step: on NVLink it beats the deeper halos where their layers cost what
 * the part's volume says (star3d1r on 2 H200s), and on a slow link between nodes it wins by far. */
static void overlap_by_link(void)
{
    const double scaled[4] = {0.3121, 0.3134, 0.3146, 0.3158}, flat[4] = {0.312, 0.3122, 0.3124, 0.3126};
    CgDistChoice c = slabs(390, scaled, 1);
    cg_dist_choose(&c);
    assert(chosen(&c)->overlap && chosen(&c)->depth == 1);
    assert(fabs(chosen(&c)->t_x_ms - 0.0085) < 1e-9); /* all of the 23 us hidden */
    /* where the extra layers cost next to nothing, depth 4 (5 + 2.7 us) beats the split step */
    c = slabs(390, flat, 1);
    cg_dist_choose(&c);
    assert(!chosen(&c)->overlap && chosen(&c)->depth == 4);
    c = slabs(25, flat, 1);
    cg_dist_choose(&c);
    assert(chosen(&c)->overlap && chosen(&c)->depth == 1);
    assert(chosen(&c)->t_x_ms < c.cand[3].t_x_ms);
    /* an interior shorter than the exchange hides only its own time */
    const double tiny[4] = {0.010, 0.0101, 0.0102, 0.0103};
    c = slabs(25, tiny, 1);
    cg_dist_choose(&c);
    const CgDistCand *o = &c.cand[4];
    assert(o->overlap && fabs(o->t_x_ms - (c.cand[0].t_x_ms - 0.010 + 0.0085)) < 1e-9);
    /* a fused kernel's overlapped launch costs 90 us (2 H200s): not worth it on NVLink, worth it
     * on the slow link */
    c = slabs(390, scaled, 2);
    cg_dist_choose(&c);
    assert(!chosen(&c)->overlap);
    c = slabs(25, scaled, 2);
    c.cand[4].depth = 3; /* a kernel of 3 fused steps: one overlapped launch a group of 3 */
    cg_dist_choose(&c);
    assert(chosen(&c)->overlap && fabs(chosen(&c)->t_x_ms - 0.030) < 1e-9);
    /* pencils, five launches: 8.5 + 2 x 6.75 us with short-lived blocks (star3d1r over 1x2x2 on
     * 4 H200s: overlap beats depth 1 without it), 90 + 2 x 12.5 with long-lived ones (box3d1r's
     * streaming kernel: it loses to depth 1) */
    c = slabs(390, scaled, 1);
    c.cand[4].launches = 5;
    cg_dist_choose(&c);
    assert(fabs(c.cand[4].t_x_ms - 0.022) < 1e-9 && c.cand[4].t_step_ms < c.cand[0].t_step_ms);
    c = slabs(390, scaled, 2);
    c.cand[4].launches = 5;
    cg_dist_choose(&c);
    assert(fabs(c.cand[4].t_x_ms - 0.115) < 1e-9 && c.cand[4].t_step_ms > c.cand[0].t_step_ms);
    /* the same slow link without the code's overlap: the bandwidth stays, deeper halos only
     * cut the fixed cost */
    c = slabs(25, flat, 0);
    cg_dist_choose(&c);
    assert(!chosen(&c)->overlap && chosen(&c)->depth == 4);
    char line[512];
    cg_dist_summary(&c, line, sizeof line);
    assert(strstr(line, "chose depth 4 over 1x1x4 on test: "));
    assert(strstr(line, "; against depth 1 "));
}

/* hb_example leaves the stages' radii and the bytes per point to the analyses: set them. */
static IrProgram *example(Arena *a, int which)
{
    IrProgram *p = hb_example(a, which);
    for (int s = 0; s < p->nstages; s++)
        for (int i = 0; i < p->stages[s].nnodes; i++) {
            const IrNode *n = &p->stages[s].nodes[i];
            for (int d = 0; n->op == N_READ && d < 3; d++)
                if (abs(n->off[d]) > p->stages[s].radius[d])
                    p->stages[s].radius[d] = abs(n->off[d]);
        }
    p->an.bytes_per_point = 2 * ir_elem_size(p);
    return p;
}

static int has_depth(const CgDistChoice *c, int depth, int overlap)
{
    for (int i = 0; i < c->ncand; i++)
        if (c->cand[i].depth == depth && c->cand[i].overlap == overlap)
            return 1;
    return 0;
}

/* What the generated code allows: a kernel that fuses T steps gets multiples of T; overlap for
 * one kernel a step (at depth 1, or at T for a fused one), slabs of the outermost axis at least
 * two sent slabs thick; thin parts drop deep candidates. */
static void candidates_of_plans(Arena *a)
{
    char why[256];
    CgDistChoice c;
    IrProgram *star = example(a, 0); /* star2d1r, float, radius 1 */
    const long global[3] = {4096, 4096, 1}, rows[3] = {1, 4, 1}, pencils[3] = {2, 2, 1};

    Plan *plain = hb_plan(a, star, "tb=32x8");
    assert(cg_dist_prepare(plain, global, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(c.ncand == 5 && has_depth(&c, 1, 0) && has_depth(&c, 4, 0) && has_depth(&c, 1, 1));
    assert(c.cand[0].bytes[1] > 0 && c.cand[0].bytes[0] == 0);
    assert(c.cand[3].volume > c.cand[0].volume);
    /* x is split too: the blocks way, five launches (two edges per axis, the interior), the
     * interior 62 of 64 blocks of 32 columns and 254 of 256 of 8 rows */
    assert(cg_dist_prepare(plain, global, pencils, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(c.ncand == 5 && has_depth(&c, 1, 1));
    const CgDistCand *o = &c.cand[4];
    assert(o->overlap && o->launches == 5 && fabs(o->interior - 62.0 / 64 * 254.0 / 256) < 1e-12);
    assert(c.cand[0].bytes[0] > 0 && c.cand[0].bytes[1] > 0);
    const long small[3] = {64, 64, 1}; /* parts one block of 32 wide: no interior range in x */
    assert(cg_dist_prepare(plain, small, pencils, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(!has_depth(&c, 1, 1));
    assert(cg_dist_prepare(plain, global, rows, 3, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(c.ncand == 1 && c.given && c.cand[0].depth == 3); /* --depth: no search */

    /* block life: 8 rows a block of 8 threads is a point a thread; streaming 256 rows a block
     * is 256 (long-lived: an overlapped step costs more) */
    assert(cg_dist_prepare(plain, global, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(!c.long_blocks);
    Plan *stream = hb_plan(a, star, "tb=32x1,stream=y,sb=256");
    assert(cg_dist_prepare(stream, global, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(c.long_blocks);

    Plan *fused = hb_plan(a, star, "tb=32x8,tblock=2");
    assert(fused->step_count == 2);
    assert(cg_dist_prepare(fused, global, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(c.ncand == 5 && has_depth(&c, 2, 0) && has_depth(&c, 4, 0) && has_depth(&c, 6, 0) &&
           has_depth(&c, 8, 0) && !has_depth(&c, 1, 0) && has_depth(&c, 2, 1) && !has_depth(&c, 4, 1));
    cg_dist_choose(&c);
    assert(chosen(&c)->depth % 2 == 0);

    /* parts of 5 rows: depth 5 at most with radius 1; 2 x 2 fits, 2 x 3 does not; no overlap:
     * the fused kernel's blocks write 28 rows, the part has one block and no interior range */
    const long thin[3] = {4096, 20, 1};
    assert(cg_dist_prepare(fused, thin, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(c.ncand == 2 && has_depth(&c, 2, 0) && has_depth(&c, 4, 0) && !has_depth(&c, 2, 1));
    const long taller[3] = {4096, 4 * 64, 1}; /* 64 rows: blocks 0 and 2 edges, 1 the interior */
    assert(cg_dist_prepare(fused, taller, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(has_depth(&c, 2, 1) && fabs(c.cand[c.ncand - 1].interior - 1.0 / 3) < 1e-12);
    const long thinner[3] = {4096, 12, 1}; /* parts of 3 rows: no multiple of 2 beyond 2, and
                                              thinner than the two slabs overlap sends */
    assert(cg_dist_prepare(fused, thinner, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(c.ncand == 1 && c.cand[0].depth == 2);

    /* two stages, a periodic temp beside a fixed state field: depth 1 only (NAME_dist_init
     * refuses more), and no overlap (two kernels a step) */
    IrProgram *two = example(a, 4);
    Plan *tp = hb_plan(a, two, "");
    assert(cg_dist_prepare(tp, global, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(c.ncand == 1 && has_depth(&c, 1, 0));
    assert(c.cand[0].bytes[0] > 0); /* periodic: x exchanges though it is not split */

    /* periodic x beside fixed y faces (tests/dist/faces.st's case), clamp everywhere, periodic
     * everywhere: deep halos */
    IrProgram *clamp = example(a, 0);
    ir_bc_set(&clamp->fields[0], BC_CLAMP, 0);
    assert(cg_dist_prepare(hb_plan(a, clamp, ""), global, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(has_depth(&c, 2, 0));
    IrProgram *channel = example(a, 0);
    channel->fields[0].bc_face[0][0].kind = channel->fields[0].bc_face[0][1].kind = BC_PERIODIC;
    assert(cg_dist_prepare(hb_plan(a, channel, ""), global, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(has_depth(&c, 2, 0));
    IrProgram *torus = example(a, 0);
    ir_bc_set(&torus->fields[0], BC_PERIODIC, 0);
    assert(cg_dist_prepare(hb_plan(a, torus, ""), global, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    assert(c.ncand > 1);
    /* fused periodic steps: with hwrap=on the part's interior holds the layers of the kernels'
     * halo ring too (NAME_DIST_RING_), one more a face along both axes */
    long held[3];
    Config fc;
    assert(config_parse("tb=64x1,stream=y,sb=16,tblock=4", 2, &fc, why, sizeof why) == 0);
    for (int wrap = 0; wrap < 2; wrap++) {
        fc.v[P_HWRAP] = wrap ? 2 : 1;
        Plan *fp = plan_build_dist(torus, &fc, a, why, sizeof why);
        assert(fp && cg_dist_prepare(fp, global, rows, 4, 390, "nvlink", &c, why, sizeof why) == 0);
        if (!wrap)
            memcpy(held, c.cand[0].local, sizeof held);
    }
    assert(c.cand[0].local[0] == held[0] + 2 && c.cand[0].local[1] == held[1] + 2);
    assert(held[1] == 4096 / 4 + 2 * (4 - 1) && c.cand[0].depth == 4);
}

static void links(void)
{
    double g;
    char name[32];
    assert(cg_dist_parse_link("nvlink", &g, name, sizeof name) == 0 && g == 390 && !strcmp(name, "nvlink"));
    assert(cg_dist_parse_link("25", &g, name, sizeof name) == 0 && g == 25 && !strcmp(name, "25 GB/s"));
    assert(cg_dist_parse_link("ib", &g, name, sizeof name) != 0);
    assert(cg_dist_parse_link("0", &g, name, sizeof name) != 0);
    assert(cg_dist_parse_link("nan", &g, name, sizeof name) != 0);
}

/* The header carries the recommendation, with each candidate's prediction. */
static void header_constants(Arena *a)
{
    char why[256];
    CgDistChoice c;
    IrProgram *star = example(a, 0);
    Plan *plan = hb_plan(a, star, "tb=32x8");
    const long global[3] = {4096, 4096, 1}, rows[3] = {1, 4, 1};
    assert(cg_dist_prepare(plan, global, rows, 0, 390, "nvlink", &c, why, sizeof why) == 0);
    cg_dist_choose(&c);
    StrBuf cu = {0}, h = {0};
    assert(cg_emit_dist(plan, "star", NULL, &c, &cu, &h) == 0);
    char want[64];
    snprintf(want, sizeof want, "#define STAR2D1R_DIST_DEPTH %d\n", chosen(&c)->depth);
    hb_has(h.data, want);
    hb_has(h.data, "#define STAR2D1R_DIST_OVERLAP 0\n");
    hb_has(h.data, " *   depth 1 with overlap ");
    hb_has(h.data, "<- chosen");
    hb_has(cu.data, "depth = STAR2D1R_DIST_DEPTH;");
    sb_free(&cu);
    sb_free(&h);
    assert(cg_emit_opts(plan, "star", NULL, 1, &cu, &h) == 0); /* no process grid: depth 1, said so */
    hb_has(h.data, "#define STAR2D1R_DIST_DEPTH 1\n#define STAR2D1R_DIST_OVERLAP 0\n");
    hb_has(h.data, "none was chosen");
    sb_free(&cu);
    sb_free(&h);
}

int main(void)
{
    Arena *a = arena_new();
    depth_by_local_cost();
    overlap_by_link();
    candidates_of_plans(a);
    links();
    header_constants(a);
    arena_free(a);
    puts("dist model: ok");
    return 0;
}
