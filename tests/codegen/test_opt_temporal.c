/* The temporal pass: tblock changes the emitted kernel and the launch geometry, the plan fuses
 * tblock steps per group with a plain single-step sequence for the rest, and every program or
 * shape the kernel cannot handle is refused by a named constraint with its reason. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "codegen.h"
#include "hand_ir.h"
#include "kir.h"
#include "opt_temporal_build.h"
#include "space.h"

static Plan *build(Arena *a, const IrProgram *p, const char *cfg, char *why, int whylen)
{
    Config c;
    assert(config_parse(cfg, p->dims, &c, why, whylen) == 0);
    return plan_build(p, &c, a, why, whylen);
}

static Plan *must_build(Arena *a, const IrProgram *p, const char *cfg)
{
    char why[512];
    Plan *plan = build(a, p, cfg, why, sizeof why);
    if (!plan)
        fprintf(stderr, "%s with '%s': %s\n", p->name, cfg, why);
    assert(plan);
    return plan;
}

static void refused(Arena *a, const IrProgram *p, const char *cfg, const char *needle)
{
    char why[512];
    Plan *plan = build(a, p, cfg, why, sizeof why);
    if (plan || !strstr(why, needle)) {
        fprintf(stderr, "%s with '%s': plan=%p why='%s', expected '%s'\n", p->name, cfg, (void *)plan, why,
                needle);
        assert(0);
    }
}

static void has(const char *text, const char *needle)
{
    if (!strstr(text, needle)) {
        fprintf(stderr, "missing '%s' in:\n%s\n", needle, text);
        assert(0);
    }
}

static const PlanLaunch *stage_launch(const Plan *plan, const char *kernel)
{
    for (int i = 0; i < plan->nstep; i++)
        if (strcmp(plan->step[i].kernel, kernel) == 0)
            return &plan->step[i];
    fprintf(stderr, "no launch of %s\n", kernel);
    assert(0);
    return NULL;
}

/* 3D, double: two fixed state fields, a coef and a param: u = u + alpha*c*(lap u), v = u[0,0,1]. */
static IrProgram *heat3d(Arena *a)
{
    IrProgram *p = hb_program(a, "heat3", 3, ELEM_DOUBLE);
    int u = hb_field(a, p, "u", ROLE_STATE, 2, BC_FIXED, 0);
    int v = hb_field(a, p, "v", ROLE_STATE, 2, BC_FIXED, 0);
    int c = hb_field(a, p, "c", ROLE_COEF, 1, BC_FIXED, 0);
    int alpha = hb_param(a, p, "alpha", 0.1);
    int s = hb_stage(a, p);
    static const int offs[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    int centre = hb_read(a, p, s, u, 0, 0, 0, 0);
    int lap = hb_op(a, p, s, N_MUL, hb_const(a, p, s, -6), centre, -1);
    for (int i = 0; i < 6; i++)
        lap = hb_op(a, p, s, N_ADD, lap, hb_read(a, p, s, u, 0, offs[i][0], offs[i][1], offs[i][2]), -1);
    int scale = hb_op(a, p, s, N_MUL, hb_par(a, p, s, alpha), hb_read(a, p, s, c, 0, 0, 0, 0), -1);
    hb_write(a, p, s, u, hb_op(a, p, s, N_ADD, centre, hb_op(a, p, s, N_MUL, scale, lap, -1), -1));
    hb_write(a, p, s, v, hb_read(a, p, s, u, 0, 0, 0, 1));
    hb_finish(p);
    return p;
}

/* 2D float: u = (u[-1,0] + u[1,0] + u[0,-1] + u[0,1]) / 4 (a division by a constant). */
static IrProgram *avg2d_of(Arena *a, ElemType t)
{
    IrProgram *p = hb_program(a, "avg2", 2, t);
    int u = hb_field(a, p, "u", ROLE_STATE, 2, BC_FIXED, 0);
    int s = hb_stage(a, p);
    int sum = hb_op(a, p, s, N_ADD, hb_read(a, p, s, u, 0, -1, 0, 0), hb_read(a, p, s, u, 0, 1, 0, 0), -1);
    sum = hb_op(a, p, s, N_ADD, sum, hb_read(a, p, s, u, 0, 0, -1, 0), -1);
    sum = hb_op(a, p, s, N_ADD, sum, hb_read(a, p, s, u, 0, 0, 1, 0), -1);
    hb_write(a, p, s, u, hb_op(a, p, s, N_DIV, sum, hb_const(a, p, s, 4), -1));
    hb_finish(p);
    return p;
}

static IrProgram *avg2d(Arena *a) { return avg2d_of(a, ELEM_FLOAT); }

/* 2D float: u = u + 1 / sqrt(1 + u[1,0]*u[1,0]) (a division by a square root). */
static IrProgram *grad2d(Arena *a)
{
    IrProgram *p = hb_program(a, "grad2", 2, ELEM_FLOAT);
    int u = hb_field(a, p, "u", ROLE_STATE, 2, BC_FIXED, 0);
    int s = hb_stage(a, p);
    int r = hb_read(a, p, s, u, 0, 1, 0, 0);
    int sq = hb_op(a, p, s, N_SQRT, hb_op(a, p, s, N_ADD, hb_const(a, p, s, 1), hb_op(a, p, s, N_MUL, r, r, -1), -1),
                   -1, -1);
    int q = hb_op(a, p, s, N_DIV, hb_const(a, p, s, 1), sq, -1);
    hb_write(a, p, s, u, hb_op(a, p, s, N_ADD, hb_read(a, p, s, u, 0, 0, 0, 0), q, -1));
    hb_finish(p);
    return p;
}

/* Float, a box of radius 1 (3x3 or 3x3x3): u = the sum of u over the box, times 0.1; in-plane
 * neighbours in the plane at +1 along the streaming axis. */
static IrProgram *box(Arena *a, int dims)
{
    IrProgram *p = hb_program(a, dims == 2 ? "box2" : "box3f", dims, ELEM_FLOAT);
    int u = hb_field(a, p, "u", ROLE_STATE, 2, BC_FIXED, 0);
    int s = hb_stage(a, p);
    int sum = -1, zr = dims == 3 ? 1 : 0;
    for (int dz = -zr; dz <= zr; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int r = hb_read(a, p, s, u, 0, dx, dy, dz);
                sum = sum < 0 ? r : hb_op(a, p, s, N_ADD, sum, r, -1);
            }
    hb_write(a, p, s, u, hb_op(a, p, s, N_MUL, sum, hb_const(a, p, s, 0.1), -1));
    hb_finish(p);
    return p;
}

/* ---- the kernels' structure ---- */

/* The fused kernel of p under cfg, as the plan keeps it. */
static const KKernel *kernel_of(Arena *a, const IrProgram *p, const char *cfg)
{
    Plan *plan = must_build(a, p, cfg);
    const KKernel *k = k_module_kernel(&plan->module, arena_printf(a, "%s_step", p->name));
    assert(k);
    return k;
}

/* `x += ...` statements in block, nested ones too. */
static int count_accumulations(const KBlock *b)
{
    int n = 0;
    for (int i = 0; i < b->n; i++)
        n += (b->items[i]->kind == KS_ASSIGN && b->items[i]->quals) + count_accumulations(&b->items[i]->body) +
             count_accumulations(&b->items[i]->els);
    return n;
}


/* The overlapped tile: a barrier after the load and after each intermediate step, whose stores
 * go to the step's shared buffer; the last step stores to the level +1 buffer. A state field the
 * step does not read (heat3d's v) has no level 0 argument: neither kernel loads it (the overlapped
 * tile never reads its input buffer, the streaming kernel gives it no queue or ring). */
static void test_tile_structure(Arena *a, IrProgram *star, IrProgram *h3)
{
    const KKernel *k = kernel_of(a, star, "tb=32x8,tblock=2");
    const KStmt *steps = hb_find_loop(&k->body, "step");
    assert(steps && steps->unroll == 1 && steps->cond->kind == KE_INT && steps->cond->ival == 2);
    assert(kir_count_stmts(&k->body, KS_BARRIER) == 2 && kir_count_stmts(&steps->body, KS_BARRIER) == 1);
    assert(hb_count_stores(&steps->body, "tb_out0", "lidx") == 1);
    assert(hb_count_stores(&k->body, "f_u_lp1", "idx") == 1 && hb_count_stores(&steps->body, "f_u_lp1", "idx") == 0);
    k = kernel_of(a, h3, "tb=16x8x8,tblock=2");
    steps = hb_find_loop(&k->body, "step");
    assert(hb_count_stores(&steps->body, "tb_out1", "lidx") == 1);
    assert(hb_count_stores(&k->body, "f_v_lp1", "idx") == 1);
    assert(kir_count_index(&k->body, "tb_in0") > 0 && kir_count_index(&k->body, "tb_in1") == 0);
    assert(kir_count_index(&k->body, "f_u_l0") > 0 && kir_count_index(&k->body, "f_v_l0") == 0);
    k = kernel_of(a, h3, "tb=16x8x1,stream=z,sb=16,tblock=2");
    assert(kir_count_index(&k->body, "f_v_l0") == 0 && kir_count_index(&k->body, "tbs1_0") == 0);
    assert(kir_count_index(&k->body, "tbs0_0") > 0 && kir_count_index(&k->body, "f_v_lp1") > 0);
}

/* The streaming kernels: Q copies of the plane loop (two loops in 2D), each but the first
 * breaking after the last plane, each with one barrier; retimed, every term of the weighted sum
 * added to a partial sum once per step. */
static void test_stream_structure(Arena *a, IrProgram *star, IrProgram *b2)
{
    const KKernel *k = kernel_of(a, star, "tb=64x1,stream=y,sb=16,tblock=4");
    assert(kir_count_stmts(&k->body, KS_BARRIER) == 2 * 3 && kir_count_stmts(&k->body, KS_BREAK) == 2 * 2);
    k = kernel_of(a, b2, "tb=64x1,stream=y,sb=16,tblock=4,retime=on");
    const KStmt *loop = hb_find_loop(&k->body, "it");
    assert(loop && loop->step->kind == KE_INT && loop->step->ival == 4);
    assert(kir_count_stmts(&loop->body, KS_BARRIER) == 4 && kir_count_stmts(&loop->body, KS_BREAK) == 3);
    /* 9 terms added to partial sums per step, 4 steps, 4 copies; no loop inside the copies */
    assert(count_accumulations(&loop->body) == 9 * 4 * 4 && kir_count_stmts(&loop->body, KS_FOR) == 0);
}

/* ---- temporal blocking with streaming (opt_temporal_stream.c) ---- */

static void test_stream_2d(Arena *a, IrProgram *star)
{
    /* 2D: 64 threads along x, 4 steps -> output 56 columns; sb=16 planes per block; queues of 3
     * planes: 4 rings x 3 planes x 64 floats of shared memory. */
    Plan *p = must_build(a, star, "tb=64x1,stream=y,sb=16,tblock=4");
    has(p->source, "temporal blocking with streaming along y, 4 steps per launch");
    has(p->source, "q0_0_1");            /* the own column's plane, from registers */
    has(p->source, "tbs0_0[lcol + 127]"); /* u[-1,0] of copy 0: ring position 2, x - 1 */
    has(p->source, "__syncthreads()");
    const PlanLaunch *l = stage_launch(p, "star2d1r_step");
    assert(l->block[0] == 64 && l->block[1] == 1 && l->block[2] == 1);
    assert(l->tile[0] == 56 && l->tile[1] == 16);
    assert(l->smem_bytes == 4 * 3 * 64 * 4);
    assert(l->steps == 4 && p->step_count == 4 && p->nsingle >= 1);
    /* One barrier per input plane, in each of the Q copies of the plane loop. A star reads
     * in-plane neighbours only in the centre plane: each step lags the one before by R = 1 plane,
     * Q = 3. A box reads them in the plane at +R too: a lag of R + 1, so that the plane was
     * written one copy earlier; Q = 4, the pipeline is K planes longer. A 3D box keeps the lag
     * R and a barrier after each plane written to a ring: 1 + (K - 1) per copy. */
    has(p->source, "3-plane queues per step (registers + shared ring), a lag of 1 plane per step");
    /* (in 2D the plane loop is emitted twice: for the chunks inside the grid along the axis,
     * without the per-step plane check, and for those at its ends; 3D keeps one) */
    assert(hb_count(p->source, "__syncthreads()") == 2 * 3);
    has(p->source, "const bool all_in = zload - 3 >= 0 && zstop + 3 <= n1;");
    assert(hb_count(p->source, "const bool interior = col_interior;") == 3 * 3);
    assert(hb_count(p->source, "const bool interior = col_interior && ps >= 0 && ps < n1;") == 3 * 3);
    has(p->source, "const int count = zstop - zload + 4;");
    has(p->source, "step 4: plane p0 - 4 */");
    /* every parameter changes the kernel */
    Plan *q = must_build(a, star, "tb=64x1,stream=y,sb=32,tblock=4");
    assert(strcmp(p->source, q->source) != 0 && stage_launch(q, "star2d1r_step")->tile[1] == 32);
    q = must_build(a, star, "tb=64x1,stream=y,sb=16,tblock=8");
    assert(strcmp(p->source, q->source) != 0 && stage_launch(q, "star2d1r_step")->tile[0] == 48);
    q = must_build(a, star, "tb=128x1,stream=y,sb=16,tblock=4");
    assert(strcmp(p->source, q->source) != 0 && stage_launch(q, "star2d1r_step")->tile[0] == 120);
    /* without stream: the overlapped-tile kernel */
    q = must_build(a, star, "tb=64x8,tblock=4");
    assert(!strstr(q->source, "with streaming"));
}

/* Boxes: the lag and the queues; and 3D, double, two state fields and a coef: z streams, x-y is
 * the tile. */
static void test_stream_box_3d(Arena *a, IrProgram *h3)
{
    Plan *b = must_build(a, box(a, 2), "tb=64x1,stream=y,sb=16,tblock=4");
    has(b->source, "4-plane queues per step (registers + shared ring), a lag of 2 planes per step");
    assert(hb_count(b->source, "__syncthreads()") == 2 * 4);
    has(b->source, "const int count = zstop - zload + 8;");
    has(b->source, "step 4: plane p0 - 8 */");
    has(b->source, "tbs0_0[lcol + 127]"); /* u[-1,0] of copy 0: written 2 copies ago, position 2 */
    has(b->source, "tbs0_0[lcol + 191]"); /* u[-1,1] of copy 0: written 1 copy ago, position 3 */
    assert(stage_launch(b, "box2_step")->smem_bytes == 4 * 4 * 64 * 4);
    b = must_build(a, box(a, 3), "tb=16x8x1,stream=z,sb=16,tblock=2");
    has(b->source, "3-plane queues per step (registers + shared ring), a lag of 1 plane per step");
    assert(hb_count(b->source, "__syncthreads()") == 3 * 2);
    assert(!strstr(b->source, "all_in"));
    has(b->source, "const int count = zstop - zload + 2;");

    Plan *p = must_build(a, h3, "tb=16x8x1,stream=z,sb=16,tblock=2");
    has(p->source, "temporal blocking with streaming along z, 2 steps per launch");
    const PlanLaunch *l = stage_launch(p, "heat3_step");
    assert(l->tile[0] == 12 && l->tile[1] == 4 && l->tile[2] == 16);
    assert(l->smem_bytes == 2 * 2 * 3 * 16 * 8 * 8);
    has(p->source, "f_c_l0[idx]");
    has(p->source, "tbs0_0[lcol + 272]"); /* u[0,1,0] of copy 0: position 2, + 16 */
    hb_lacks(p->source, "q1_0_");         /* v: the step writes it but reads u only, so no queue */
}

/* The division by a constant becomes a multiplication by its reciprocal, in float and double. */
static void test_fast_arith(Arena *a)
{
    /* double too: its IEEE division held j2d5pt's fused kernels at 199 GStencil/s against 923
     * with the product (H200, 2026-11-29) */
    Plan *d = must_build(a, avg2d_of(a, ELEM_DOUBLE), "tb=64x1,stream=y,sb=16,tblock=2");
    has(d->source, "* 0.25");
    assert(!strstr(d->source, "0.25f"));
    IrProgram *avg = avg2d(a);
    Plan *p = must_build(a, avg, "tb=64x1,stream=y,sb=16,tblock=2");
    has(p->source, "* 0.25f");
    Plan *q = must_build(a, avg, "tb=32x8,tblock=2");
    has(q->source, "* 0.25f");
    has(q->source, "/ 4.0f"); /* the plain single-step kernel keeps the division */
    /* ... and so do the single-step optimized kernels (codegen/fast_arith.c), the plain one not */
    static const char *const single[] = {"tb=32x4,uf=1x2,bm=1x2", "tb=32x4,cmem=on,bm=1x2",
                                         "tb=64x1,stream=y,sb=16,smem=on", "tb=64x1,stream=y,sb=16"};
    for (int i = 0; i < 4; i++) {
        q = must_build(a, avg, single[i]);
        assert(!strstr(q->source, "/ 4.0f")); /* no division left */
        has(q->source, "0.25f");                 /* the reciprocal (inline or in __constant__) */
    }
    q = must_build(a, avg, "tb=32x8");
    has(q->source, "/ 4.0f");
    /* a / sqrt(x) keeps the division: rsqrtf's 2 ulp drifted beyond the tolerance on gradient2d,
     * and so did the correctly rounded __frsqrt_rn (H100, 2026-11-22: relative error 1e-4 against
     * the plain kernel after a few fused steps, tolerance 1.8e-5; gradient2d amplifies rounding) */
    p = must_build(a, grad2d(a), "tb=64x1,stream=y,sb=16,tblock=2");
    assert(!strstr(p->source, "rsqrtf("));
}

/* retime=on (opt_temporal_retime.c): each step reads only its newest input plane, the own
 * column from a register and 2R in-plane neighbours (a 3x3 box: 2 in 2D, 8 in 3D) from shared
 * memory, and adds them to 2R+1 partial sums; a lag of R+1 planes per step, 2 shared planes per
 * step, the loop unrolled R+2 times rounded up to even, one barrier per copy. */
static void test_retime(Arena *a, IrProgram *h3)
{
    IrProgram *b2 = box(a, 2);
    Plan *plain = must_build(a, b2, "tb=64x1,stream=y,sb=16,tblock=4");
    Plan *rt = must_build(a, b2, "tb=64x1,stream=y,sb=16,tblock=4,retime=on");
    assert(strcmp(plain->source, rt->source) != 0);
    has(rt->source, "streaming along y and retiming, 4 steps per launch");
    has(rt->source, "adds its newest input plane to 3 partial sums, a lag of 2 planes per step");
    assert(hb_count(rt->source, "__syncthreads()") == 4);
    assert(hb_count(rt->source, "rd[-1]") == 4 * 4 && hb_count(rt->source, "rd[1]") == 4 * 4);
    assert(hb_count(rt->source, "rd[") == 2 * 4 * 4);
    has(rt->source, "const int count = zstop - zload + 8;");
    has(rt->source, "a4_0 = a4_1;");           /* the partial sums shift */
    has(rt->source, "const float v = interior ? a1_0 : q0_0_2;"); /* copy 0: plane p0-2, position 2 */
    /* the retimed kernel: each plane's offset in a buffer once for all the thread's columns */
    has(rt->source, "const long long po4 = (long long)(p0 - 8 + 1) * ssd;");
    has(rt->source, "f_u_lp1[cidx + po4] = a4_0;");
    has(rt->source, "const long long po = (long long)(pn + 1) * ssd;");
    has(rt->source, "nx0 = col_buffer && pl ? f_u_l0[cidx + po] : (float)0;");
    has(rt->source, "const bool interior = col_interior && col_inner && (unsigned)ps < (unsigned)n1;");
    /* the other kernel per column (nvcc allocates registers differently: measured faster) */
    has(plain->source, "f_u_l0[cidx + (long long)(pn + 1) * ssd]");
    assert(stage_launch(rt, "box2_step")->smem_bytes == 4 * 2 * 64 * 4);
    assert(stage_launch(rt, "box2_step")->tile[0] == 56 && stage_launch(rt, "box2_step")->steps == 4);
    Plan *rt3 = must_build(a, box(a, 3), "tb=16x8x1,stream=z,sb=16,tblock=2,retime=on");
    assert(hb_count(rt3->source, "rd[") == 8 * 2 * 4);
    assert(hb_count(rt3->source, "__syncthreads()") == 4);
    has(rt3->source, "rd[-17]"); /* u[-1,-1,*] in the 16-wide tile */
    assert(stage_launch(rt3, "box3f_step")->smem_bytes == 2 * 2 * 16 * 8 * 4);
    /* a division by a constant is a weighted sum; two state fields, a coef or a square root are
     * not what the retimed kernel accumulates */
    must_build(a, avg2d(a), "tb=64x1,stream=y,sb=16,tblock=2,retime=on");
    refused(a, h3, "tb=16x8x1,stream=z,sb=16,tblock=2,retime=on", "2 state fields");
    refused(a, grad2d(a), "tb=64x1,stream=y,sb=16,tblock=2,retime=on", "weighted sum");
}

/* What the streaming kernel cannot do is refused with the reason. */
static void test_stream_refused(Arena *a, IrProgram *star, IrProgram *h3, IrProgram *box3)
{
    refused(a, h3, "tb=16x1x8,stream=y,sb=16,tblock=2", "stream=z");
    refused(a, star, "tb=64x2,stream=y,sb=16,tblock=2", "tb=64x2x1 has 2 threads along y");
    refused(a, star, "tb=64x1,stream=y,sb=16,tblock=2,regq=2", "always keeps");
    refused(a, star, "tb=64x1,stream=y,sb=16,tblock=2,prefetch=on", "one plane ahead");
    refused(a, star, "tb=64x1,stream=y,sb=16,tblock=2,smem=on", "smem");
    refused(a, star, "tb=32x1,stream=y,sb=16,tblock=16", "less than half");
    has(must_build(a, box3, "tb=16x8x1,stream=z,sb=16,tblock=2")->source, "int pw = "); /* periodic: wrapped planes */
    Space s;
    const long n[3] = {8192, 8192, 1};
    space_init(&s, star, n);
    Config c;
    char why[512];
    assert(config_parse("tb=256x1,stream=y,sb=256,tblock=8", 2, &c, why, sizeof why) == 0);
    assert(space_check(&s, &c, why, sizeof why));
    const long flat[3] = {8192, 64, 1};
    space_init(&s, star, flat);
    /* sb = the whole axis: one block per column */
    assert(config_parse("tb=256x1,stream=y,sb=64,tblock=8", 2, &c, why, sizeof why) == 0);
    assert(space_check(&s, &c, why, sizeof why));
}

/* ---- the overlapped tile (opt_temporal.c) ---- */

/* star2d (halo 1): 32x8 block, 4 points per thread along y (a square 32x32 tile), 2 fused
 * steps -> output tile 28x28. */
static void test_tile_2d(Arena *a, IrProgram *star)
{
    Plan *p2 = must_build(a, star, "tb=32x8,tblock=2");
    has(p2->source, "temporal blocking, 2 steps per launch");
    has(p2->source, "extern __shared__");
    has(p2->source, "__syncthreads()");
    has(p2->source, "tb_in0[lidx - 32]"); /* the row above, in the shared tile */
    const PlanLaunch *l = stage_launch(p2, "star2d1r_step");
    assert(l->block[0] == 32 && l->block[1] == 8 && l->block[2] == 1);
    assert(l->tile[0] == 28 && l->tile[1] == 28);
    assert(l->smem_bytes == 2 * 32 * 32 * 4);
    has(p2->source, "(int)threadIdx.y + m * 8");
    assert(l->rotate_after == 1);
    if (p2->step_count != 2 || l->steps != 2) {
        fprintf(stderr, "the fused launch advances %d steps, the plan's group %d: expected 2 (plan.c's "
                "build_step must not reset a pass's PlanLaunch.steps to 1)\n", l->steps, p2->step_count);
        assert(0);
    }
    /* leftover steps: the plain kernel */
    assert(p2->nsingle >= 1 && p2->single != p2->step);
    has(p2->source, "star2d1r_step_single(");

    /* Each value of tblock and each block shape changes the kernel. */
    Plan *p4 = must_build(a, star, "tb=32x16,tblock=4");
    has(p4->source, "temporal blocking, 4 steps per launch");
    has(p4->source, "step < 4");
    assert(strcmp(p4->source, p2->source) != 0);
    l = stage_launch(p4, "star2d1r_step");
    assert(l->tile[0] == 24 && l->tile[1] == 24 && p4->step_count == 4);
    Plan *p3s = must_build(a, star, "tb=64x1,stream=y,sb=16,tblock=3"); /* not a power of two */
    has(p3s->source, "3 steps per launch");
    assert(stage_launch(p3s, "star2d1r_step")->tile[0] == 58 && p3s->step_count == 3);
    Plan *p8 = must_build(a, star, "tb=32x32,tblock=8");
    assert(stage_launch(p8, "star2d1r_step")->tile[1] == 16 && p8->step_count == 8);
    /* tblock=1 is the plain kernel */
    Plan *p1 = must_build(a, star, "tb=32x8,tblock=1");
    assert(!strstr(p1->source, "temporal blocking") && p1->step_count == 1);
}

/* 3D (halo 1 on every axis): 16x8x8, 2 steps -> 12x4x4; double elements, two state fields
 * (two buffer pairs), the coef read from global memory. */
static void test_tile_3d(Arena *a, IrProgram *h3, IrProgram *box3)
{
    Plan *p3 = must_build(a, h3, "tb=16x8x8,tblock=2");
    const PlanLaunch *l = stage_launch(p3, "heat3_step");
    assert(l->tile[0] == 12 && l->tile[1] == 4 && l->tile[2] == 4);
    assert(l->smem_bytes == 2 * 2 * 16 * 8 * 8 * 8);
    has(p3->source, "(tz * 8 + ty) * 16 + tx");
    has(p3->source, "tb_in0[lidx + 128]"); /* u[0,0,1] */
    has(p3->source, "f_c_l0[idx]");
    has(p3->source, "tb_out1[lidx] = ");   /* v at an intermediate step: its shared buffer */
    has(p3->source, "f_v_lp1[idx] = ");
    has(must_build(a, box3, "tb=16x8x8,tblock=2")->source, "const long long sidx = "); /* periodic */
}

/* Every state field of p under bc (hb_example builds a fresh program each call). */
static int space_accepts(const IrProgram *p, const long n[3], int distributed, const char *cfg, char *why, int whylen)
{
    Space s;
    Config c;
    space_init(&s, p, n);
    s.distributed = distributed;
    assert(config_parse(cfg, p->dims, &c, why, whylen) == 0);
    return space_check(&s, &c, why, whylen);
}

/* Fused steps under each boundary (TbEdge): periodic loads every point from its wrapped source
 * and computes it; clamp and mirror compute a halo point as its source (the tile: around vlidx;
 * streaming: in-plane reads through rc_*); mirror and streamed plans say the grid they need and
 * the host loop checks it; what cannot be fused is refused with the reason. */
static void test_edges(Arena *a)
{
    char why[512];
    Plan *ring = must_build(a, hb_example(a, 5), "tb=256,tblock=2"); /* 1D periodic */
    has(ring->source, "sidx");
    assert(!strstr(ring->source, "in_buffer") && ring->fused_min_n[0] == 0);
    Plan *tile = must_build(a, hb_with_boundary(hb_example(a, 0), BC_MIRROR), "tb=32x8,tblock=4");
    has(tile->source, "vlidx");
    assert(tile->fused_min_n[0] == 4 * (1 + 1) + 2 && tile->fused_min_n[1] == 10);
    StrBuf cu = {0}, h = {0};
    assert(cg_emit(tile, "star", &cu, &h) == 0);
    has(cu.data, "left >= 4 && n[0] >= 10 && n[1] >= 10");
    sb_free(&cu);
    sb_free(&h);
    Plan *clamp = must_build(a, hb_with_boundary(hb_example(a, 0), BC_CLAMP), "tb=64x1,stream=y,sb=16,tblock=4");
    has(clamp->source, "rc_m1_0");
    assert(clamp->fused_min_n[0] == 0 && clamp->fused_min_n[1] == 10); /* planes along y only */
    refused(a, hb_with_boundary(hb_example(a, 0), BC_MIRROR), "tb=64x1,stream=y,sb=16,tblock=4,retime=on", "retime=off");
    IrProgram *mixed = heat3d(a);
    ir_bc_set(&mixed->fields[0], BC_PERIODIC, 0);
    ir_bc_set(&mixed->fields[1], BC_CLAMP, 0);
    refused(a, mixed, "tb=16x8x8,tblock=2", "mix boundary kinds");
    const long small[3] = {9, 64, 1}, big[3] = {512, 512, 1};
    IrProgram *mirror = hb_with_boundary(hb_example(a, 0), BC_MIRROR);
    assert(!space_accepts(mirror, small, 0, "tb=16x4,tblock=4", why, sizeof why) && strstr(why, "need at least 10"));
    assert(space_accepts(mirror, big, 0, "tb=32x8,tblock=4", why, sizeof why));
    assert(!space_accepts(mirror, big, 1, "tb=32x8,tblock=4", why, sizeof why) && strstr(why, "distributed"));
    assert(space_accepts(hb_with_boundary(hb_example(a, 0), BC_CONSTANT), big, 1, "tb=32x8,tblock=4", why, sizeof why));
}

/* u = 0.2 u + 0.1 (u[-r,0] + u[r,0]) + 0.3 (u[0,1] + u[0,-1]) under bc: symmetric along x and y;
 * with kx >= 0, plus k[-kx,0] + k[kx,0] of a coef field k. */
static IrProgram *symmetric2d_coef(Arena *a, BoundaryKind bc, int r, int kx)
{
    IrProgram *p = hb_program(a, "sym2d", 2, ELEM_FLOAT);
    int u = hb_field(a, p, "u", ROLE_STATE, 2, bc, 0);
    int k = kx >= 0 ? hb_field(a, p, "k", ROLE_COEF, 1, bc, 0) : -1;
    int s = hb_stage(a, p);
    int ks = k >= 0 ? hb_op(a, p, s, N_ADD, hb_read(a, p, s, k, 0, -kx, 0, 0), hb_read(a, p, s, k, 0, kx, 0, 0), -1) : -1;
    int x = hb_op(a, p, s, N_ADD, hb_read(a, p, s, u, 0, -r, 0, 0), hb_read(a, p, s, u, 0, r, 0, 0), -1);
    int y = hb_op(a, p, s, N_ADD, hb_read(a, p, s, u, 0, 0, 1, 0), hb_read(a, p, s, u, 0, 0, -1, 0), -1);
    int v = hb_op(a, p, s, N_MUL, hb_const(a, p, s, 0.2), hb_read(a, p, s, u, 0, 0, 0, 0), -1);
    v = hb_op(a, p, s, N_ADD, v, hb_op(a, p, s, N_MUL, hb_const(a, p, s, 0.1), x, -1), -1);
    v = hb_op(a, p, s, N_ADD, hb_op(a, p, s, N_MUL, y, hb_const(a, p, s, 0.3), -1), v, -1);
    if (ks >= 0)
        v = hb_op(a, p, s, N_ADD, v, ks, -1);
    hb_write(a, p, s, u, v);
    hb_finish(p);
    return p;
}

static IrProgram *symmetric2d(Arena *a, BoundaryKind bc, int r) { return symmetric2d_coef(a, bc, r, -1); }

/* A step symmetric along every axis under mirror, or clamp of radius 1: the fused kernels load
 * the grid's reflected copies (mirror about the edge point, clamp about the edge's middle) and
 * compute them like interior points, as under periodic (no rc_*, no halo planes overwritten,
 * retimed too); the mapped form stays for --same-bits, clamp of radius 2, a coef field read at
 * an offset and asymmetric steps. A distributed run takes the reflection (its part holds the
 * faces: Plan.held, the fixed program's fused kernel) and refuses the mapped form. */
static void test_reflect(Arena *a)
{
    char why[512];
    const long big[3] = {512, 512, 1};
    const char *cfg = "tb=64x1,stream=y,sb=16,tblock=4";
    IrProgram *mirror = symmetric2d(a, BC_MIRROR, 2), *clamp = symmetric2d(a, BC_CLAMP, 1);
    assert(mirror->an.symmetric == 3 && clamp->an.symmetric == 3);
    const char *pm = must_build(a, mirror, cfg)->source, *pc = must_build(a, clamp, cfg)->source;
    assert(!strstr(pm, "int rc_") && !strstr(pc, "int rc_") && !strstr(pm, "hv0") && !strstr(pc, "hv0"));
    has(pm, "pn < 0 ? -pn : pn >= n1 ? n1 + n1 - 2 - pn : pn");
    has(pc, "pn < 0 ? -1 - pn : pn >= n1 ? n1 + n1 - 1 - pn : pn");
    has(pc, "- 1 - src_i_r");                                          /* the column's source */
    has(must_build(a, clamp, "tb=64x1,stream=y,sb=16,tblock=4,retime=on")->source, "-1 - pn");
    has(must_build(a, clamp, "tb=32x8,tblock=4")->source, "sidx");      /* the overlapped tile */
    assert(space_accepts(mirror, big, 1, "tb=32x8,tblock=4", why, sizeof why));
    Config c;
    assert(config_parse(cfg, 2, &c, why, sizeof why) == 0);
    const Plan *dist = plan_build_dist(clamp, &c, a, why, sizeof why), *one = must_build(a, clamp, cfg);
    assert(dist && dist->held && dist->nheld == 1 && !one->held); /* the fused kernel, no fills */
    assert(strstr(dist->source, "_step_held") && !strstr(one->source, "_step_held"));
    /* what a distributed tuning and bench time: the part's program, its faces fixed */
    const IrProgram *part = plan_part_program(clamp, &c, a);
    assert(part != clamp && ir_bc(&part->fields[0], 0, 0).kind == BC_FIXED);
    assert(ir_bc(&clamp->fields[0], 0, 0).kind == BC_CLAMP);
    const IrProgram *fixed = hb_example(a, 0), *mapped = hb_with_boundary(hb_example(a, 0), BC_MIRROR);
    assert(plan_part_program(fixed, &c, a) == fixed && plan_part_program(mapped, &c, a) == mapped);
    IrProgram *clamp2 = symmetric2d(a, BC_CLAMP, 2);
    has(must_build(a, clamp2, cfg)->source, "rc_m2_0"); /* clamp of radius 2 */
    assert(!space_accepts(clamp2, big, 1, "tb=32x8,tblock=4", why, sizeof why) && strstr(why, "distributed"));
    /* a coef field is read at the point's source plus the offset: at offset 0 only */
    IrProgram *k0 = symmetric2d_coef(a, BC_MIRROR, 1, 0), *k1 = symmetric2d_coef(a, BC_MIRROR, 1, 1);
    assert(k0->an.symmetric == 3 && k1->an.symmetric == 3);
    assert(!strstr(must_build(a, k0, cfg)->source, "int rc_"));
    has(must_build(a, k1, cfg)->source, "rc_m1_0");
    IrProgram *bits = symmetric2d(a, BC_MIRROR, 1);
    bits->same_bits = 1;
    has(must_build(a, bits, cfg)->source, "rc_m1_0");
}

/* hwrap=on: the held fused steps wrap the extended grid instead of holding its faces. A
 * distributed part of a reflecting program runs the periodic program's kernel (its own held
 * group and the stream axis's least extent), a periodic program's part the plan's own fused
 * launch without its fills; what a part is timed as follows the choice. Refused
 * without held steps (one GPU without hold=on), without fused steps, where nothing wraps or
 * reflects. */
static void test_hwrap(Arena *a)
{
    char why[512];
    const long big[3] = {512, 512, 1};
    IrProgram *clamp = symmetric2d(a, BC_CLAMP, 1), *wrap = hb_with_boundary(hb_example(a, 0), BC_PERIODIC);
    Config off, on;
    assert(config_parse("tb=64x1,stream=y,sb=16,tblock=4", 2, &off, why, sizeof why) == 0);
    assert(config_parse("tb=64x1,stream=y,sb=16,tblock=4,hwrap=on", 2, &on, why, sizeof why) == 0);
    const Plan *held = plan_build_dist(clamp, &off, a, why, sizeof why);
    const Plan *wrapped = plan_build_dist(clamp, &on, a, why, sizeof why);
    assert(held && wrapped && wrapped->held && wrapped->held != wrapped->step);
    assert(strcmp(held->source, wrapped->source) != 0 && strstr(wrapped->source, "_step_held"));
    assert(held->held_min_n[1] == 0 && wrapped->held_min_n[1] == 4 * 2 + 2); /* tblock*(R+1)+2 */
    const IrProgram *part = plan_part_program(clamp, &on, a);
    assert(part != clamp && ir_bc(&part->fields[0], 1, 1).kind == BC_PERIODIC);
    const Plan *timed = plan_build_part(clamp, &on, a, why, sizeof why);
    assert(timed && ir_bc(&timed->prog->fields[0], 0, 0).kind == BC_PERIODIC && timed->config.v[P_HWRAP] == 1);
    assert(!timed->held);
    /* the tuner's final check compares a part with the plain kernel of the same part program */
    Config plain = config_default(2);
    plain.v[P_HWRAP] = 2;
    const Plan *pp = plan_build_part(clamp, &plain, a, why, sizeof why);
    assert(pp && pp->step_count == 1 && ir_bc(&pp->prog->fields[0], 0, 0).kind == BC_PERIODIC);
    const Plan *pw = plan_build_dist(wrap, &on, a, why, sizeof why);
    assert(pw && pw->nheld == 1 && pw->nstep == 3 && !strstr(pw->source, "_step_held"));
    assert(!strcmp(pw->held[0].kernel, pw->step[0].kernel) && pw->step[1].fill && pw->step[2].fill);
    assert(plan_part_program(wrap, &on, a) == wrap && plan_part_program(wrap, &off, a) != wrap);
    assert(space_accepts(clamp, big, 1, "tb=64x1,stream=y,sb=16,tblock=4,hwrap=on", why, sizeof why));
    assert(!space_accepts(clamp, big, 0, "tb=64x1,stream=y,sb=16,tblock=4,hwrap=on", why, sizeof why) &&
           strstr(why, "hold=on"));
    assert(space_accepts(clamp, big, 0, "tb=64x1,stream=y,sb=16,tblock=4,hold=on,hwrap=on", why, sizeof why));
    assert(!space_accepts(clamp, big, 1, "tb=64x1,stream=y,sb=16,hwrap=on", why, sizeof why) &&
           strstr(why, "tblock above 1"));
    assert(!space_accepts(hb_example(a, 0), big, 1, "tb=64x1,stream=y,sb=16,tblock=4,hwrap=on", why, sizeof why) &&
           strstr(why, "wrap"));
}

/* hold=on: fused steps that wrap or reflect, held over extended copies (codegen/hold.c): the
 * plan's held group over the fixed program, the layers tblock x halo deep, the two copies, and the
 * emitted run that takes them (its workspace holding the copies); refused where nothing wraps or
 * reflects, without fused steps, with three levels, with built-in coordinates. */
static void test_hold(Arena *a, IrProgram *star, IrProgram *wave)
{
    const char *cfg = "tb=64x1,stream=y,sb=16,tblock=4,hold=on";
    IrProgram *clamp = symmetric2d(a, BC_CLAMP, 1), *mirror = symmetric2d(a, BC_MIRROR, 2);
    IrProgram *wrap = hb_with_boundary(hb_example(a, 0), BC_PERIODIC);
    const Plan *pc = must_build(a, clamp, cfg), *pm = must_build(a, mirror, cfg), *pw = must_build(a, wrap, cfg);
    assert(pc->hold_kind == HOLD_CLAMP && pm->hold_kind == HOLD_MIRROR && pw->hold_kind == HOLD_WRAP);
    assert(pc->hold_ext[0] == 4 && pc->hold_ext[1] == 4 && pc->hold_ext[2] == 0 && pm->hold_ext[0] == 8);
    assert(pm->hold_min_n[0] == 10 && pc->hold_min_n[0] == 5); /* a mirror's image of layer E is E */
    assert(pc->held && pc->nheld == 1 && strstr(pc->held[0].kernel, "_held"));
    has(pc->source, pc->hold_copy);
    has(pc->source, pc->hold_edge);
    assert(!must_build(a, clamp, "tb=64x1,stream=y,sb=16,tblock=4")->hold_kind);
    StrBuf cu = {0}, h = {0};
    assert(cg_emit(pc, "held", &cu, &h) == 0);
    has(cu.data, "err = sym2d_hold_run_(&b, p, n, &left, steps, ws + 0 * temp_bytes, stream);");
    has(cu.data, "return 0 * sym2d_temp_bytes_(nx, ny, nz) + 2 * sym2d_hold_bytes_(nx, ny, nz);");
    has(cu.data, "err = sym2d_hstep_(&x, p, xn, steps - *left, stream);");
    has(h.data, "hold=on");
    sb_free(&cu);
    sb_free(&h);
    /* the space offers hold=on only where fused steps may wrap or reflect two-level fields, on
     * one GPU */
    Space one, part;
    const long grid[3] = {512, 512, 1};
    space_init(&one, clamp, grid);
    space_init_distributed(&part, clamp, grid);
    assert(one.params[P_HOLD].nvalues == 2 && part.params[P_HOLD].nvalues == 1 && part.distributed);
    refused(a, star, "tb=64x1,stream=y,sb=16,tblock=4,hold=on", "hold=on is not one of its values (off)");
    refused(a, hb_with_boundary(wave, BC_PERIODIC), "tb=32x8,tblock=2,hold=on", "not one of its values");
    refused(a, clamp, "tb=64x1,stream=y,sb=16,hold=on", "tblock above 1");
}

/* The space: values, and the constraints named with their reasons. */
static void test_space(IrProgram *star)
{
    Space s;
    const long n[3] = {8192, 8192, 1};
    space_init(&s, star, n);
    /* powers of two and the multiples of 3 between them */
    assert(s.params[P_TB].nvalues == 8 && s.params[P_TB].values[2] == 3 && s.params[P_TB].values[5] == 8 &&
           s.params[P_TB].values[6] == 12 && s.params[P_TB].values[7] == 16);
    Config c;
    char why[512];
    assert(config_parse("tb=32x32,tblock=8", 2, &c, why, sizeof why) == 0);
    assert(space_check(&s, &c, why, sizeof why));
    const long tall[3] = {64, 2000000, 1};
    space_init(&s, star, tall);
    assert(config_parse("tb=32x32,tblock=8", 2, &c, why, sizeof why) == 0);
    assert(!space_check(&s, &c, why, sizeof why) && strstr(why, "65535"));
    FILE *out = tmpfile();
    space_print(out, &s);
    rewind(out);
    char text[8192] = {0};
    size_t got = fread(text, 1, sizeof text - 1, out);
    text[got] = 0;
    fclose(out);
    has(text, "tblock-tile");
    has(text, "tblock-smem");
}

/* Several columns per thread (bm=1xCx1 with stream=z): the in-plane tile is tbx x tby*C, each
 * column keeps its own queues (and partial sums, retimed), predicates and place (suffix _c<col>),
 * a y-neighbour of the same thread comes from its register; one column emits what it did
 * before. What the form cannot do
 * is refused with the reason. */
static void test_stream_columns(Arena *a, IrProgram *star, IrProgram *h3, IrProgram *box3)
{
    Plan *one = must_build(a, h3, "tb=16x16x1,stream=z,sb=16,tblock=2"); /* the same tile */
    Plan *p = must_build(a, h3, "tb=16x4x1,stream=z,sb=16,tblock=2,bm=1x4x1");
    assert(strcmp(one->source, p->source) != 0 && !strstr(one->source, "_c0"));
    has(p->source, "In-plane tile 16x16, output 12x12");
    has(p->source, "4 columns per thread, adjacent along y");
    const PlanLaunch *l = stage_launch(p, "heat3_step");
    assert(l->block[0] == 16 && l->block[1] == 4 && l->block[2] == 1);
    assert(l->tile[0] == 12 && l->tile[1] == 12 && l->tile[2] == 16);
    assert(l->smem_bytes == 2 * 2 * 3 * 16 * 16 * 8); /* 2 fields x K rings x Q planes of the whole tile */
    has(p->source, "const int ty_c3 = ty * 4 + 3;");
    has(p->source, "const int lcol_c3 = ty_c3 * 16 + tx;");
    has(p->source, "const bool col_out_c3 = col_interior_c3 && tx >= 2 && tx < 14 && ty_c3 >= 2 && ty_c3 < 14;");
    has(p->source, "double q0_1_2_c3 = (double)0;");
    has(p->source, "tbs0_0[lcol_c3 + 256] = nx0_c3;");
    has(p->source, "f_v_lp1[idx] = q0_1_");
    /* u[0,-1,0] of column 1 is column 0's register; of column 0, the ring's row above */
    has(p->source, "tbs0_0[lcol_c0 - 16]");
    assert(!strstr(p->source, "tbs0_0[lcol_c1 - 16]") && !strstr(p->source, "tbs0_0[lcol_c2 + 16]"));
    assert(hb_count(p->source, "tbs0_0[lcol_c3 + 16]") == hb_count(p->source, "tbs0_0[lcol_c0 - 16]"));
    Plan *two = must_build(a, h3, "tb=16x4x1,stream=z,sb=16,tblock=2,bm=1x2x1");
    assert(stage_launch(two, "heat3_step")->tile[1] == 4 && strcmp(two->source, p->source) != 0);
    IrProgram *fixed = hb_with_boundary(hb_example(a, 1), BC_FIXED);
    has(must_build(a, fixed, "tb=16x4x1,stream=z,sb=16,tblock=3,bm=1x8x1")->source, "8 columns per thread");
    /* retimed: each column's partial sums; of a 3x3x3 box's 8 in-plane neighbours, the edge
     * columns read 7 from the ring, the others 6 (2 steps x 4 copies) */
    Plan *rt = must_build(a, fixed, "tb=16x4x1,stream=z,sb=16,tblock=2,retime=on,bm=1x4x1");
    has(rt->source, "retiming, 2 steps per launch");
    has(rt->source, "4 columns per thread");
    has(rt->source, "double a2_2_c3 = (double)0;");
    has(rt->source, "const double *const rd = tbs0_0 + 256 + lcol_c3;");
    assert(hb_count(rt->source, "rd[") == (7 + 6 + 6 + 7) * 2 * 4);

    refused(a, star, "tb=64x1,stream=y,sb=16,tblock=2,bm=1x2x1", "along x in 2D");
    refused(a, h3, "tb=16x8x1,stream=z,sb=16,tblock=2,bm=2x1x1", "adjacent along y");
    refused(a, h3, "tb=16x8x1,stream=z,sb=16,tblock=2,bm=1x1x2", "adjacent along y");
    refused(a, h3, "tb=16x8x8,tblock=2,bm=1x2x1", "combines with no other"); /* not streaming */
    /* periodic: each column's source; clamp and mirror: a read in-plane takes its source's
     * column, perhaps another thread's, from the ring (never a column's register) */
    has(must_build(a, box3, "tb=16x8x1,stream=z,sb=16,tblock=2,bm=1x2x1")->source, "const int src_j_c1 = ");
    IrProgram *clamp = hb_with_boundary(hb_example(a, 1), BC_CLAMP);
    Plan *pc = must_build(a, clamp, "tb=16x8x1,stream=z,sb=16,tblock=2,bm=1x2x1");
    has(pc->source, "const int rc_0_m1_c1 = ");
    has(pc->source, "tbs0_0[rc_0_m1_c1 + "); /* column 1's u[*,-1,*]: not column 0's register */
    refused(a, h3, "tb=32x8x1,stream=z,sb=16,tblock=4,bm=1x8x1", "queue registers a thread");
    refused(a, h3, "tb=16x2x1,stream=z,sb=16,tblock=2,bm=1x2x1", "less than half"); /* 4 rows */
}

/* 2D, several columns per thread (bm=Cx1 with stream=y): adjacent along x, tile tbx*C; the
 * shared tile is transposed (column c of thread t at slot c*tbx + t), an x-neighbour of the
 * same thread comes from its register, and only the end columns, which other threads read, are
 * stored to the rings. */
static void test_stream_columns_2d(Arena *a, IrProgram *star)
{
    Plan *one = must_build(a, star, "tb=64x1,stream=y,sb=16,tblock=2");
    Plan *p = must_build(a, star, "tb=16x1,stream=y,sb=16,tblock=2,bm=4x1");
    assert(strcmp(one->source, p->source) != 0 && !strstr(one->source, "_c0"));
    has(p->source, "In-plane tile 64x1, output 60x1");
    has(p->source, "4 columns per thread, adjacent along x");
    const PlanLaunch *l = stage_launch(p, "star2d1r_step");
    assert(l->block[0] == 16 && l->block[1] == 1 && l->tile[0] == 60);
    assert(l->smem_bytes == stage_launch(one, "star2d1r_step")->smem_bytes);
    has(p->source, "const int tx_c3 = tx * 4 + 3;");
    has(p->source, "const int lcol_c3 = tx + 48;");
    has(p->source, "const bool col_out_c3 = col_interior_c3 && tx_c3 >= 2 && tx_c3 < 62;");
    /* u[-1,0] of column 0 is column 3 of the thread before (slot 48 + tx - 1); of column 1,
     * column 0's register; u[1,0] of column 3 is column 0 of the thread after (slot tx + 1) */
    has(p->source, "tbs0_0[lcol_c0 + 47]");
    has(p->source, "tbs0_0[lcol_c3 - 47]");
    hb_lacks(p->source, "tbs0_0[lcol_c1 +");
    hb_lacks(p->source, "tbs0_0[lcol_c2 +");
    has(p->source, "0.100000001f * q0_0_2_c0 + 0.300000012f * q0_0_2_c2");
    assert(hb_count(p->source, "tbs0_0[lcol_c0 + 47]") == hb_count(p->source, "tbs0_0[lcol_c3 - 47]"));
    /* radius 1, two columns: both are ends, both stored; select pads by the radius */
    Plan *s2 = must_build(a, star, "tb=32x1,stream=y,sb=16,tblock=4,bm=2x1,select=on");
    has(s2->source, "tbs0_1[lcol_c1 + ");
    has(s2->source, "float *const tbs0_0 = (float *)tb_smem + 1;");
    hb_lacks(s2->source, "if (interior && col_inner_c");
    refused(a, star, "tb=32x1,stream=y,sb=16,tblock=2,bm=2x1,retime=on", "retime=on");
    /* clamp and mirror: every column stored (a halo column's source may be an inner one); the
     * fast loop reads as under a fixed edge and a thread with a halo column computes its steps
     * again at the end of each copy, from its source's neighbourhood (rc_*); the checked loop
     * reads at the sources' slots */
    Plan *cl = must_build(a, hb_with_boundary(hb_example(a, 0), BC_CLAMP), "tb=32x1,stream=y,sb=16,tblock=3,bm=4x1");
    has(cl->source, "tbs0_0[lcol_c1 + 0] = nx0_c1;");
    has(cl->source, "tbs0_0[lcol_c2 + 0] = nx0_c2;");
    has(cl->source, "const int rc_m1_0_c1_x = min(max(src_i_c1 - 1, 0), n0 - 1);"); /* around the source */
    has(cl->source, "const int rc_m1_0_c1 = rc_m1_0_c1_t % 4 * 32 + rc_m1_0_c1_t / 4;");
    const char *fast = strstr(cl->source, "if (all_in) {"), *checked = strstr(fast, "    } else {");
    const char *fix = strstr(fast, "if (i_c0 < 0 && i_c0 + 3 >= -1 || i_c0 + 3 >= n0 && i_c0 < n0 + 1) {");
    assert(checked && fix && fix < checked);
    assert(strstr(fast, "* tbs0_0[lcol_c0 + ") && strstr(fast, "* tbs0_0[lcol_c0 + ") < fix); /* a read beside its own */
    assert(strstr(fix, "tbs0_0[rc_m1_0_c1 + ") < checked);
    has(fix, "q0_2_0_c3 = !col_interior_c3 ? w0[0] : q0_2_0_c3;"); /* steps 1 and 2 of copy 0 */
    has(fix, "tbs0_2[lcol_c3 + 0] = q0_2_0_c3;");
    assert(hb_count(cl->source, "? w0[0] : q0_") == 3 * 2 * 4); /* copies x steps below K x columns */
    has(checked, "tbs0_0[rc_m1_0_c1 + ");
    has(must_build(a, hb_with_boundary(hb_example(a, 0), BC_MIRROR), "tb=32x1,stream=y,sb=16,tblock=2,bm=2x1")->source,
        "if (i_c0 < 0 && i_c0 + 1 >= -1 || i_c0 + 1 >= n0 && i_c0 < n0 + 1) {");
    must_build(a, hb_with_boundary(hb_example(a, 0), BC_PERIODIC), "tb=32x1,stream=y,sb=16,tblock=2,bm=2x1");
}

/* The transposed ring of 2D columns, exhaustively over C, the block and the radius: every read
 * at an offset dx from column c of thread t lands on the slot where point t*C + c + dx of the
 * tile is stored ((x mod C)*B + x/C) when that point is in the tile, and within R slots of the
 * plane otherwise (what the select pad covers); only the own column is at offset 0; and every
 * slot another thread reads is one tbs_ring_read stores. */
static void test_transposed_ring(void)
{
    for (int C = 2; C <= 8; C *= 2)
        for (int B = 8; B <= 32; B *= 4)
            for (int R = 1; R <= 4; R++) {
                TbsGeom g;
                memset(&g, 0, sizeof g);
                g.dims = 2, g.sd = 1, g.C = C, g.ca = 0, g.B[0] = B, g.E[0] = B * C, g.H[0] = R;
                for (int t = 0; t < B; t++)
                    for (int c = 0; c < C; c++)
                        for (int dx = -R; dx <= R; dx++) {
                            int off[3] = {dx, 0, 0}, x = t * C + c + dx;
                            g.col = c;
                            long long at = (long long)c * B + t + tbs_inplane_offset(&g, off);
                            assert((tbs_inplane_offset(&g, off) == 0) == (dx == 0));
                            if (x < 0 || x >= B * C) {
                                assert(at >= -R && at < (long long)B * C + R);
                                continue;
                            }
                            assert(at == (long long)(x % C) * B + x / C);
                            g.col = x % C;
                            assert(x / C == t || tbs_ring_read(&g));
                            g.map = 1; /* clamp, mirror: any column may be a halo column's source */
                            assert(tbs_ring_read(&g));
                            g.map = 0;
                        }
            }
}

/* select=on: each fused step below K computes every column's point and keeps it by a select, no
 * branch; the rings sit between paddings of the farthest in-plane read, so that an edge column's
 * reads stay in shared memory. Refused with the retimed kernel, without streaming, and where the
 * step reads a field from memory (h3's coef). */
static void test_select(Arena *a, IrProgram *star, IrProgram *h3)
{
    Plan *off = must_build(a, star, "tb=64x1,stream=y,sb=16,tblock=4");
    Plan *on = must_build(a, star, "tb=64x1,stream=y,sb=16,tblock=4,select=on");
    assert(hb_count(off->source, "if (interior && col_inner) {") == 2 * 3 * 3);
    hb_lacks(on->source, "if (interior && col_inner)");
    assert(hb_count(on->source, "r0 = interior && col_inner ? w0[0] : r0;") == 2 * 3 * 3);
    has(on->source, "float *const tbs0_0 = (float *)tb_smem + 1;"); /* pad: u[-1,0] reaches 1 back */
    assert(stage_launch(on, "star2d1r_step")->smem_bytes == (4 * 3 * 64 + 2 * 1) * 4);
    assert(stage_launch(off, "star2d1r_step")->smem_bytes == 4 * 3 * 64 * 4);
    /* 3D, four columns a thread: the pad is a row and a point (16 + 1) */
    IrProgram *fixed = hb_with_boundary(hb_example(a, 1), BC_FIXED);
    Plan *b3 = must_build(a, fixed, "tb=16x4x1,stream=z,sb=16,tblock=3,bm=1x4x1,select=on");
    has(b3->source, "(double *)tb_smem + 17;");
    has(b3->source, "r0 = interior && col_inner_c3 ? w0[0] : r0;");
    hb_lacks(b3->source, "if (interior && col_inner_c");
    refused(a, fixed, "tb=16x4x1,stream=z,sb=16,tblock=2,retime=on,bm=1x4x1,select=on", "retime=off");
    refused(a, star, "tb=64x8,tblock=4,select=on", "tblock with stream");
    refused(a, star, "tb=64x1,stream=y,sb=16,select=on", "tblock with stream");
    refused(a, h3, "tb=16x8x1,stream=z,sb=16,tblock=2,select=on", "reads c from memory");
}

int main(void)
{
    Arena *a = arena_new();
    IrProgram *star = hb_example(a, 0), *box3 = hb_example(a, 1), *wave = hb_example(a, 2);
    IrProgram *two = hb_example(a, 3), *stages = hb_example(a, 4), *heat1 = hb_example(a, 5);
    IrProgram *h3 = heat3d(a);

    test_tile_2d(a, star);
    test_tile_3d(a, h3, box3);
    /* What the kernel cannot do is refused with the reason. */
    refused(a, star, "tb=32x32,tblock=16", "less than half");
    refused(a, star, "tb=32x8,tblock=2,maxreg=64,uf=1x2x1", "uf"); /* another pass's parameter */
    (void)wave; /* three levels: test_temporal_levels.c */
    refused(a, two, "tb=32x8,tblock=2", "not written");
    refused(a, stages, "tb=32x8,tblock=2", "stages");
    (void)heat1;
    test_edges(a);
    test_reflect(a);
    test_hwrap(a);
    test_hold(a, star, wave);
    test_stream_2d(a, star);
    test_stream_box_3d(a, h3);
    test_fast_arith(a);
    test_retime(a, h3);
    test_stream_refused(a, star, h3, box3);
    test_stream_columns(a, star, h3, box3);
    test_stream_columns_2d(a, star);
    test_transposed_ring();
    test_tile_structure(a, star, h3);
    test_stream_structure(a, star, box(a, 2));
    test_select(a, star, h3);
    test_space(star);

    arena_free(a);
    puts("opt_temporal: ok");
    return 0;
}
