/* The strategy loop of one tuning, on the GPU or against a recording: the strategy (led, where
 * the run may fuse steps, by the one-step tuning's winner), the --tune-log, and the key's
 * journal, from which a resumed run learns what an earlier one measured (and measures none of
 * it again) and to which this run appends its own. */
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

/* A GeST search that may fuse steps times the one-step tuning's winner first (k->first), so
 * that where fusing does not pay it ends no slower than the one-step tuning, which a short
 * budget did not always find again (issue 33). Not for a recording: it measures an unbiased
 * sample. 1 with the record in *e when it was added. */
static int one_step_first(Tuning *t, const TuneProblem *pb, TuneKnobs *k, TuneDbEntry *e)
{
    Config c;
    if (t->rq->record || strcmp(t->strategy, "gest") || k->nfirst >= TUNE_MAX_FIRST ||
        tune_db_one_step(t, pb, &c, e) != 0)
        return 0;
    k->first[k->nfirst++] = c;
    return 1;
}

/* Said once the journal is loaded: a resumed run may have timed it already. */
static void say_one_step_first(const Tuning *t, const TuneHistory *h, const Config *c, const TuneDbEntry *e)
{
    if (!t->rq->quiet && !tune_history_seen(h, c))
        diag_run_info(t->d, "timing first the one-step tuning's configuration %s (recorded on %.10s, %.4g "
                            "ms/step)", e->config, e->date, e->ms);
}

int tune_search_open(Tuning *t, const TuneProblem *pb, int resume, TuneSearch *s)
{
    char err[512];
    TuneDbEntry one_step;
    memset(s, 0, sizeof *s);
    TuneKnobs knobs = t->rq->knobs;
    knobs.guide = t->guide;
    int first = one_step_first(t, pb, &knobs, &one_step);
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
    if (first)
        say_one_step_first(t, &s->h, &knobs.first[knobs.nfirst - 1], &one_step);
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
