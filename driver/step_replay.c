/* `stencilc replay RECORD.tsv`: every strategy (or --strategy and random) over several seeds on
 * recorded measurements, at equal simulated tuning time; the table goes to stdout. */
#include <stdio.h>

#include "../tuner/tune.h"
#include "steps.h"

int step_replay(Job *job)
{
    const Options *o = job->opt;
    TuneKnobs knobs;
    tune_knobs_default(&knobs);
    knobs.seed = o->seed;
    if (o->gest) /* checked when the options were read */
        tune_knobs_parse(&knobs, o->gest, NULL, 0);
    TuneBudget budget = {o->budget_s, o->budget_count};
    char err[512];
    if (replay_compare_file(stdout, o->input, o->strategy, o->seeds, budget, &knobs, err,
                            sizeof err) != 0) {
        fprintf(stderr, "stencilc: error: replay: %s\n", err);
        return 1;
    }
    return 0;
}
