/* Reductions on the GPU (codegen/emit_reduce.c, runtime/rt_reduce.c) against the interpreter:
 * examples/wave3d_energy.st (float, three levels, a coef and a param) verified by rt_verify_plan
 * (fields and reductions) under several kernel families; then examples/jacobi_residual.st solving Laplace's
 * equation with a linear boundary in rounds of steps until its residual is below 1e-8, every
 * round's reductions against the interpreter's run in lockstep; the same value twice; NaN kept;
 * the fused step (NAME_run_reduce) against the separate pass and the interpreter, and through
 * rt_verify_plan (tests/programs/reduce_fused.st, reduce_stages.st, the Jacobi under temporal
 * blocking, the streaming kernels). Exits 77 without a GPU. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "../driver/load_program.h"
#include "interp.h"
#include "rt.h"

static int failures;
#define CHECK(c) do { if (!(c)) { printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static Plan *plan_of(const IrProgram *p, const char *cfg, Arena *a)
{
    Config c;
    char why[256];
    assert(config_parse(cfg, p->dims, &c, why, sizeof why) == 0);
    Plan *plan = plan_build(p, &c, a, why, sizeof why);
    if (!plan)
        printf("%s with '%s': %s\n", p->name, cfg, why);
    assert(plan);
    return plan;
}

static void verify_energy(RtContext *rc, Arena *a)
{
    IrProgram *p = load_example("wave3d_energy.st", a);
    assert(p && p->nreduces == 3);
    static const char *const configs[] = {"", "tb=32x4x2,smem=on", "tb=32x4x1,stream=z,sb=16", "tb=64x2x2,bm=1x2x1,uf=1x2x1"};
    for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
        char why[1024];
        Plan *plan = plan_of(p, configs[i], a);
        RtModule *m = rt_compile_plan(rc, plan, why, sizeof why);
        if (!m)
            printf("compile '%s': %s\n", configs[i], why);
        assert(m);
        RtVerifyResult res;
        CHECK(rt_verify_plan(rc, m, NULL, 0, &res, why, sizeof why) == 0);
        printf("energy3d '%s': error %.3g (tolerance %.3g), worst reduction %d\n", configs[i], res.max_rel_err,
               res.tolerance, res.worst_reduce);
        CHECK(res.ok);
        rt_module_free(m);
    }
}

/* u = i on the halo (a harmonic function: the solution is u = i), 0 inside. */
static void laplace_start(InterpGrid *g)
{
    for (int j = -1; j <= g->n[1]; j++)
        for (int i = -1; i <= g->n[0]; i++) {
            int inside = i >= 0 && i < g->n[0] && j >= 0 && j < g->n[1];
            for (int l = 0; l < 2; l++)
                g->buf[0][l][interp_index(g, i, j, 0)] = inside ? 0.0 : (double)i;
        }
}

static void solve_jacobi(RtContext *rc, Arena *a)
{
    char why[1024];
    IrProgram *p = load_example("jacobi_residual.st", a);
    assert(p && p->nreduces == 3 && strcmp(p->reduces[0].name, "residual") == 0);
    Plan *plan = plan_of(p, "tblock=2", a);
    RtModule *m = rt_compile_plan(rc, plan, why, sizeof why);
    assert(m);
    const int n[3] = {31, 25, 1};
    InterpGrid *want = interp_grid_new(p, n);
    laplace_start(want);
    RtGrid *g = rt_grid_new(rc, p, n, why, sizeof why);
    assert(g && rt_grid_upload(g, want, why, sizeof why) == 0);
    double got[3], ref[3], scale[3], again[3];
    int rounds = 0;
    do {
        CHECK(rt_run(m, g, 250, why, sizeof why) == 0);
        interp_run(want, 250);
        CHECK(rt_reduce(m, g, got, why, sizeof why) == 0);
        interp_reduce(want, ref, scale);
        for (int r = 0; r < 3; r++)
            if (!(fabs(got[r] - ref[r]) <= 1e-10 * (1 + scale[r]))) {
                printf("round %d, %s: GPU %.17g, interpreter %.17g\n", rounds, p->reduces[r].name, got[r], ref[r]);
                failures++;
            }
        rounds++;
    } while (got[0] >= 1e-8 && rounds < 40);
    printf("jacobi: residual %.3g after %d steps (interpreter %.3g), sum %.10g, min %.3g\n", got[0], 250 * rounds,
           ref[0], got[1], got[2]);
    CHECK(got[0] < 1e-8);
    CHECK(fabs(got[1] - 15.0 * 31 * 25) < 1e-3); /* u = i (up to residual / smallest eigenvalue, 4e-7 a point) */
    CHECK(rt_reduce(m, g, again, why, sizeof why) == 0 && memcmp(got, again, sizeof got) == 0);

    CHECK(rt_grid_download(g, want, why, sizeof why) == 0);
    want->buf[0][want->newest[0]][interp_index(want, 7, 5, 0)] = NAN;
    CHECK(rt_grid_upload(g, want, why, sizeof why) == 0);
    CHECK(rt_reduce(m, g, got, why, sizeof why) == 0);
    CHECK(isnan(got[0]) && isnan(got[1]) && isnan(got[2]));
    rt_grid_free(g);
    interp_grid_free(want);
    rt_module_free(m);
}

/* NAME_run_reduce (rt_run_reduce: the last step fused where reductions fuse) against the
 * separate pass after rt_run on the same start, and both against the interpreter: within the
 * sums' tolerance (the fused sum adds its partials in another order), for the plain kernel,
 * the tile kernels (staged, merged, vectors, halo columns), temporal blocking (its single step
 * fused) and the streaming kernels (register mode, the shared ring, retiming); run twice from
 * the same start, the fused values are the same bits. */
static void fused_against_separate(RtContext *rc, Arena *a, const char *rel, const char *cfg, int steps)
{
    char why[1024];
    IrProgram *p = load_example(rel, a);
    assert(p && p->nreduces <= 8);
    Plan *plan = plan_of(p, cfg, a);
    RtModule *m = rt_compile_plan(rc, plan, why, sizeof why);
    if (!m)
        printf("compile %s '%s': %s\n", p->name, cfg, why);
    assert(m);
    int n[3];
    rt_verify_size_plan(plan, n);
    InterpGrid *want = interp_grid_new(p, n);
    interp_fill_random(want, 11);
    RtGrid *fused = rt_grid_new(rc, p, n, why, sizeof why), *separate = rt_grid_new(rc, p, n, why, sizeof why);
    RtGrid *again = rt_grid_new(rc, p, n, why, sizeof why);
    assert(fused && separate && again);
    double got[8], sep[8], ref[8], scale[8], twice[8];
    CHECK(rt_grid_upload(fused, want, why, sizeof why) == 0 && rt_grid_upload(separate, want, why, sizeof why) == 0);
    CHECK(rt_grid_upload(again, want, why, sizeof why) == 0);
    CHECK(rt_grid_download(separate, want, why, sizeof why) == 0); /* the start as the GPU holds it */
    CHECK(rt_run_reduce(m, fused, steps, got, why, sizeof why) == 0);
    CHECK(rt_run_reduce(m, again, steps, twice, why, sizeof why) == 0);
    CHECK(memcmp(got, twice, sizeof(double) * (size_t)p->nreduces) == 0);
    CHECK(rt_run(m, separate, steps, why, sizeof why) == 0 && rt_reduce(m, separate, sep, why, sizeof why) == 0);
    interp_run(want, steps);
    interp_reduce(want, ref, scale);
    double tol = p->type == ELEM_DOUBLE ? 1e-10 : 1e-4;
    for (int r = 0; r < p->nreduces; r++) {
        double t = tol * (1 + scale[r]);
        if (!(fabs(got[r] - sep[r]) <= t) || !(fabs(got[r] - ref[r]) <= t)) {
            printf("%s '%s', %s%s: run_reduce %.17g, reduce %.17g, interpreter %.17g\n", p->name, cfg, p->reduces[r].name,
                   plan->nfused_reduces && plan->reduce_fused[r] ? " (fused)" : "", got[r], sep[r], ref[r]);
            failures++;
        }
    }
    printf("%s '%s': %d of %d reductions fused, %d steps\n", p->name, cfg, plan->nfused_reduces, p->nreduces, steps);
    rt_grid_free(fused);
    rt_grid_free(separate);
    rt_grid_free(again);
    interp_grid_free(want);
    rt_module_free(m);
}

/* The fused step through rt_verify_plan (its fields and values against the interpreter too). */
static void verify_fused(RtContext *rc, Arena *a, const char *rel, const char *cfg)
{
    char why[1024];
    IrProgram *p = load_example(rel, a);
    assert(p);
    Plan *plan = plan_of(p, cfg, a);
    RtModule *m = rt_compile_plan(rc, plan, why, sizeof why);
    assert(m);
    RtVerifyResult res;
    CHECK(rt_verify_plan(rc, m, NULL, 0, &res, why, sizeof why) == 0);
    printf("%s '%s': %d fused, error %.3g (tolerance %.3g), worst reduction %d\n", p->name, cfg, plan->nfused_reduces,
           res.max_rel_err, res.tolerance, res.worst_reduce);
    CHECK(res.ok);
    rt_module_free(m);
}

int main(void)
{
    char why[512];
    RtContext *rc = rt_available(why, (int)sizeof why) ? rt_context_new(why, (int)sizeof why) : NULL;
    if (!rc) {
        printf("skipped: %s\n", why);
        return 77;
    }
    Arena *a = arena_new();
    verify_energy(rc, a);
    solve_jacobi(rc, a);
    fused_against_separate(rc, a, "../tests/programs/reduce_fused.st", "", 7);
    fused_against_separate(rc, a, "../tests/programs/reduce_fused.st", "tb=64x4x1", 1);
    fused_against_separate(rc, a, "../tests/programs/reduce_fused.st", "tb=32x8x1,smem=on", 3);
    fused_against_separate(rc, a, "../tests/programs/reduce_fused.st", "tb=32x8x1,bm=2x1x1,uf=2x1x1,vec=2", 3);
    fused_against_separate(rc, a, "../tests/programs/reduce_fused.st", "tb=32x4x1,cm=1x2x1,cmem=on,hcol=on", 2);
    fused_against_separate(rc, a, "../tests/programs/reduce_fused.st", "tb=32x32x1,bm=1x2x1,smem=on", 2); /* opts in */
    fused_against_separate(rc, a, "../tests/programs/reduce_stages.st", "", 4);
    fused_against_separate(rc, a, "../tests/programs/reduce_stages.st", "tb=32x4x2,smem=on,bm=1x1x2", 3);
    fused_against_separate(rc, a, "../tests/programs/reduce_stages.st", "tb=32x4x1,stream=z,sb=16", 3);
    fused_against_separate(rc, a, "../tests/programs/reduce_stages.st", "tb=32x4x1,stream=z,sb=8,smem=on,prefetch=on,uf=1x1x2", 3);
    fused_against_separate(rc, a, "../tests/programs/reduce_stages.st", "tb=32x1x2,stream=y,sb=8,smem=on", 2);
    fused_against_separate(rc, a, "../tests/programs/reduce_fused.st", "tb=32x1x1,stream=y,sb=16,smem=on", 3);
    fused_against_separate(rc, a, "../tests/programs/reduce_fused.st", "tb=64x1x1,stream=y,sb=8,prefetch=on", 2);
    fused_against_separate(rc, a, "jacobi_residual.st", "tb=32x1x1,stream=y,sb=16,retime=on", 3);
    fused_against_separate(rc, a, "../tests/programs/reduce_box3d.st", "tb=32x4x1,stream=z,sb=16,retime=on", 3);
    fused_against_separate(rc, a, "../tests/programs/reduce_box3d.st", "tb=16x2x1,stream=z,sb=8,retime=on,bm=1x4x1,prefetch=on", 3);
    fused_against_separate(rc, a, "wave3d_energy.st", "tb=32x4x1,stream=z,sb=16,bm=1x2x1", 3);
    fused_against_separate(rc, a, "wave3d_energy.st", "tb=32x4x1,stream=z,sb=8,retime=off,smem=on,uf=1x1x4", 2);
    fused_against_separate(rc, a, "jacobi_residual.st", "tblock=2", 5);
    fused_against_separate(rc, a, "jacobi_residual.st", "tblock=2", 4);
    verify_fused(rc, a, "../tests/programs/reduce_fused.st", "tb=128x2x1");
    verify_fused(rc, a, "../tests/programs/reduce_stages.st", "tb=32x4x2");
    verify_fused(rc, a, "jacobi_residual.st", "tblock=3");
    verify_fused(rc, a, "wave3d_energy.st", "tb=32x1x4,stream=y,sb=16,smem=on");
    verify_fused(rc, a, "../tests/programs/reduce_fused.st", "tb=32x1x1,stream=y,sb=8,smem=on,prefetch=on,uf=1x2x1");
    arena_free(a);
    rt_context_free(rc);
    puts(failures ? "FAIL" : "ok");
    return failures != 0;
}
