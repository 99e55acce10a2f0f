/* Comparing final states: the GPU against the interpreter, and one plan against another. Only
 * the interior is compared (the halo's contents between steps are the generated code's
 * business), and only the newest buffer of each state field plus the coef fields (which no plan
 * may change). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "rt_internal.h"

static int compared(const IrField *f) { return f->role == ROLE_STATE || f->role == ROLE_COEF; }

double rt_tolerance(const IrProgram *prog, long steps)
{
    /* Rounding errors of the element type grow about linearly with the steps taken. The
     * approximate float arithmetic of --fast-math (2 ulp and more per operation, and
     * gradient2d's 1 / sqrt amplifies it: 1e-4 after a few fused steps) gets 100 times the
     * float tolerance. */
    double grow = steps > 5 ? (double)steps / 5.0 : 1.0;
    double base = prog->type == ELEM_DOUBLE ? 1e-12 : prog->fast_math ? 1e-3 : 1e-5;
    return base * grow;
}

/* max|a-b| over the interior, relative to max|b| (or to 1e-30 where b is all zeros); infinite
 * where one of them is not finite and the other differs (the same inf or NaN in both is
 * agreement: random data drive some programs, gray_scott among them, past float's range within
 * twenty steps). a and b are buffers of the padded layout, read through get. */
typedef double (*GetFn)(const void *buf, long i);
static double get_double(const void *b, long i) { return ((const double *)b)[i]; }
static double get_float(const void *b, long i) { return (double)((const float *)b)[i]; }

static double field_error(const IrProgram *prog, const int n[3], const int pad[3],
                          const void *a, const void *b, GetFn get)
{
    double max_diff = 0, max_ref = 0;
    int h[3];
    for (int d = 0; d < 3; d++)
        h[d] = d < prog->dims ? prog->halo[d] : 0;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                long at = ((long)(k + h[2]) * pad[1] + (j + h[1])) * pad[0] + (i + h[0]);
                double x = get(a, at), y = get(b, at);
                if (!isfinite(x) && !isfinite(y) && (x == y || (isnan(x) && isnan(y))))
                    continue; /* the same overflow in both */
                double diff = fabs(x - y);
                if (isnan(diff) || isinf(diff))
                    return INFINITY;
                if (diff > max_diff)
                    max_diff = diff;
                if (fabs(y) > max_ref)
                    max_ref = fabs(y);
            }
    return max_diff / (max_ref > 1e-30 ? max_ref : 1e-30);
}

double rt_compare_grids(const InterpGrid *got, const InterpGrid *want, int *worst_field)
{
    const IrProgram *prog = want->prog;
    double worst = 0;
    *worst_field = -1;
    for (int f = 0; f < prog->nfields; f++) {
        if (!compared(&prog->fields[f]))
            continue;
        double e = field_error(prog, want->n, want->pad, got->buf[f][got->newest[f]],
                               want->buf[f][want->newest[f]], get_double);
        if (*worst_field < 0 || e > worst) {
            worst = e;
            *worst_field = f;
        }
    }
    return worst;
}

/* Runs m on a fresh grid of random data and leaves the grid, for rt_compare_plans. */
static RtGrid *run_fresh(RtContext *rc, RtModule *m, const int n[3], long steps, char *why,
                         int whylen)
{
    RtGrid *g = rt_grid_new(rc, m->plan->prog, n, why, whylen);
    if (!g)
        return NULL;
    if (rt_grid_fill_random(g, 12345, why, whylen) != 0 || rt_run(m, g, steps, why, whylen) != 0) {
        rt_grid_free(g);
        return NULL;
    }
    return g;
}

int rt_compare_plans(RtContext *rc, RtModule *a, RtModule *b, const int n[3], long steps,
                     RtVerifyResult *res, char *why, int whylen)
{
    const IrProgram *prog = a->plan->prog;
    RtGrid *ga = NULL, *gb = NULL;
    char *ha = NULL, *hb = NULL;
    int status = -1;
    res->ok = 0;
    res->worst_field = -1;
    res->worst_reduce = -1;
    res->max_rel_err = 0;
    res->steps = steps;
    res->tolerance = rt_tolerance(prog, steps);
    if (!(ga = run_fresh(rc, a, n, steps, why, whylen)))
        goto done;
    for (int d = 0; d < 3; d++)
        res->n[d] = ga->n[d];
    /* One grid at a time on the GPU: the timing grid may not fit twice. Keep a's result on the
     * host. */
    if (!(ha = malloc(ga->bytes * (size_t)prog->nfields + 1))) {
        snprintf(why, (size_t)whylen, "out of host memory");
        goto done;
    }
    for (int f = 0; f < prog->nfields; f++)
        if (compared(&prog->fields[f])
            && RT_CU(rc, MemcpyDtoH(ha + ga->bytes * (size_t)f, ga->buf[f][ga->newest[f]],
                                    ga->bytes), "download", why, whylen))
            goto done;
    rt_grid_free(ga);
    ga = NULL;
    if (!(gb = run_fresh(rc, b, n, steps, why, whylen)))
        goto done;
    if (!(hb = malloc(gb->bytes + 1))) {
        snprintf(why, (size_t)whylen, "out of host memory");
        goto done;
    }
    for (int f = 0; f < prog->nfields; f++) {
        if (!compared(&prog->fields[f]))
            continue;
        if (RT_CU(rc, MemcpyDtoH(hb, gb->buf[f][gb->newest[f]], gb->bytes), "download", why,
                  whylen))
            goto done;
        double e = field_error(prog, gb->n, gb->pad, hb, ha + gb->bytes * (size_t)f,
                               prog->type == ELEM_DOUBLE ? get_double : get_float);
        if (res->worst_field < 0 || e > res->max_rel_err) {
            res->max_rel_err = e;
            res->worst_field = f;
        }
    }
    res->ok = res->max_rel_err <= res->tolerance;
    status = 0;
done:
    rt_grid_free(ga);
    rt_grid_free(gb);
    free(ha);
    free(hb);
    return status;
}

long rt_reference_steps(const Plan *p)
{
    long sc = p && p->step_count > 0 ? p->step_count : 1;
    long steps = 2 * sc + (p && p->nsingle > 0 ? 1 : 0);
    return steps < 4 ? 4 : steps;
}

int rt_compare_reference(RtContext *rc, RtModule *ref, RtModule *m, const int n[3], long steps,
                         RtVerifyResult *res, int *decided, char *why, int whylen)
{
    if (steps <= 0)
        steps = rt_reference_steps(m->plan);
    *decided = 0;
    if (rt_compare_plans(rc, ref, ref, n, steps, res, why, whylen) != 0)
        return -1;
    if (!res->ok)
        return 0;
    if (rt_compare_plans(rc, ref, m, n, steps, res, why, whylen) != 0)
        return -1;
    *decided = 1;
    return 0;
}
