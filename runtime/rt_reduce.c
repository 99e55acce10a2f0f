/* The reductions on the GPU (codegen/emit_reduce.c's launches), the run whose last step folds
 * the fusable ones (emit_reduce_fused.c's, as NAME_run_reduce), and their check against the
 * interpreter's on the same state. */
#include <math.h>
#include <stdio.h>

#include "rt_internal.h"

/* g->scratch: `doubles` doubles on the device. */
static int scratch_alloc(RtModule *m, RtGrid *g, long long doubles, char *why, int whylen)
{
    RtContext *rc = m->rc;
    return RT_CU(rc, CtxSetCurrent(rc->ctx), "cuCtxSetCurrent", why, whylen)
           || RT_CU(rc, MemAlloc(&g->scratch, (size_t)doubles * sizeof(double)), "reduction scratch", why, whylen)
               ? -1 : 0;
}

/* After the launches (status): the values into out, the scratch freed. */
static int values_and_free(RtModule *m, RtGrid *g, int status, double *out, char *why, int whylen)
{
    RtContext *rc = m->rc;
    for (int r = 0; status == 0 && r < m->plan->prog->nreduces; r++)
        if (RT_CU(rc, MemcpyDtoH(&out[r], g->scratch + (CUdeviceptr)PLAN_REDUCE_VALUE(r) * sizeof(double),
                                 sizeof(double)), "reduction value", why, whylen))
            status = -1;
    rc->api.MemFree(g->scratch);
    g->scratch = 0;
    return status;
}

int rt_reduce(RtModule *m, RtGrid *g, double *out, char *why, int whylen)
{
    const Plan *p = m->plan;
    int nr = p->prog->nreduces;
    if (nr == 0)
        return 0;
    if (scratch_alloc(m, g, PLAN_REDUCE_SLOT(nr), why, whylen) != 0)
        return -1;
    return values_and_free(m, g, rt_launch_list(m, g, p->reduce, m->reduce, p->nreduce, why, whylen), out, why,
                           whylen);
}

int rt_run_reduce(RtModule *m, RtGrid *g, long steps, double *out, char *why, int whylen)
{
    const Plan *p = m->plan;
    if (steps < 1) {
        snprintf(why, (size_t)whylen, "run_reduce runs at least one step, not %ld", steps);
        return -1;
    }
    if (!p->nfused_reduces)
        return rt_run(m, g, steps, why, whylen) != 0 ? -1 : rt_reduce(m, g, out, why, whylen);
    if (rt_run_prologue(m, g, why, whylen) != 0 || rt_run_steps(m, g, steps - 1, why, whylen) != 0
        || scratch_alloc(m, g, plan_fused_scratch(p, g->n), why, whylen) != 0)
        return -1;
    int status = rt_launch_list(m, g, p->fused, m->fused, p->nfused, why, whylen);
    g->step++;
    if (status == 0)
        status = rt_launch_list(m, g, p->after, m->after, p->nafter, why, whylen);
    return values_and_free(m, g, status, out, why, whylen);
}

enum { RT_MAX_REDUCES = 256 };

static int too_many(int nr, char *why, int whylen)
{
    if (nr <= RT_MAX_REDUCES)
        return 0;
    snprintf(why, (size_t)whylen, "%d reductions (at most %d are verified)", nr, RT_MAX_REDUCES);
    return 1;
}

/* |got - want| relative to the value's magnitude (interp_reduce's scale); two NaNs agree. */
static double reduce_error(double got, double want, double scale)
{
    if (isnan(got) || isnan(want))
        return isnan(got) && isnan(want) ? 0.0 : INFINITY;
    if (got == want)
        return 0.0;
    return fabs(got - want) / (scale > 1e-30 ? scale : 1e-30);
}

/* The GPU's values got against the interpreter's on state: the largest error raises
 * res->max_rel_err and sets res->worst_reduce. */
static void compare_reductions(const double *got, const InterpGrid *state, RtVerifyResult *res)
{
    int nr = state->prog->nreduces;
    double want[RT_MAX_REDUCES], scale[RT_MAX_REDUCES];
    interp_reduce(state, want, scale);
    for (int r = 0; r < nr; r++) {
        double e = reduce_error(got[r], want[r], scale[r]);
        if (e > res->max_rel_err) {
            res->max_rel_err = e;
            res->worst_reduce = r;
        }
    }
}

int rt_verify_reductions(RtModule *m, RtGrid *g, InterpGrid *state, RtVerifyResult *res, char *why, int whylen)
{
    int nr = m->plan->prog->nreduces;
    res->worst_reduce = -1;
    if (nr == 0)
        return 0;
    double got[RT_MAX_REDUCES];
    if (too_many(nr, why, whylen) || rt_reduce(m, g, got, why, whylen) != 0)
        return -1;
    compare_reductions(got, state, res);
    return 0;
}

int rt_verify_fused(RtModule *m, const int n[3], long steps, unsigned seed, const InterpGrid *want,
                    RtVerifyResult *res, char *why, int whylen)
{
    const IrProgram *prog = m->plan->prog;
    if (!m->plan->nfused_reduces)
        return 0;
    double got[RT_MAX_REDUCES];
    InterpGrid *state = interp_grid_new(prog, n);
    RtGrid *g = rt_grid_new(m->rc, prog, n, why, whylen);
    int status = -1;
    if (!state || !g) {
        if (g)
            snprintf(why, (size_t)whylen, "out of host memory");
        goto done;
    }
    interp_fill_random(state, seed);
    if (too_many(prog->nreduces, why, whylen) || rt_grid_upload(g, state, why, whylen) != 0
        || rt_run_reduce(m, g, steps, got, why, whylen) != 0 || rt_grid_download(g, state, why, whylen) != 0)
        goto done;
    int worst;
    double e = rt_compare_grids(state, want, &worst);
    if (e > res->max_rel_err) {
        res->max_rel_err = e;
        res->worst_field = worst;
    }
    compare_reductions(got, state, res);
    status = 0;
done:
    rt_grid_free(g);
    if (state)
        interp_grid_free(state);
    return status;
}
