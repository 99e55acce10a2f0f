/* --distributed --procs: the exchange depth and overlap the emitted header recommends, chosen by
 * the exchange-cost model (codegen/dist_model.h). With --autotune on a GPU, t_local(K) is the
 * chosen kernel timed on the part of each candidate depth K; otherwise it is scaled from the
 * part's volume. */
#include <stdio.h>

#include "../codegen/codegen.h"
#include "../runtime/rt.h"
#include "../tuner/tune.h"
#include "steps.h"

/* Times the plan on each candidate's part. 0 when every candidate was timed, else -1 (why). */
static int measure(Job *job, CgDistChoice *c, char *why, int whylen)
{
    RtContext *rc = rt_context_new(why, whylen);
    if (!rc)
        return -1;
    TuneLock lock = {-1, 0};
    char doing[600], lwhy[256];
    snprintf(doing, sizeof doing, "stencilc --procs: the exchange depth of '%.100s'", job->prog->name);
    const RtDeviceInfo *dev = rt_device_info(rc);
    if (tune_gpu_lock(&lock, dev->bus_id, dev->name, doing, &job->diag, lwhy, sizeof lwhy) != 0)
        diag_run_warning(&job->diag, "timing without the GPU's lock: %s", lwhy);
    int rcode = -1;
    const Plan *timed = step_timed_plan(job, why, whylen); /* the part's kernels (Plan.held) */
    RtModule *m = timed ? rt_compile_plan(rc, timed, why, whylen) : NULL;
    for (int i = 0; m && i < c->ncand; i++) {
        CgDistCand *k = &c->cand[i];
        if (k->overlap) { /* the same part as depth 1 */
            k->t_local_ms = c->cand[0].t_local_ms;
            continue;
        }
        const int n[3] = {(int)k->local[0], (int)k->local[1], (int)k->local[2]};
        RtTimeOptions to = {0};
        RtTiming t;
        if (rt_time_plan(rc, m, n, &to, &t, why, whylen) != 0)
            goto out;
        k->t_local_ms = t.ms_per_step;
    }
    if (m) {
        snprintf(c->device, sizeof c->device, "%.63s", dev->name);
        c->measured = 1;
        rcode = 0;
    }
out:
    if (m)
        rt_module_free(m);
    tune_lock_release(&lock);
    rt_context_free(rc);
    return rcode;
}

int step_dist_choose(Job *job)
{
    const Options *o = job->opt;
    double gbs;
    char link[32], why[1024];
    cg_dist_parse_link(o->link ? o->link : "nvlink", &gbs, link, sizeof link); /* checked by options.c */
    long procs[3] = {1, 1, 1};
    for (int d = 0; d < o->nprocs; d++)
        procs[d] = o->procs[d];
    CgDistChoice *c = arena_alloc(job->arena, sizeof *c);
    if (cg_dist_prepare(job->plan, job->global, procs, (int)o->depth, gbs, link, c, why, sizeof why) != 0) {
        diag_run_error(&job->diag, "--procs: %s", why);
        return -1;
    }
    /* the GPU is timed only where tuning was asked for and may time it */
    CgDistChoice scaled = *c;
    if (o->autotune && !o->target && !o->replay && rt_available(why, sizeof why) &&
        measure(job, c, why, sizeof why) != 0) {
        diag_run_warning(&job->diag, "the exchange depth is chosen on local times scaled from the part's volume: "
                                     "timing failed: %s", why);
        *c = scaled;
    }
    cg_dist_choose(c);
    if (!o->quiet) {
        cg_dist_summary(c, why, sizeof why);
        diag_run_info(&job->diag, "exchange: %s", why);
    }
    job->dist = c;
    return 0;
}
