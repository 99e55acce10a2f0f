/* Runtime pieces that need no GPU: the loader reports a missing GPU or driver cleanly, and the
 * comparison, tolerance and size helpers behave. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rt_internal.h"

static void check_loader(void)
{
    char why[512] = "";
    int ok = rt_available(why, (int)sizeof why);
    printf("rt_available: %d (%s)\n", ok, ok ? "GPU found" : why);
    if (!ok) {
        assert(why[0] != 0);
        char why2[512] = "";
        RtContext *rc = rt_context_new(why2, (int)sizeof why2);
        assert(rc == NULL);
        assert(why2[0] != 0);
        printf("rt_context_new: %s\n", why2);
        return;
    }
    RtContext *rc = rt_context_new(why, (int)sizeof why);
    assert(rc);
    rt_device_print(stdout, rc);
    assert(rt_device_info(rc)->sm_count > 0);
    rt_context_free(rc);
    /* A context can be made again after it is freed: no state is left behind. */
    rc = rt_context_new(why, (int)sizeof why);
    assert(rc);
    rt_context_free(rc);
}

/* A two-field program (state u, coef c) on a 5x4 grid with halo 1, built by hand. */
static IrField fields[2];
static IrProgram prog;

static InterpGrid *grid_by_hand(void)
{
    InterpGrid *g = calloc(1, sizeof *g);
    g->prog = &prog;
    g->total = 1;
    for (int d = 0; d < 3; d++) {
        g->n[d] = d < 2 ? 5 - d : 1;
        g->pad[d] = g->n[d] + 2 * prog.halo[d];
        g->total *= g->pad[d];
    }
    for (int f = 0; f < 2; f++) {
        int nb = fields[f].role == ROLE_STATE ? fields[f].levels : 1;
        g->buf[f] = calloc(3, sizeof(double *));
        for (int l = 0; l < nb; l++) {
            g->buf[f][l] = calloc((size_t)g->total, sizeof(double));
            for (long i = 0; i < g->total; i++)
                g->buf[f][l][i] = 1.0 + (double)i / 100;
        }
    }
    return g;
}

static void free_grid(InterpGrid *g)
{
    for (int f = 0; f < 2; f++) {
        for (int l = 0; l < 3; l++)
            free(g->buf[f][l]);
        free(g->buf[f]);
    }
    free(g);
}

static void check_compare(void)
{
    fields[0] = (IrField){ .name = "u", .role = ROLE_STATE, .levels = 2 };
    fields[1] = (IrField){ .name = "c", .role = ROLE_COEF, .levels = 1 };
    prog = (IrProgram){ .name = "hand", .dims = 2, .type = ELEM_FLOAT, .fields = fields,
                        .nfields = 2, .halo = { 1, 1, 0 } };
    InterpGrid *a = grid_by_hand(), *b = grid_by_hand();
    int worst = -2;
    assert(rt_compare_grids(a, b, &worst) == 0 && worst == 0);

    /* A change in the halo is not compared; one in the interior is, relative to max |b|. */
    a->buf[0][0][0] += 5;
    assert(rt_compare_grids(a, b, &worst) == 0);
    long mid = (2 * a->pad[0]) + 2;
    double maxb = 0;
    for (long i = 0; i < b->total; i++)
        if (i / b->pad[0] >= 1 && i / b->pad[0] <= b->n[1] && i % b->pad[0] >= 1
            && i % b->pad[0] <= b->n[0])
            maxb = fmax(maxb, b->buf[1][0][i]);
    a->buf[1][0][mid] += 0.01;
    double e = rt_compare_grids(a, b, &worst);
    assert(worst == 1 && fabs(e - 0.01 / maxb) < 1e-12);

    /* The newest buffer is the one compared. */
    a->buf[1][0][mid] -= 0.01;
    a->buf[0][1][mid] += 1;
    assert(rt_compare_grids(a, b, &worst) == 0);
    a->newest[0] = 1;
    b->newest[0] = 1;
    b->buf[0][1][mid] += 1;
    assert(rt_compare_grids(a, b, &worst) == 0);
    a->newest[0] = 0;
    assert(rt_compare_grids(a, b, &worst) > 0 && worst == 0);

    /* NaN is always a failure. */
    a->buf[0][0][mid] = NAN;
    assert(isinf(rt_compare_grids(a, b, &worst)));
    free_grid(a);
    free_grid(b);

    assert(rt_tolerance(&prog, 5) == 1e-5);
    prog.fast_math = 1; /* --fast-math: the approximate float arithmetic's own tolerance */
    assert(rt_tolerance(&prog, 5) == 1e-3 && rt_tolerance(&prog, 50) == 1e-2);
    prog.fast_math = 0;
    prog.type = ELEM_DOUBLE;
    assert(rt_tolerance(&prog, 1) == 1e-12);
    assert(rt_tolerance(&prog, 50) > rt_tolerance(&prog, 5));
}

static void check_sizes(void)
{
    IrProgram p = { .dims = 2, .halo = { 1, 1, 0 } };
    int n[3];
    rt_verify_size(&p, n);
    assert(n[0] == 67 && n[1] == 61 && n[2] == 1);
    p = (IrProgram){ .dims = 3, .halo = { 4, 20, 1 } };
    rt_verify_size(&p, n);
    assert(n[0] == 37 && n[1] >= 43 && n[1] % 2 == 1 && n[2] == 29);
    p = (IrProgram){ .dims = 1, .halo = { 1, 0, 0 } };
    rt_verify_size(&p, n);
    assert(n[0] == 67 && n[1] == 1 && n[2] == 1);
    int m[3] = { 1000, 1000, 1 };
    assert(fabs(rt_gstencils(m, 1.0) - 1.0) < 1e-12);
}

/* Sizes past 2^31: launch grids computed in 64 bits and held to CUDA's limits, and a grid
 * beyond ir.h's index range refused before any size is computed in int (no GPU needed). */
static void check_index_range(void)
{
    char why[300] = "";
    unsigned grid[3];
    PlanLaunch fill = {.kernel = "k_fill", .tile = {128, 1, 0}, .axis_of = {1, 0, 2}, .extra = {2, 2, 0}};
    const int n[3] = {48000, 48000, 1};
    assert(rt_launch_grid(&fill, n, grid, why, (int)sizeof why) == 0);
    assert(grid[0] == (48002 + 127) / 128 && grid[1] == 48002 && grid[2] == 1);
    /* n + extra + tile - 1 passes INT_MAX: still counted right */
    PlanLaunch wide = {.kernel = "k_wide", .tile = {256, 0, 0}, .axis_of = {0, 1, 2}, .extra = {2, 0, 0}};
    const int top[3] = {2147483647, 1, 1};
    assert(rt_launch_grid(&wide, top, grid, why, (int)sizeof why) == 0);
    assert(grid[0] == (2147483647u + 2u + 255u) / 256u);
    /* more than 65535 blocks along y: refused with the kernel's name, not truncated */
    PlanLaunch tall = {.kernel = "k_tall", .tile = {32, 8, 0}, .axis_of = {0, 1, 2}};
    const int high[3] = {64, 8 * 65535 + 1, 1};
    assert(rt_launch_grid(&tall, high, grid, why, (int)sizeof why) == -1);
    assert(strstr(why, "k_tall") && strstr(why, "65536 blocks along y"));

    fields[0] = (IrField){ .name = "u", .role = ROLE_STATE, .levels = 2 };
    prog = (IrProgram){ .name = "wide", .dims = 1, .type = ELEM_FLOAT, .fields = fields,
                        .nfields = 1, .halo = { 1, 0, 0 } };
    why[0] = 0;
    assert(rt_grid_new(NULL, &prog, top, why, (int)sizeof why) == NULL);
    assert(strstr(why, "grid size 2147483647 on axis x is too large"));
    printf("index range: %s\n", why);
}

/* A three-level field on four buffers (rt_ring.c): widened, levels keep their buffers with the
 * fourth at level +1; after a fused launch (levels +1 and +2 written, two rotations) narrowed,
 * the three newest levels are the three-buffer ring's, and no buffer is lost. */
static void check_ring(void)
{
    IrField three[1] = {{.name = "u", .role = ROLE_STATE, .levels = 3}};
    IrProgram ring = {.name = "ring", .dims = 1, .type = ELEM_FLOAT, .fields = three, .nfields = 1};
    Plan plan = {.prog = &ring, .ring3 = 4};
    RtGrid g = {.prog = &ring};
    const CUdeviceptr A = 1, B = 2, C = 3, X = 4;
    g.buf[0][0] = A, g.buf[0][1] = B, g.buf[0][2] = C, g.buf[0][3] = X;
    g.newest[0] = 1; /* level 0 is B, -1 A, -2 C */
    char why[256];
    assert(rt_ring_widen(&g, &plan, why, (int)sizeof why) == 0 && g.ring[0] == 4);
#define LEVEL(l) g.buf[0][((g.newest[0] + (l)) % 4 + 4) % 4]
    assert(LEVEL(0) == B && LEVEL(-1) == A && LEVEL(-2) == C && LEVEL(1) == X);
    const CUdeviceptr older = LEVEL(1), newest = LEVEL(2); /* t+K-1 and t+K */
    g.newest[0] = (g.newest[0] + 2) % 4;
#undef LEVEL
    rt_ring_narrow(&g);
    assert(g.ring[0] == 0 && g.newest[0] == 0);
    assert(g.buf[0][0] == newest && g.buf[0][2] == older && g.buf[0][1] == B);
    assert(g.buf[0][0] + g.buf[0][1] + g.buf[0][2] + g.buf[0][3] == A + B + C + X);
    /* a plan without fused three-level steps leaves the grid alone */
    plan.ring3 = 3;
    assert(rt_ring_widen(&g, &plan, why, (int)sizeof why) == 0 && g.ring[0] == 0 && g.buf[0][0] == newest);
}

int main(void)
{
    check_loader();
    check_index_range();
    check_compare();
    check_sizes();
    check_ring();
    puts("ok");
    return 0;
}
