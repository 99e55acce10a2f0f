/* stencilc bench: verify the kernel it would emit against the interpreter, then time it on the
 * requested grid and print GStencil/s, GB/s and the share of the measured copy bandwidth. */
#include <stdio.h>

#include "../runtime/rt.h"
#include "steps.h"

int step_bench(Job *job)
{
    char why[1024];
    const IrProgram *p = job->prog;
    if (!rt_available(why, sizeof why)) {
        fprintf(stderr, "stencilc: error: bench needs a GPU: %s\n", why);
        return 1;
    }
    RtContext *rc = rt_context_new(why, sizeof why);
    if (!rc) {
        fprintf(stderr, "stencilc: error: %s\n", why);
        return 1;
    }
    int status = 1;
    RtModule *m = rt_compile_plan(rc, job->plan, why, sizeof why);
    if (!m) {
        fprintf(stderr, "stencilc: error: the kernel did not compile:\n%s\n", why);
        goto out;
    }
    RtVerifyResult vr;
    if (rt_verify_plan(rc, m, NULL, 5, &vr, why, sizeof why) != 0) {
        fprintf(stderr, "stencilc: error: verification could not run: %s\n", why);
        goto out;
    }
    if (!vr.ok) {
        fprintf(stderr, "stencilc: error: the kernel differs from the interpreter (relative error %.3g > %.3g)\n",
                vr.max_rel_err, vr.tolerance);
        goto out;
    }
    double copy = rt_copy_bandwidth(rc, why, sizeof why);
    int n[3] = {(int)job->grid[0], (int)job->grid[1], (int)job->grid[2]};
    RtTimeOptions to = {0};
    RtTiming t;
    if (rt_time_plan(rc, m, n, &to, &t, why, sizeof why) != 0) {
        fprintf(stderr, "stencilc: error: timing failed: %s\n", why);
        goto out;
    }
    rt_device_print(stdout, rc);
    printf("stencil %s (%s), grid %ldx%ldx%ld, config %s\n", p->name, p->type == ELEM_DOUBLE ? "double" : "float",
           job->grid[0], job->grid[1], job->grid[2], job->config_text);
    printf("verified against the interpreter: max relative error %.3g (tolerance %.3g)\n", vr.max_rel_err,
           vr.tolerance);
    rt_bench_report(stdout, p, n, &t, copy);
    status = 0;
out:
    if (m)
        rt_module_free(m);
    rt_context_free(rc);
    return status;
}
