/* The driver loop: ask the strategy, measure, record, tell the strategy, until the budget is
 * spent; with a progress line, a JSON log and the database journal on the way. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tune_int.h"

double tune_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double run_clock(const TuneEvaluator *ev)
{
    return ev->clock ? ev->clock(ev->clock_ctx) : tune_now_s();
}

void tune_progress_line(void *diag, const TuneProgress *p)
{
    char best[600] = "none yet";
    if (p->best) {
        char cfg[512];
        config_format(p->best, cfg, sizeof cfg);
        snprintf(best, sizeof best, "%.4g ms (%s)", p->best_ms, cfg);
    }
    char left[64] = "";
    if (p->time_left_s >= 0)
        snprintf(left, sizeof left, ", %.0f s left", p->time_left_s);
    else if (p->count_left >= 0)
        snprintf(left, sizeof left, ", %ld left", p->count_left);
    if (p->done)
        snprintf(left, sizeof left, " in %.1f s", p->elapsed_s);
    char line[800];
    snprintf(line, sizeof line, "%s: %ld evaluated, %ld valid, best %s%s", p->done ? "tuned" : "tuning",
             p->evaluated, p->valid, best, left);
    diag_progress(diag, line, p->done);
}

static void report(const TuneRunOptions *o, const TuneHistory *h, double elapsed, int done)
{
    if (o->quiet || (!o->progress && !o->diag))
        return;
    TuneProgress p = {
        .evaluated = h->n,
        .valid = h->nok,
        .best_ms = h->best >= 0 ? h->items[h->best].ms : -1,
        .best = h->best >= 0 ? &h->items[h->best].config : NULL,
        .elapsed_s = elapsed,
        .time_left_s = o->budget.seconds > 0 ? o->budget.seconds - elapsed : -1,
        .count_left = o->budget.count > 0 ? o->budget.count - h->n : -1,
        .done = done,
    };
    if (p.time_left_s < 0 && o->budget.seconds > 0)
        p.time_left_s = 0;
    if (o->progress)
        o->progress(o->progress_ctx, &p);
    else
        tune_progress_line(o->diag, &p);
}

static void measure(const TuneEvaluator *ev, const Config *cs, int n, int *ok, double *ms,
                    char (*why)[160])
{
    if (ev->evaluate_batch) {
        for (int i = 0; i < n; i++)
            why[i][0] = '\0';
        ev->evaluate_batch(ev->ctx, cs, n, ok, ms, why);
        return;
    }
    for (int i = 0; i < n; i++) {
        why[i][0] = '\0';
        ok[i] = ev->evaluate(ev->ctx, &cs[i], &ms[i], why[i], 160) == 0;
    }
}

int tune_run(const TuneProblem *pb, TuneStrategy *st, const TuneEvaluator *ev, TuneHistory *h,
             const TuneRunOptions *o, TuneResult *res)
{
    memset(res, 0, sizeof *res);
    for (int i = 0; i < h->n; i++) /* resumed: the strategy learns them, nothing re-runs */
        st->observe(st, &h->items[i]);
    int batch = ev->evaluate_batch && ev->batch > 1 ? ev->batch : 1;
    Config *cs = malloc(sizeof *cs * (size_t)batch);
    int *ok = malloc(sizeof *ok * (size_t)batch);
    double *ms = malloc(sizeof *ms * (size_t)batch);
    char(*why)[160] = malloc(sizeof *why * (size_t)batch);
    double t0 = run_clock(ev), elapsed = 0;
    report(o, h, 0, 0);
    for (;;) {
        elapsed = run_clock(ev) - t0;
        if (o->budget.count > 0 && h->n >= o->budget.count) {
            res->stop = TUNE_STOP_COUNT;
            break;
        }
        if (o->budget.seconds > 0 && elapsed >= o->budget.seconds) {
            res->stop = TUNE_STOP_TIME;
            break;
        }
        int max = batch;
        if (o->budget.count > 0 && o->budget.count - h->n < max)
            max = (int)(o->budget.count - h->n);
        int n = st->propose(st, h, cs, max);
        if (n <= 0) {
            res->stop = TUNE_STOP_EXHAUSTED;
            break;
        }
        if (ev->set_deadline && o->budget.seconds > 0)
            ev->set_deadline(ev->ctx, o->budget.seconds - elapsed);
        measure(ev, cs, n, ok, ms, why);
        elapsed = run_clock(ev) - t0;
        int cut = 0;
        for (int i = 0; i < n; i++) {
            if (ok[i] < 0) { /* the budget ran out before it was measured: not a result */
                cut = 1;
                continue;
            }
            int idx = tune_history_add(h, &cs[i], ok[i], ms[i], why[i], elapsed);
            if (idx < 0)
                continue; /* a strategy bug; never measured twice into the history */
            const TuneSample *r = &h->items[idx];
            res->evaluated++;
            res->valid += r->ok;
            if (o->log)
                tune_log_line(o->log, r);
            if (o->journal)
                tunedb_journal_append(o->journal, r);
            st->observe(st, r);
        }
        report(o, h, elapsed, 0);
        if (cut) {
            res->stop = TUNE_STOP_TIME;
            break;
        }
    }
    if (ev->set_deadline)
        ev->set_deadline(ev->ctx, 0);
    if (o->log)
        fflush(o->log);
    res->elapsed_s = elapsed;
    if (h->best >= 0) {
        res->found = 1;
        res->best = h->items[h->best].config;
        res->best_ms = h->items[h->best].ms;
    }
    report(o, h, elapsed, 1);
    free(cs);
    free(ok);
    free(ms);
    free(why);
    return 0;
}
