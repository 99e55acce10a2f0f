/* tune_choose (policy.h): the request's defaults, the tuning database's key, and the way of
 * measuring: a recording (--replay) or this machine's GPU, which may turn out to be none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_int.h"

static int strategy_known(const char *name)
{
    for (int i = 0; tune_strategy_names[i]; i++)
        if (!strcmp(tune_strategy_names[i], name))
            return 1;
    return 0;
}

int tune_tblock_max(const Space *s)
{
    const SpaceParam *tb = &s->params[P_TB];
    return tb->values[tb->nvalues - 1];
}

/* The key's generator: stencilc's, and what else decides the best configuration. The step
 * count shapes the space (tblock <= steps): a one-step tuning is not the answer for a run that
 * may fuse steps, so the largest tblock the space allows is part of it; a distributed tuning's
 * grid is one rank's part, named as such. */
void tune_key_generator(const TuneRequest *rq, int tblock_max, char *buf, int len)
{
    int used = snprintf(buf, (size_t)len, "%s; tblock<=%d", rq->generator, tblock_max);
    if (rq->procs[0] <= 0 || used <= 0 || used >= len)
        return;
    char depth[32] = "chosen"; /* without --depth: the part of depth 1 is tuned, the depth chosen after */
    if (rq->depth > 0)
        snprintf(depth, sizeof depth, "%ld", rq->depth);
    snprintf(buf + used, (size_t)(len - used), "; distributed %ldx%ldx%ld depth %s", rq->procs[0], rq->procs[1],
             rq->procs[2], depth);
}

char *tune_key_init(const TuneRequest *rq, TuneDbKey *key, char *generator, int len)
{
    char *program = tunedb_program_text(rq->prog);
    tune_key_generator(rq, tune_tblock_max(rq->space), generator, len);
    *key = (TuneDbKey){program ? program : rq->prog->name, {rq->grid[0], rq->grid[1], rq->grid[2]},
                       tune_elem_name(rq->prog), "", "", generator};
    return program;
}

int tune_choose(const TuneRequest *rq, TuneChoice *out, Diag *d)
{
    if (rq->strategy && !strategy_known(rq->strategy)) {
        diag_run_error(d, "unknown strategy '%s' (gest, random, genetic, exhaustive)", rq->strategy);
        return -1;
    }
    out->config = rq->config;
    out->origin[0] = '\0';
    Tuning t = {.rq = rq, .out = out, .d = d, .strategy = rq->strategy ? rq->strategy : "gest",
                .budget = rq->budget};
    if (t.budget.seconds <= 0 && t.budget.count <= 0) {
        if (rq->record)
            t.budget.count = TUNE_RECORD_SAMPLE;
        else
            t.budget.seconds = 60;
    }
    tunedb_dir(rq->db, t.dir, sizeof t.dir);
    char generator[160];
    char *program = tune_key_init(rq, &t.key, generator, sizeof generator);
    int rc = rq->replay ? tune_replay(&t) : tune_with_gpu(&t);
    free(program);
    return rc;
}
