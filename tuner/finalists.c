/* The end of a search on the GPU: its times are short measurements (about 25 ms each), so the
 * best few are timed again for longer, with the plain kernel among them (when the short times
 * flattered the others, it wins), and the winner must compute what the plain kernel computes on
 * the full grid, not only on the small grid where every variant was verified. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy_int.h"

#define RETIME_TARGET_MS 200.0
#define RETIME_MIN_REPS 10

static int by_ms(const void *a, const void *b)
{
    const TuneFinalist *x = a, *y = b;
    double u = x->ms < 0 ? INFINITY : x->ms, v = y->ms < 0 ? INFINITY : y->ms;
    return (u > v) - (u < v);
}

static int by_search_ms(const void *a, const void *b)
{
    const TuneSample *x = *(const TuneSample *const *)a, *y = *(const TuneSample *const *)b;
    return (x->ms > y->ms) - (x->ms < y->ms);
}

/* The TUNE_FINALISTS fastest of h, then the plain configuration unless it is among them: their
 * count; *plain_at: where the plain one is. */
static int gather(const TuneHistory *h, const Config *plain, TuneFinalist *f, int *plain_at)
{
    const TuneSample **ok = malloc(sizeof *ok * (size_t)(h->nok > 0 ? h->nok : 1));
    int nok = 0, n = 0;
    for (int i = 0; i < h->n; i++)
        if (h->items[i].ok)
            ok[nok++] = &h->items[i];
    qsort(ok, (size_t)nok, sizeof *ok, by_search_ms);
    *plain_at = -1;
    for (int i = 0; i < nok && n < TUNE_FINALISTS; i++) {
        f[n].config = ok[i]->config;
        f[n].search_ms = ok[i]->ms;
        if (!memcmp(&ok[i]->config, plain, sizeof *plain))
            *plain_at = n;
        n++;
    }
    free(ok);
    if (*plain_at < 0) {
        f[n].config = *plain;
        f[n].search_ms = -1;
        *plain_at = n++;
    }
    return n;
}

int tune_finalists_retime(GpuEval *g, const TuneHistory *h, const Space *space, TuneFinalist *f,
                          double *plain_ms)
{
    Config plain = space_default(space), cs[TUNE_FINALISTS + 1];
    int plain_at, n = gather(h, &plain, f, &plain_at);
    for (int i = 0; i < n; i++)
        cs[i] = f[i].config;
    GpuEvalResult res[TUNE_FINALISTS + 1];
    gpu_eval_measure(g, cs, n, RETIME_TARGET_MS, RETIME_MIN_REPS, res);
    for (int i = 0; i < n; i++)
        f[i].ms = res[i].ok ? res[i].ms : -1;
    *plain_ms = f[plain_at].ms;
    qsort(f, (size_t)n, sizeof *f, by_ms);
    return n;
}

/* Whether c computes what the plain kernel computes on the full grid; what stands in the way
 * is said on d. */
static int agrees_with_plain(GpuEval *g, const Config *c, Diag *d)
{
    RtVerifyResult vr;
    char why[512], cfg[512];
    config_format(c, cfg, sizeof cfg);
    int cmp = gpu_eval_compare_plain(g, c, 0, &vr, why, sizeof why);
    if (cmp < 0) {
        diag_run_warning(d, "%s: the comparison with the plain kernel could not run: %s", cfg, why);
        return 0;
    }
    if (cmp > 0) {
        diag_run_warning(d, "%s: no comparison with the plain kernel on the full grid: %s; the "
                            "interpreter check on the small grid stands", cfg, why);
        return 1;
    }
    if (!vr.ok)
        diag_run_warning(d, "%s differs from the plain kernel on the full grid (relative error %.3g > "
                            "%.3g); not chosen", cfg, vr.max_rel_err, vr.tolerance);
    return vr.ok;
}

/* Each finalist's fate on log (when given): f[w] "chosen", the others "final" with why[i]. */
static void log_finalists(FILE *log, const TuneFinalist *f, int n, int w, const char *const *why)
{
    if (!log)
        return;
    for (int i = 0; i < n; i++)
        tune_log_final(log, &f[i].config, f[i].ms, f[i].search_ms, i == w ? "chosen" : "final", why[i]);
}

int tune_finalists_pick(GpuEval *g, const Space *space, const TuneFinalist *f, int n, Diag *d, FILE *log)
{
    Config plain = space_default(space);
    const char *why[TUNE_FINALISTS + 1];
    int w = -1;
    for (int i = 0; i < n; i++) {
        why[i] = f[i].ms < 0 ? "its longer timing failed" : w >= 0 ? "slower in the longer timing" : "";
        if (w >= 0 || f[i].ms < 0)
            continue;
        if (!memcmp(&f[i].config, &plain, sizeof plain) || agrees_with_plain(g, &f[i].config, d))
            w = i; /* the plain kernel is the reference itself */
        else
            why[i] = "differs from the plain kernel on the full grid";
    }
    log_finalists(log, f, n, w, why);
    return w;
}
