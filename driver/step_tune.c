/* --autotune: the command line's part. The policy (database, replay, search on the GPU,
 * re-timing, final check, Ctrl-C) is the tuner's, behind tune_choose (tuner/policy.h); this
 * step hands it the job and the options and keeps what it chose. */
#include <stdio.h>

#include "../tuner/policy.h"
#include "steps.h"

int step_autotune(Job *job)
{
    const Options *o = job->opt;
    TuneRequest rq = {
        .prog = job->prog, .space = &job->space, .grid = {job->grid[0], job->grid[1], job->grid[2]},
        .input = o->input, .config = job->config, .config_given = o->config != NULL,
        .strategy = o->strategy, .quiet = o->quiet, .log = o->tune_log, .db = o->tune_db,
        .replay = o->replay, .record = o->tune_record, .generator = options_generator_name(),
        .guide = o->guide, .model = o->model,
        .part = o->distributed,
    };
    options_tuning(o, &rq.knobs, &rq.budget);
    if (o->nprocs) { /* a distributed tuning: job->grid is one rank's part */
        for (int d = 0; d < 3; d++)
            rq.procs[d] = d < o->nprocs ? o->procs[d] : 1;
        rq.depth = o->depth; /* 0: chosen after tuning (step_dist.c) */
    }
    TuneChoice choice;
    if (tune_choose(&rq, &choice, &job->diag) != 0)
        return -1;
    job->config = choice.config;
    snprintf(job->config_origin, sizeof job->config_origin, "%s", choice.origin);
    return 0;
}
