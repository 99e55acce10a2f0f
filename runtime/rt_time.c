/* Timing a plan: CUDA events around the step launches, a warm-up first, repetitions until the
 * measured time is long enough to trust, the median reported. When the grid fits in L2, a
 * buffer larger than L2 is written between repetitions so no repetition starts from a warm
 * cache. */
#include <stdio.h>
#include <stdlib.h>
#include "rt_internal.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static size_t grid_bytes(const RtGrid *g)
{
    size_t total = 0;
    for (int f = 0; f < g->prog->nfields; f++) {
        const IrField *fl = &g->prog->fields[f];
        total += g->bytes * (size_t)(fl->role == ROLE_STATE ? fl->levels : 1);
    }
    return total;
}

static int flush_l2(RtContext *rc, int rep, char *why, int whylen)
{
    if (!rc->flush_buf) {
        size_t bytes = (size_t)(rc->info.l2_bytes > 0 ? rc->info.l2_bytes : 64 << 20) * 2;
        if (RT_CU(rc, MemAlloc(&rc->flush_buf, bytes), "allocating the L2 flush buffer", why,
                  whylen))
            return -1;
        rc->flush_bytes = bytes;
    }
    return RT_CU(rc, MemsetD8Async(rc->flush_buf, (unsigned char)rep, rc->flush_bytes, NULL),
                 "flushing L2", why, whylen);
}

/* Milliseconds one pass of `steps` steps takes, between two events. */
static int time_once(RtModule *m, RtGrid *g, long steps, CUevent ev[2], double *ms, char *why,
                     int whylen)
{
    RtContext *rc = m->rc;
    float elapsed = 0;
    if (RT_CU(rc, EventRecord(ev[0], NULL), "cuEventRecord", why, whylen)
        || rt_run_steps(m, g, steps, why, whylen) != 0
        || RT_CU(rc, EventRecord(ev[1], NULL), "cuEventRecord", why, whylen)
        || RT_CU(rc, EventSynchronize(ev[1]), "running the kernels", why, whylen)
        || RT_CU(rc, EventElapsedTime(&elapsed, ev[0], ev[1]), "cuEventElapsedTime", why, whylen))
        return -1;
    *ms = elapsed;
    return 0;
}

int rt_time_grid(RtModule *m, RtGrid *g, const RtTimeOptions *opt_in, RtTiming *out, char *why,
                 int whylen)
{
    RtContext *rc = m->rc;
    RtTimeOptions opt = opt_in ? *opt_in : (RtTimeOptions){ 0 };
    if (opt.target_ms <= 0) opt.target_ms = 50;
    if (opt.min_reps <= 0) opt.min_reps = 5;
    if (opt.max_reps <= 0) opt.max_reps = 200;
    if (opt.max_reps < opt.min_reps) opt.max_reps = opt.min_reps;
    long group = m->plan->step_count > 0 ? m->plan->step_count : 1;
    int flush = opt.flush > 0 || (opt.flush == 0 && grid_bytes(g) <= (size_t)rc->info.l2_bytes * 2);
    double *times = calloc((size_t)opt.max_reps, sizeof *times);
    CUevent ev[2] = { NULL, NULL };
    int status = -1;
    if (!times) {
        snprintf(why, (size_t)whylen, "out of memory");
        return -1;
    }
    if (RT_CU(rc, EventCreate(&ev[0], CU_EVENT_DEFAULT), "cuEventCreate", why, whylen)
        || RT_CU(rc, EventCreate(&ev[1], CU_EVENT_DEFAULT), "cuEventCreate", why, whylen)
        || rt_run_prologue(m, g, why, whylen) != 0)
        goto done;

    /* Warm-up (module load, clocks), which also sizes a repetition: about 1 ms of whole
     * groups unless the caller fixed it. */
    double ms = 0;
    if (time_once(m, g, group, ev, &ms, why, whylen) != 0
        || time_once(m, g, group, ev, &ms, why, whylen) != 0)
        goto done;
    long steps = opt.steps_per_rep;
    if (steps <= 0 && m->plan->hold_kind && opt.run_steps >= group)
        steps = opt.run_steps / group * group;
    if (steps <= 0) {
        long groups = ms > 0 ? (long)(1.0 / ms) + 1 : 64;
        if (groups > 64) groups = 64;
        steps = groups * group;
    }

    double total = 0;
    int reps = 0;
    while (reps < opt.max_reps && (reps < opt.min_reps || total < opt.target_ms)) {
        if (flush && flush_l2(rc, reps, why, whylen) != 0)
            goto done;
        if (time_once(m, g, steps, ev, &times[reps], why, whylen) != 0)
            goto done;
        total += times[reps++];
        /* Slow variants: three repetitions of over a second say enough. */
        if (reps >= 3 && total > 3000)
            break;
    }
    qsort(times, (size_t)reps, sizeof *times, cmp_double);
    double median = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
    out->ms_per_step = median / (double)steps;
    out->min_ms_per_step = times[0] / (double)steps;
    out->reps = reps;
    out->steps_per_rep = steps;
    out->flushed = flush;
    status = 0;
done:
    for (int i = 0; i < 2; i++)
        if (ev[i])
            rc->api.EventDestroy(ev[i]);
    free(times);
    return status;
}

int rt_time_plan(RtContext *rc, RtModule *m, const int n[3], const RtTimeOptions *opt,
                 RtTiming *out, char *why, int whylen)
{
    RtGrid *g = rt_grid_new(rc, m->plan->prog, n, why, whylen);
    if (!g)
        return -1;
    int status = rt_grid_fill_random(g, 777, why, whylen) == 0
                 && rt_time_grid(m, g, opt, out, why, whylen) == 0 ? 0 : -1;
    rt_grid_free(g);
    return status;
}
