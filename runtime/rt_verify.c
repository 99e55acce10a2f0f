/* The check against the oracle: the plan and the interpreter run the same steps from the same
 * random data on a small odd-sized grid, so tiles never divide it evenly. */
#include <stdio.h>
#include "rt_internal.h"

void rt_verify_size(const IrProgram *prog, int n[3])
{
    static const int two_d[3] = { 67, 61, 1 }, three_d[3] = { 37, 33, 29 }, one_d[3] = { 67, 1, 1 };
    const int *base = prog->dims == 3 ? three_d : prog->dims == 2 ? two_d : one_d;
    for (int d = 0; d < 3; d++) {
        n[d] = base[d];
        /* Every axis at least as wide as the halo on both sides, and odd. */
        if (d < prog->dims && n[d] < 2 * prog->halo[d] + 3)
            n[d] = (2 * prog->halo[d] + 3) | 1;
    }
}

void rt_verify_align_rows(const Plan *plan, int n[3])
{
    /* vec > 1: a row length that is a multiple of vec, or only the checked path would run */
    int vec = plan->config.v[P_VEC], row = n[0] + 2 * plan->prog->halo[0];
    if (vec > 1 && row % vec)
        n[0] += vec - row % vec;
}

void rt_verify_size_plan(const Plan *plan, int n[3])
{
    rt_verify_size(plan->prog, n);
    for (int d = 0; d < 3; d++) /* so that the fused steps run */
        if (n[d] < plan->fused_min_n[d])
            n[d] = plan->fused_min_n[d] | 1;
    rt_verify_align_rows(plan, n);
}

int rt_verify_plan(RtContext *rc, RtModule *m, const int n_in[3], long steps, RtVerifyResult *res,
                   char *why, int whylen)
{
    const IrProgram *prog = m->plan->prog;
    int n[3];
    if (n_in)
        for (int d = 0; d < 3; d++)
            n[d] = d < prog->dims ? n_in[d] : 1;
    else
        rt_verify_size_plan(m->plan, n);
    if (steps <= 0) {
        /* Enough steps to run both the fused groups and the single steps. */
        int sc = m->plan->step_count > 0 ? m->plan->step_count : 1;
        steps = 2L * sc + (m->plan->nsingle > 0 ? 1 : 0);
        if (steps < 5 && sc == 1)
            steps = 5;
    }
    res->ok = 0;
    res->worst_field = -1;
    res->worst_reduce = -1;
    res->max_rel_err = 0;
    res->steps = steps;
    res->tolerance = rt_tolerance(prog, steps);
    for (int d = 0; d < 3; d++)
        res->n[d] = n[d];

    InterpGrid *want = interp_grid_new(prog, n), *got = interp_grid_new(prog, n);
    RtGrid *g = rt_grid_new(rc, prog, n, why, whylen);
    int status = -1;
    if (!want || !got || !g) {
        if (g)
            snprintf(why, (size_t)whylen, "out of host memory");
        goto done;
    }
    interp_fill_random(want, 2024);
    interp_fill_random(got, 2024);
    /* The round trip gives the interpreter exactly the values the GPU starts from (rounded to
     * float where the program is float). */
    if (rt_grid_upload(g, want, why, whylen) != 0 || rt_grid_download(g, want, why, whylen) != 0
        || rt_run(m, g, steps, why, whylen) != 0
        || rt_grid_download(g, got, why, whylen) != 0)
        goto done;
    interp_run(want, (int)steps);
    res->max_rel_err = rt_compare_grids(got, want, &res->worst_field);
    if (rt_verify_reductions(m, g, got, res, why, whylen) != 0
        || rt_verify_fused(m, n, steps, 2024, want, res, why, whylen) != 0)
        goto done;
    res->ok = res->max_rel_err <= res->tolerance;
    status = 0;
done:
    rt_grid_free(g);
    if (want)
        interp_grid_free(want);
    if (got)
        interp_grid_free(got);
    return status;
}
