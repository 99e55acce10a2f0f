/* The model (model.h): its trees, its score and its file. */
#include "model_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stc_config.h"

void model_free(Model *m)
{
    if (!m)
        return;
    for (int t = 0; t < m->ntrees; t++)
        free(m->trees[t].nodes);
    free(m->trees);
    free(m->exemplars);
    free(m);
}

static void add_exemplar(Model *m, int dims, const char *config)
{
    for (int i = 0; i < m->nexemplars; i++)
        if (m->exemplars[i].dims == dims && !strcmp(m->exemplars[i].config, config))
            return;
    m->exemplars = realloc(m->exemplars, sizeof *m->exemplars * (size_t)(m->nexemplars + 1));
    m->exemplars[m->nexemplars].dims = dims;
    snprintf(m->exemplars[m->nexemplars].config, sizeof m->exemplars[0].config, "%s", config);
    m->nexemplars++;
}

void model_add_exemplars(Model *m, const ModelData *d, const int *keep, int per_group)
{
    for (int g = 0; g < d->ngroups; g++) {
        if (keep && !keep[g])
            continue;
        int taken[64], ntaken = 0; /* indices of the fastest, selection by repeated scans */
        for (int k = 0; k < per_group && k < 64; k++) {
            long best = -1;
            for (long i = 0; i < d->n; i++) {
                const ModelSample *s = &d->samples[i];
                int used = 0;
                for (int j = 0; j < ntaken; j++)
                    used |= taken[j] == i;
                if (s->group == g && s->ok && !used && (best < 0 || s->ms < d->samples[best].ms))
                    best = i;
            }
            if (best < 0)
                break;
            taken[ntaken++] = (int)best;
            add_exemplar(m, (int)d->samples[best].f[FEAT_p_dims], d->samples[best].config);
        }
    }
}

int model_exemplars(const Model *m, int dims, Config *out, int max)
{
    int n = 0;
    for (int i = 0; i < m->nexemplars && n < max; i++) {
        char err[200];
        if (m->exemplars[i].dims == dims && config_parse(m->exemplars[i].config, dims, &out[n], err, sizeof err) == 0)
            n++;
    }
    return n;
}

static double tree_value(const ModelTree *t, const double f[FEAT_COUNT])
{
    int i = 0;
    while (t->nodes[i].feat >= 0)
        i = f[t->nodes[i].feat] <= t->nodes[i].thr ? t->nodes[i].left : t->nodes[i].right;
    return t->nodes[i].value;
}

double model_score(const Model *m, const double f[FEAT_COUNT])
{
    double s = m->base;
    for (int t = 0; t < m->ntrees; t++)
        s += tree_value(&m->trees[t], f);
    /* top20 trees add to the log-odds of being fast: negated, so that lower is faster */
    return m->loss == MODEL_TOP20 ? -s : s;
}

double model_slowdown(const Model *m, double score)
{
    if (m->loss != MODEL_L2)
        return 1;
    return exp2(score < 0 ? 0 : score);
}

const char *model_gpus(const Model *m) { return m->gpus; }
const char *model_note(const Model *m) { return m->note; }
ModelLoss model_loss(const Model *m) { return m->loss; }

void model_set_info(Model *m, const char *gpus, const char *note)
{
    snprintf(m->gpus, sizeof m->gpus, "%s", gpus ? gpus : "");
    snprintf(m->note, sizeof m->note, "%s", note ? note : "");
}

void model_feature_use(const Model *m, int *counts)
{
    memset(counts, 0, sizeof *counts * FEAT_COUNT);
    for (int t = 0; t < m->ntrees; t++)
        for (int i = 0; i < m->trees[t].nnodes; i++)
            if (m->trees[t].nodes[i].feat >= 0)
                counts[m->trees[t].nodes[i].feat]++;
}

/* ---- the file ------------------------------------------------------------------------------ */

#define MODEL_MAGIC "stencilc-model 1"

int model_save(const Model *m, const char *path, char *err, int errlen)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, (size_t)errlen, "%s: cannot write", tmp);
        return -1;
    }
    fprintf(f, "%s\n", MODEL_MAGIC);
    fprintf(f, "loss %s\n", m->loss == MODEL_L2 ? "l2" : "top20");
    fprintf(f, "gpus %s\n", m->gpus);
    fprintf(f, "note %s\n", m->note);
    /* the features by name: a later stencilc with more features reads the same columns */
    int used[FEAT_COUNT];
    model_feature_use(m, used);
    fprintf(f, "features");
    for (int i = 0; i < FEAT_COUNT; i++)
        fprintf(f, " %s", feat_names[i]);
    fprintf(f, "\n");
    for (int i = 0; i < m->nexemplars; i++)
        fprintf(f, "exemplar %d %s\n", m->exemplars[i].dims, m->exemplars[i].config);
    model_write_support(m, f);
    fprintf(f, "base %.9g\ntrees %d\n", m->base, m->ntrees);
    for (int t = 0; t < m->ntrees; t++) {
        const ModelTree *tr = &m->trees[t];
        fprintf(f, "tree %d\n", tr->nnodes);
        for (int i = 0; i < tr->nnodes; i++) {
            const ModelNode *n = &tr->nodes[i];
            if (n->feat < 0)
                fprintf(f, "L %.7g\n", n->value);
            else
                fprintf(f, "S %d %.9g %d %d\n", n->feat, n->thr, n->left, n->right);
        }
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        unlink(tmp);
        snprintf(err, (size_t)errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}

/* Reads the next line into buf without its newline; 0 at the end. */
static int next_line(FILE *f, char *buf, int len, long *lineno)
{
    if (!fgets(buf, len, f))
        return 0;
    (*lineno)++;
    buf[strcspn(buf, "\n")] = 0;
    return 1;
}

/* A model file being read: the line, its number, the file's feature names mapped to this build's
 * (-1 where this build lacks one), and where a failure is described. */
typedef struct {
    FILE *f;
    const char *path;
    char *line;
    int linelen;
    long lineno;
    int map[512], nmap;
    char *err;
    int errlen;
} ModelReader;

__attribute__((format(printf, 2, 3))) static int reader_fail(ModelReader *r, const char *fmt, ...)
{
    int used = snprintf(r->err, (size_t)r->errlen, "%s:%ld: ", r->path, r->lineno);
    va_list ap;
    va_start(ap, fmt);
    if (used >= 0 && used < r->errlen)
        vsnprintf(r->err + used, (size_t)(r->errlen - used), fmt, ap);
    va_end(ap);
    return -1;
}

static int reader_next(ModelReader *r) { return next_line(r->f, r->line, r->linelen, &r->lineno); }

/* One tree of nn nodes: 'L value' leaves and 'S feature threshold left right' splits, whose
 * children come later in the list. */
static int read_tree(ModelReader *r, ModelTree *tr, int nn)
{
    tr->nodes = calloc((size_t)nn, sizeof *tr->nodes);
    tr->nnodes = nn;
    for (int i = 0; i < nn; i++) {
        ModelNode *nd = &tr->nodes[i];
        int feat;
        float thr, value;
        if (!reader_next(r))
            return reader_fail(r, "the file ends inside a tree");
        if (sscanf(r->line, "L %f", &value) == 1) {
            *nd = (ModelNode){-1, 0, 0, 0, value};
        } else if (sscanf(r->line, "S %d %f %d %d", &feat, &thr, &nd->left, &nd->right) == 4) {
            if (feat < 0 || feat >= r->nmap || nd->left <= i || nd->right <= i || nd->left >= nn
                || nd->right >= nn)
                return reader_fail(r, "bad split node");
            /* a feature this build does not have: always the left branch (model_load) */
            nd->feat = r->map[feat] >= 0 ? r->map[feat] : FEAT_COUNT;
            nd->thr = thr;
        } else {
            return reader_fail(r, "expected 'L value' or 'S feature threshold left right'");
        }
    }
    return 0;
}

/* 'trees N' and the N trees after it. */
static int read_trees(ModelReader *r, Model *m, const char *count)
{
    int n = atoi(count);
    if (n < 0 || n > 100000)
        return reader_fail(r, "bad tree count");
    if (m->trees) /* the trees read so far are in an array sized by the first count */
        return reader_fail(r, "a second 'trees' line");
    m->trees = calloc((size_t)(n > 0 ? n : 1), sizeof *m->trees);
    for (int t = 0; t < n; t++) {
        int nn;
        if (!reader_next(r) || sscanf(r->line, "tree %d", &nn) != 1 || nn < 1 || nn > 1 << 20)
            return reader_fail(r, "expected 'tree N'");
        if (read_tree(r, &m->trees[m->ntrees++], nn) != 0)
            return -1;
    }
    return 0;
}

/* One line outside the trees: 1 the trees were read, 0 another line, -1 an error. */
static int read_line(ModelReader *r, Model *m)
{
    char *line = r->line;
    if (!strncmp(line, "loss ", 5)) {
        if (!strcmp(line + 5, "l2"))
            m->loss = MODEL_L2;
        else if (!strcmp(line + 5, "top20"))
            m->loss = MODEL_TOP20;
        else
            return reader_fail(r, "unknown loss '%s'", line + 5);
    } else if (!strncmp(line, "gpus ", 5)) {
        snprintf(m->gpus, sizeof m->gpus, "%.500s", line + 5);
    } else if (!strncmp(line, "note ", 5)) {
        snprintf(m->note, sizeof m->note, "%.500s", line + 5);
    } else if (!strncmp(line, "features", 8)) {
        for (char *tok = strtok(line + 8, " "); tok && r->nmap < 512; tok = strtok(NULL, " "))
            r->map[r->nmap++] = feat_index(tok);
    } else if (!strncmp(line, "exemplar ", 9)) {
        int dims, at;
        if (sscanf(line + 9, "%d %n", &dims, &at) != 1 || dims < 1 || dims > 3)
            return reader_fail(r, "expected 'exemplar DIMS CONFIG'");
        add_exemplar(m, dims, line + 9 + at);
    } else if (!strncmp(line, "support ", 8)) {
        if (model_read_support(m, line) != 0)
            return reader_fail(r, "expected 'support DIMS SHAPE SEEN WON'");
    } else if (!strncmp(line, "base ", 5)) {
        m->base = strtod(line + 5, NULL);
    } else if (!strncmp(line, "trees ", 6)) {
        return read_trees(r, m, line + 6) != 0 ? -1 : 1;
    } else if (line[0] && line[0] != '#') {
        return reader_fail(r, "unknown line '%.40s'", line);
    }
    return 0;
}

Model *model_load(const char *path, char *err, int errlen)
{
    static char line[1 << 16];
    ModelReader r = {.f = fopen(path, "r"), .path = path, .line = line, .linelen = (int)sizeof line,
                     .err = err, .errlen = errlen};
    if (!r.f) {
        snprintf(err, (size_t)errlen, "%s: cannot read", path);
        return NULL;
    }
    Model *m = calloc(1, sizeof *m);
    int ok = 0, got = 0;
    if (!reader_next(&r) || strcmp(line, MODEL_MAGIC))
        got = reader_fail(&r, "not a stencilc model (first line '%s')", MODEL_MAGIC);
    while (got >= 0 && reader_next(&r))
        if ((got = read_line(&r, m)) == 1)
            ok = 1;
    if (got >= 0 && !ok)
        got = reader_fail(&r, "no trees");
    fclose(r.f);
    if (got < 0) {
        model_free(m);
        return NULL;
    }
    /* unknown features: a split node whose feature is missing always goes left */
    for (int t = 0; t < m->ntrees; t++)
        for (int i = 0; i < m->trees[t].nnodes; i++)
            if (m->trees[t].nodes[i].feat == FEAT_COUNT) {
                m->trees[t].nodes[i].feat = 0;
                m->trees[t].nodes[i].thr = INFINITY;
            }
    return m;
}

const char *model_default_path(void)
{
    static char buf[1100];
    const char *env = getenv("STENCILC_MODEL");
    if (env && *env)
        return env;
    snprintf(buf, sizeof buf, "%s/stencilc/model.txt", STC_DATADIR);
    if (access(buf, R_OK) == 0)
        return buf;
    snprintf(buf, sizeof buf, "%s/data/model.txt", STC_SOURCE_ROOT);
    return buf;
}
