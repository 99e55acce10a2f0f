/* Leave-one-program-out evaluation (model.h): the model never saw the program it ranks, as for
 * a user's new stencil. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double score, ms; /* ms -1: failed */
} Ranked;

static int by_score(const void *a, const void *b)
{
    const Ranked *x = a, *y = b;
    return (x->score > y->score) - (x->score < y->score);
}

/* The row of group g, ranked by m. */
static void rank_group(const ModelData *d, const Model *m, int g, int source, ModelLooRow *row)
{
    Ranked *r = malloc(sizeof *r * (size_t)(d->n > 0 ? d->n : 1));
    int n = 0;
    double best = -1;
    memset(row, 0, sizeof *row);
    snprintf(row->name, sizeof row->name, "%s", d->groups[g].name);
    snprintf(row->gpu, sizeof row->gpu, "%s", d->groups[g].gpu);
    row->plain_ms = -1;
    for (long i = 0; i < d->n; i++) {
        const ModelSample *s = &d->samples[i];
        if (s->group != g || (source >= 0 && s->source != source))
            continue;
        double f[FEAT_COUNT];
        for (int k = 0; k < FEAT_COUNT; k++)
            f[k] = s->f[k];
        r[n].score = model_score(m, f);
        r[n].ms = s->ok ? s->ms : -1;
        if (s->ok && (best < 0 || s->ms < best))
            best = s->ms;
        if (s->ok && (!strcmp(s->config, "tb=32x8x1") || !strcmp(s->config, "tb=32x4x2")))
            row->plain_ms = s->ms; /* config_default's text (config.h) */
        n++;
    }
    qsort(r, (size_t)n, sizeof *r, by_score);
    row->candidates = n;
    row->best_ms = best;
    row->pick_ms = n ? r[0].ms : -1;
    row->top5_ms = -1;
    for (int k = 0; k < n && k < 5; k++)
        if (r[k].ms > 0 && (row->top5_ms < 0 || r[k].ms < row->top5_ms))
            row->top5_ms = r[k].ms;
    free(r);
}

int model_loo(const ModelData *d, const ModelParams *p, int source, ModelLooRow *rows, FILE *progress)
{
    int nrows = 0;
    int *keep = malloc(sizeof *keep * (size_t)(d->ngroups > 0 ? d->ngroups : 1));
    int *done = calloc((size_t)(d->ngroups > 0 ? d->ngroups : 1), sizeof *done);
    for (int g = 0; g < d->ngroups; g++) {
        if (done[g])
            continue;
        const char *name = d->groups[g].name;
        for (int k = 0; k < d->ngroups; k++)
            keep[k] = strcmp(d->groups[k].name, name) != 0;
        Model *m = model_train(d, keep, p);
        for (int k = 0; k < d->ngroups; k++) {
            if (strcmp(d->groups[k].name, name))
                continue;
            done[k] = 1;
            if (!m)
                continue;
            rank_group(d, m, k, source, &rows[nrows]);
            if (progress) {
                const ModelLooRow *r = &rows[nrows];
                fprintf(progress, "  %-12s %-24.24s pick %.4g ms, best %.4g ms (%.3f)\n", r->name, r->gpu,
                        r->pick_ms, r->best_ms, r->pick_ms > 0 ? r->pick_ms / r->best_ms : INFINITY);
                fflush(progress);
            }
            if (rows[nrows].candidates > 0)
                nrows++;
        }
        model_free(m);
    }
    free(keep);
    free(done);
    return nrows;
}

static double ratio(double ms, double best) { return ms > 0 && best > 0 ? ms / best : INFINITY; }

/* The summary lines of the rows of GPU gpu (NULL: all), each opening with prefix. */
static void print_summary(FILE *out, const ModelLooRow *rows, int n, const char *gpu, const char *prefix)
{
    int count = 0, within15 = 0, within5 = 0, top5_15 = 0, plain15 = 0, nplain = 0, finite = 0;
    double lsum = 0, lsum5 = 0, lplain = 0;
    for (int i = 0; i < n; i++) {
        const ModelLooRow *r = &rows[i];
        if (gpu && strcmp(r->gpu, gpu))
            continue;
        double q = ratio(r->pick_ms, r->best_ms), q5 = ratio(r->top5_ms, r->best_ms);
        count++;
        within15 += q <= 1.15;
        within5 += q <= 1.05;
        top5_15 += q5 <= 1.15;
        if (isfinite(q)) {
            lsum += log(q);
            lsum5 += log(q5);
            finite++;
        }
        if (r->plain_ms > 0) {
            double qp = ratio(r->plain_ms, r->best_ms);
            nplain++;
            plain15 += qp <= 1.15;
            lplain += log(qp);
        }
    }
    fprintf(out, "%sthe model's first choice within 15%% of the best: %d of %d (within 5%%: %d); "
                 "geometric mean ratio %.3f over the %d that ran\n",
            prefix, within15, count, within5, finite ? exp(lsum / finite) : INFINITY, finite);
    fprintf(out, "%sthe best of its first five within 15%%: %d of %d; geometric mean %.3f\n", prefix, top5_15,
            count, finite ? exp(lsum5 / finite) : INFINITY);
    if (nplain)
        fprintf(out, "%sfor comparison, the plain kernel within 15%%: %d of %d; geometric mean %.3f\n", prefix,
                plain15, nplain, exp(lplain / nplain));
}

/* Whether row i is the first of its GPU's rows. */
static int first_of_gpu(const ModelLooRow *rows, int i)
{
    for (int j = 0; j < i; j++)
        if (!strcmp(rows[j].gpu, rows[i].gpu))
            return 0;
    return 1;
}

void model_loo_print(FILE *out, const ModelLooRow *rows, int n)
{
    fprintf(out, "| program | GPU | variants | best ms | model's first | ratio | best of its first 5 | plain kernel |\n");
    fprintf(out, "|---|---|---:|---:|---:|---:|---:|---:|\n");
    int gpus = 0;
    for (int i = 0; i < n; i++) {
        const ModelLooRow *r = &rows[i];
        double qp = ratio(r->plain_ms, r->best_ms);
        char plain[32] = "-";
        if (r->plain_ms > 0)
            snprintf(plain, sizeof plain, "%.3f", qp);
        fprintf(out, "| %s | %s | %d | %.4g | %.4g | %.3f | %.3f | %s |\n", r->name, r->gpu, r->candidates,
                r->best_ms, r->pick_ms, ratio(r->pick_ms, r->best_ms), ratio(r->top5_ms, r->best_ms), plain);
        gpus += first_of_gpu(rows, i);
    }
    fputc('\n', out);
    print_summary(out, rows, n, NULL, "");
    for (int i = 0; gpus > 1 && i < n; i++) {
        if (!first_of_gpu(rows, i))
            continue;
        char prefix[160];
        snprintf(prefix, sizeof prefix, "on %.128s: ", rows[i].gpu);
        print_summary(out, rows, n, rows[i].gpu, prefix);
    }
}
