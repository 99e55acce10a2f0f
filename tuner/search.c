/* The strategy loop of one tuning, on the GPU or against a recording: the strategy, the
 * --tune-log, and the key's journal, from which a resumed run learns what an earlier one
 * measured (and measures none of it again) and to which this run appends its own. */
#include <string.h>

#include "policy_int.h"

/* The key's journal loaded into h and opened for this run; NULL (with a warning) when it
 * cannot be opened: the run goes on, but could not be resumed. */
static TuneJournal *resume_journal(Tuning *t, TuneHistory *h)
{
    char err[1400];
    int resumed = tunedb_journal_load(t->dir, &t->key, t->rq->prog->dims, h, t->d);
    if (resumed > 0 && !t->rq->quiet)
        diag_run_info(t->d, "resuming: %d variants measured by an earlier run (journal in %s)", resumed,
                      t->dir);
    TuneJournal *journal = tunedb_journal_open(t->dir, &t->key, err, sizeof err);
    if (!journal)
        diag_run_warning(t->d, "no tuning journal, an interrupted run cannot resume: %s", err);
    return journal;
}

int tune_search_open(Tuning *t, const TuneProblem *pb, int resume, TuneSearch *s)
{
    char err[512];
    memset(s, 0, sizeof *s);
    TuneKnobs knobs = t->rq->knobs;
    knobs.guide = t->guide;
    s->st = tune_strategy_new(t->strategy, pb, &knobs, err, sizeof err);
    if (!s->st) {
        diag_run_error(t->d, "--strategy: %s", err);
        return -1;
    }
    if (t->rq->log && !(s->log = fopen(t->rq->log, "w"))) {
        diag_run_error(t->d, "--tune-log: cannot write '%s'", t->rq->log);
        tune_strategy_free(s->st);
        return -1;
    }
    if (t->guide)
        tune_guide_set_log(t->guide, s->log);
    tune_history_init(&s->h);
    if (resume)
        s->journal = resume_journal(t, &s->h);
    return 0;
}

void tune_search_run(Tuning *t, TuneSearch *s, const TuneProblem *pb, const TuneEvaluator *ev,
                     TuneResult *res)
{
    TuneRunOptions ro = {.budget = t->budget, .quiet = t->rq->quiet, .diag = t->d, .log = s->log,
                         .journal = s->journal};
    tune_run(pb, s->st, ev, &s->h, &ro, res);
}

void tune_search_close(TuneSearch *s)
{
    tunedb_journal_close(s->journal);
    if (s->log)
        fclose(s->log);
    tune_strategy_free(s->st);
    tune_history_free(&s->h);
}
