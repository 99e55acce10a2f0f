/* The model's training data: measured variants with their feature vectors (model.h), kept as TSV
 * so that extracting features (a plan per variant, a compile where asked) is done once and
 * training and evaluation read the result. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void model_data_init(ModelData *d) { memset(d, 0, sizeof *d); }

void model_data_free(ModelData *d)
{
    free(d->groups);
    free(d->samples);
    memset(d, 0, sizeof *d);
}

int model_data_group(ModelData *d, const char *name, const char *gpu)
{
    for (int i = 0; i < d->ngroups; i++)
        if (!strcmp(d->groups[i].name, name) && !strcmp(d->groups[i].gpu, gpu))
            return i;
    if (d->ngroups == d->cap_groups) {
        d->cap_groups = d->cap_groups ? 2 * d->cap_groups : 16;
        d->groups = realloc(d->groups, sizeof *d->groups * (size_t)d->cap_groups);
    }
    ModelGroup *g = &d->groups[d->ngroups];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(g->gpu, sizeof g->gpu, "%s", gpu);
    g->best_ms = -1;
    return d->ngroups++;
}

void model_data_add(ModelData *d, int group, int ok, double ms, int source, const char *config,
                    const double f[FEAT_COUNT])
{
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 1024;
        d->samples = realloc(d->samples, sizeof *d->samples * (size_t)d->cap);
    }
    ModelSample *s = &d->samples[d->n++];
    s->group = group;
    s->ok = ok;
    s->ms = ok ? ms : -1;
    s->source = source;
    snprintf(s->config, sizeof s->config, "%s", config);
    for (int i = 0; i < FEAT_COUNT; i++)
        s->f[i] = (float)f[i];
}

void model_data_finish(ModelData *d)
{
    for (int g = 0; g < d->ngroups; g++)
        d->groups[g].best_ms = -1;
    for (long i = 0; i < d->n; i++) {
        const ModelSample *s = &d->samples[i];
        ModelGroup *g = &d->groups[s->group];
        if (s->ok && (g->best_ms < 0 || s->ms < g->best_ms))
            g->best_ms = s->ms;
    }
}

#define DATA_MAGIC "#stencilc-model-data"

int model_data_write(FILE *out, const ModelData *d)
{
    fprintf(out, DATA_MAGIC "\tversion=1\n");
    fprintf(out, "program\tgpu\tsource\tconfig\tms");
    for (int i = 0; i < FEAT_COUNT; i++)
        fprintf(out, "\t%s", feat_names[i]);
    fputc('\n', out);
    for (long i = 0; i < d->n; i++) {
        const ModelSample *s = &d->samples[i];
        const ModelGroup *g = &d->groups[s->group];
        fprintf(out, "%s\t%s\t%d\t%s\t", g->name, g->gpu, s->source, s->config);
        if (s->ok)
            fprintf(out, "%.6g", s->ms);
        else
            fputs("fail", out);
        for (int f = 0; f < FEAT_COUNT; f++)
            fprintf(out, "\t%.6g", s->f[f]);
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

/* Splits line at tabs in place: up to max fields, returns how many. */
static int split_tabs(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = 0;
        p = tab + 1;
    }
    char *nl = strchr(fields[n - 1], '\n');
    if (nl)
        *nl = 0;
    return n;
}

#define MAX_COLUMNS (FEAT_COUNT + 64)

int model_data_read(ModelData *d, const char *path, char *err, int errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, (size_t)errlen, "%s: cannot read", path);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int map[MAX_COLUMNS], ncol = 0, rc = -1;
    char *fields[MAX_COLUMNS];
    if (getline(&line, &cap, f) < 0 || strncmp(line, DATA_MAGIC, strlen(DATA_MAGIC))) {
        snprintf(err, (size_t)errlen, "%s:1: not a model data file (%s)", path, DATA_MAGIC);
        goto out;
    }
    lineno = 1;
    if (getline(&line, &cap, f) < 0) {
        snprintf(err, (size_t)errlen, "%s:2: no column names", path);
        goto out;
    }
    lineno = 2;
    ncol = split_tabs(line, fields, MAX_COLUMNS);
    if (ncol < 5) {
        snprintf(err, (size_t)errlen, "%s:2: too few columns", path);
        goto out;
    }
    for (int c = 5; c < ncol; c++)
        map[c] = feat_index(fields[c]);
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        int n = split_tabs(line, fields, MAX_COLUMNS);
        if (n != ncol) {
            snprintf(err, (size_t)errlen, "%s:%ld: %d columns, expected %d", path, lineno, n, ncol);
            goto out;
        }
        double v[FEAT_COUNT] = {0};
        for (int c = 5; c < ncol; c++)
            if (map[c] >= 0)
                v[map[c]] = strtod(fields[c], NULL);
        int ok = strcmp(fields[4], "fail") != 0;
        double ms = ok ? strtod(fields[4], NULL) : -1;
        if (ok && !(ms > 0 && isfinite(ms))) {
            snprintf(err, (size_t)errlen, "%s:%ld: bad time '%s'", path, lineno, fields[4]);
            goto out;
        }
        int g = model_data_group(d, fields[0], fields[1]);
        model_data_add(d, g, ok, ms, atoi(fields[2]), fields[3], v);
    }
    model_data_finish(d);
    rc = 0;
out:
    free(line);
    fclose(f);
    return rc;
}
