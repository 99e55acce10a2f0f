/* `stencilc replay RECORD.tsv`: every strategy (or --strategy and random) over several seeds on
 * recorded measurements, at equal simulated tuning time; the table goes to stdout. */
#include <stdio.h>

#include "../tuner/tune.h"
#include "../util/outfile.h"
#include "steps.h"

int step_replay(Job *job)
{
    const Options *o = job->opt;
    TuneKnobs knobs;
    TuneBudget budget;
    options_tuning(o, &knobs, &budget);
    char err[512];
    if (in_check_regular(o->input, err, sizeof err) != 0) { /* a folder is not an "empty replay file" */
        diag_run_error(&job->diag, "replay: %s", err);
        return 1;
    }
    if (replay_compare_file(stdout, o->input, o->strategy, o->seeds, budget, &knobs, err,
                            sizeof err) != 0) {
        diag_run_error(&job->diag, "replay: %s", err);
        return 1;
    }
    return 0;
}
