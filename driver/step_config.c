/* Which variant to emit: --config as given, the tuner's choice (--autotune), or the default. */
#include <stdio.h>
#include <string.h>

#include "../util/outfile.h"
#include "steps.h"

int step_choose_config(Job *job)
{
    const Options *o = job->opt;
    const IrProgram *p = job->prog;
    char err[256];
    job->config = space_default(&job->space); /* fits the grid */
    if (o->config) {
        if (config_parse(o->config, p->dims, &job->config, err, sizeof err) != 0) {
            diag_run_error(&job->diag, "--config: %s", err);
            return STEP_USAGE;
        }
        snprintf(job->config_origin, sizeof job->config_origin, "configuration given by --config '%s'",
                 o->config);
    }
    if (o->replay && in_check_regular(o->replay, err, sizeof err) != 0) { /* a FIFO would block */
        diag_run_error(&job->diag, "--replay: %s", err);
        return -1;
    }
    if (o->autotune)
        return o->target ? step_predict(job) : step_autotune(job);
    char why[256];
    if (!space_check(&job->space, &job->config, why, sizeof why)) {
        diag_run_error(&job->diag, "the configuration is not valid for '%s' on this grid: %s", p->name, why);
        return o->config ? STEP_USAGE : -1;
    }
    return 0;
}

int step_build_plan(Job *job)
{
    char why[512];
    config_format(&job->config, job->config_text, sizeof job->config_text);
    job->plan = job->opt->distributed ? plan_build_dist(job->prog, &job->config, job->arena, why, sizeof why)
                                      : plan_build(job->prog, &job->config, job->arena, why, sizeof why);
    if (!job->plan) {
        diag_run_error(&job->diag, "cannot build '%s' with this configuration: %s", job->prog->name, why);
        return -1;
    }
    return 0;
}

const Plan *step_timed_plan(Job *job, char *why, int whylen)
{
    if (!job->opt->distributed || plan_part_program(job->prog, &job->config, job->arena) == job->prog)
        return job->plan;
    return plan_build_part(job->prog, &job->config, job->arena, why, whylen);
}
