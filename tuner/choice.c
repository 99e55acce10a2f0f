/* How a configuration becomes the answer of tune_choose: one from the database, checked against
 * the program and grid first, or the request's own with a warning that says why nothing was
 * tuned; and the words the notes about a choice are made of. */
#include <stdio.h>
#include <time.h>

#include "policy_int.h"

int tune_take_config(Tuning *t, const char *text, const char *what)
{
    char err[256], why[256];
    Config c;
    if (config_parse(text, t->rq->prog->dims, &c, err, sizeof err) != 0) {
        diag_run_warning(t->d, "%s '%s' does not parse: %s", what, text, err);
        return -1;
    }
    if (!space_check(t->rq->space, &c, why, sizeof why)) {
        diag_run_warning(t->d, "%s '%s' is not valid here: %s", what, text, why);
        return -1;
    }
    t->out->config = c;
    return 0;
}

int tune_keep_untuned(Tuning *t, const char *because)
{
    const TuneRequest *rq = t->rq;
    char cfg[512], why[256];
    config_format(&rq->config, cfg, sizeof cfg);
    if (!space_check(rq->space, &rq->config, why, sizeof why)) {
        diag_run_error(t->d, "the configuration %s is not valid for '%s' on this grid: %s", cfg,
                       rq->prog->name, why);
        return -1;
    }
    diag_run_warning(t->d, "not tuned (%s); emitting %s configuration %s", because,
                     rq->config_given ? "the --config" : "the default", cfg);
    t->out->config = rq->config;
    snprintf(t->out->origin, sizeof t->out->origin, "not tuned (%s): %s configuration %.300s", because,
             rq->config_given ? "--config" : "default", cfg);
    return 0;
}

void tune_budget_text(const TuneBudget *b, int simulated, char *buf, int len)
{
    const char *sim = simulated ? " simulated" : "";
    if (b->seconds > 0 && b->count > 0)
        snprintf(buf, (size_t)len, "%g s%s or %ld variants", b->seconds, sim, b->count);
    else if (b->seconds > 0)
        snprintf(buf, (size_t)len, "%g s%s", b->seconds, sim);
    else
        snprintf(buf, (size_t)len, "%ld variants", b->count);
}

const char *tune_elem_name(const IrProgram *p) { return p->type == ELEM_DOUBLE ? "double" : "float"; }

void tune_today(char *buf, int len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, (size_t)len, "%Y-%m-%d", &tm);
}
