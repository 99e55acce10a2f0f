/* The reductions on the GPU (codegen/emit_reduce.c's launches) and their check against the
 * interpreter's on the same state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt_internal.h"

int rt_reduce(RtModule *m, RtGrid *g, double *out, char *why, int whylen)
{
    const Plan *p = m->plan;
    int nr = p->prog->nreduces;
    if (nr == 0)
        return 0;
    RtContext *rc = m->rc;
    if (RT_CU(rc, CtxSetCurrent(rc->ctx), "cuCtxSetCurrent", why, whylen)
        || RT_CU(rc, MemAlloc(&g->scratch, (size_t)PLAN_REDUCE_SLOT(nr) * sizeof(double)), "reduction scratch", why,
                 whylen))
        return -1;
    int status = rt_launch_list(m, g, p->reduce, m->reduce, p->nreduce, why, whylen);
    for (int r = 0; status == 0 && r < nr; r++)
        if (RT_CU(rc, MemcpyDtoH(&out[r], g->scratch + (CUdeviceptr)PLAN_REDUCE_VALUE(r) * sizeof(double),
                                 sizeof(double)), "reduction value", why, whylen))
            status = -1;
    rc->api.MemFree(g->scratch);
    g->scratch = 0;
    return status;
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

int rt_verify_reductions(RtModule *m, RtGrid *g, InterpGrid *state, RtVerifyResult *res, char *why, int whylen)
{
    int nr = m->plan->prog->nreduces;
    res->worst_reduce = -1;
    if (nr == 0)
        return 0;
    double *got = calloc((size_t)nr * 3, sizeof *got), *want = got + nr, *scale = got + 2 * nr;
    if (!got) {
        snprintf(why, (size_t)whylen, "out of host memory");
        return -1;
    }
    int status = rt_reduce(m, g, got, why, whylen);
    if (status == 0) {
        interp_reduce(state, want, scale);
        for (int r = 0; r < nr; r++) {
            double e = reduce_error(got[r], want[r], scale[r]);
            if (e > res->max_rel_err) {
                res->max_rel_err = e;
                res->worst_reduce = r;
            }
        }
    }
    free(got);
    return status;
}
