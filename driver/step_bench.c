/* stencilc bench: verify the kernel it would emit against the interpreter on a small grid and
 * against the plain kernel on the requested grid (where the optimized kernels take their fast
 * paths: whole tiles and chunks), then time it there and print GStencil/s, GB/s and the share
 * of the measured copy bandwidth. */
#include <stdio.h>
#include <string.h>

#include "../codegen/plan.h"
#include "../runtime/rt.h"
#include "../tuner/tune.h"
#include "steps.h"

int step_bench(Job *job)
{
    Diag *d = &job->diag;
    char why[1024];
    const IrProgram *p = job->prog;
    /* Opened here, not first probed in a child (rt_available): after --target's compiles, NVRTC
     * has loaded the driver into this process, and a child forked then fails in cuInit. */
    RtContext *rc = rt_context_new(why, sizeof why);
    if (!rc) {
        diag_run_error(d, "bench needs a GPU: %s", why);
        return 1;
    }
    int status = 1;
    /* Timing beside a tuning (or another bench) on this GPU would disturb both: one at a time. */
    TuneLock gpu_lock;
    char doing[600];
    snprintf(doing, sizeof doing, "stencilc bench '%.100s' of %.400s", p->name, job->opt->input);
    if (tune_gpu_lock(&gpu_lock, rt_device_info(rc)->bus_id, rt_device_info(rc)->name, doing, d, why, sizeof why) != 0)
        diag_run_warning(d, "timing without the GPU's lock: %s", why);
    const Plan *timed = step_timed_plan(job, why, sizeof why); /* a distributed job: its part's */
    RtModule *m = timed ? rt_compile_plan(rc, timed, why, sizeof why) : NULL;
    if (!m) {
        diag_run_error(d, "the kernel did not compile:\n%s", why);
        goto out;
    }
    RtVerifyResult vr;
    if (rt_verify_plan(rc, m, NULL, 5, &vr, why, sizeof why) != 0) {
        diag_run_error(d, "verification could not run: %s", why);
        goto out;
    }
    if (!vr.ok) {
        diag_run_error(d, "the kernel differs from the interpreter (relative error %.3g > %.3g)", vr.max_rel_err,
                       vr.tolerance);
        goto out;
    }
    int n[3] = {(int)job->grid[0], (int)job->grid[1], (int)job->grid[2]};
    Config plain = space_default(&job->space);
    RtVerifyResult full = {0};
    int compared = 0;
    if (memcmp(&plain, &job->config, sizeof plain) != 0) {
        Plan *pp = plan_build(timed->prog, &plain, job->arena, why, sizeof why);
        RtModule *pm = pp ? rt_compile_plan(rc, pp, why, sizeof why) : NULL;
        int decided = 0;
        int rcmp = pm ? rt_compare_reference(rc, pm, m, n, 0, &full, &decided, why, sizeof why) : -1;
        if (pm)
            rt_module_free(pm);
        if (rcmp != 0)
            diag_run_warning(d, "the comparison with the plain kernel could not run: %s; the interpreter "
                                "check stands", why);
        else if (!decided)
            diag_run_warning(d, "no comparison with the plain kernel on the full grid: the random data leave "
                                "the finite range within %ld steps; the interpreter check stands", full.steps);
        else if (!full.ok) {
            diag_run_error(d, "the kernel differs from the plain kernel on the %dx%dx%d grid (relative error "
                              "%.3g > %.3g)", n[0], n[1], n[2], full.max_rel_err, full.tolerance);
            goto out;
        }
        compared = rcmp == 0 && decided;
    }
    double copy = rt_copy_bandwidth(rc, why, sizeof why);
    RtTimeOptions to = {.run_steps = job->steps};
    RtTiming t;
    if (rt_time_plan(rc, m, n, &to, &t, why, sizeof why) != 0) {
        diag_run_error(d, "timing failed: %s", why);
        goto out;
    }
    rt_device_print(stdout, rc);
    printf("stencil %s (%s), grid %ldx%ldx%ld, config %s\n", p->name, p->type == ELEM_DOUBLE ? "double" : "float",
           job->grid[0], job->grid[1], job->grid[2], job->config_text);
    printf("verified against the interpreter: max relative error %.3g (tolerance %.3g)\n", vr.max_rel_err,
           vr.tolerance);
    if (compared)
        printf("verified against the plain kernel on the full grid: max relative error %.3g over %ld steps\n",
               full.max_rel_err, full.steps);
    rt_bench_report(stdout, p, n, &t, copy);
    status = 0;
out:
    if (m)
        rt_module_free(m);
    rt_context_free(rc);
    tune_lock_release(&gpu_lock);
    return status;
}
