/* `stencilc check` on a machine with a GPU: the kernel stencilc would emit (--config's, else the
 * default for the grid) runs from the same initial data as the interpreter, and the two results
 * are compared at the tolerance the tuner verifies with. Without a GPU this says so where
 * --config asked for a variant, and is silent otherwise. */
#include <math.h>
#include <stdio.h>

#include "../runtime/rt.h"
#include "check.h"

int check_gpu(Job *job, InterpGrid *start, const InterpGrid *want, int steps)
{
    char why[2048];
    const IrProgram *p = job->prog;
    if (!rt_available(why, sizeof why)) {
        if (job->opt->config)
            printf("  the kernel of --config %s was built but not run: %s\n", job->config_text, why);
        return 0;
    }
    RtContext *rc = rt_context_new(why, sizeof why);
    if (!rc) {
        diag_run_error(&job->diag, "check on the GPU: %s", why);
        return 1;
    }
    int status = 1;
    RtGrid *g = NULL;
    RtModule *m = rt_compile_plan(rc, job->plan, why, sizeof why);
    if (!m) {
        diag_run_error(&job->diag, "check on the GPU: the kernel did not compile:\n%s", why);
        goto out;
    }
    g = rt_grid_new(rc, p, start->n, why, sizeof why);
    if (!g || rt_grid_upload(g, start, why, sizeof why) != 0 || rt_run(m, g, steps, why, sizeof why) != 0 ||
        rt_sync(rc, why, sizeof why) != 0 || rt_grid_download(g, start, why, sizeof why) != 0) {
        diag_run_error(&job->diag, "check on the GPU: %s", why);
        goto out;
    }
    int worst;
    double err = rt_compare_grids(start, want, &worst), tol = rt_tolerance(p, steps);
    printf("  the kernel (config %s, %s) on %s: max relative error %.3g (tolerance %.3g)%s\n", job->config_text,
           ir_elem_name(p->type), rt_device_info(rc)->name, err, tol, err <= tol ? "" : ": DIFFERS");
    if (!(err <= tol))
        diag_run_error(&job->diag, "check %s: the kernel differs from the interpreter (field '%s', relative error "
                       "%.3g > %.3g)", p->name, worst >= 0 ? p->fields[worst].name : "?", err, tol);
    else
        status = 0;
out:
    if (g)
        rt_grid_free(g);
    if (m)
        rt_module_free(m);
    rt_context_free(rc);
    return status;
}
