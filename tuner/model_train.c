/* Training the model (model.h): gradient-boosted regression trees, Newton steps on a squared
 * loss (l2) or the logistic loss (top20), on features cut into at most 64 bins at their
 * quantiles. Each program (group) weighs the same however many variants it has measured, so a
 * 20-minute reference search of 20 000 variants does not drown a recording of 300. */
#include "model_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BINS 64

void model_params_default(ModelParams *p)
{
    memset(p, 0, sizeof *p);
    p->loss = MODEL_L2;
    p->trees = 300;
    p->depth = 5;
    p->rate = 0.1;
    p->lambda = 1;
    p->min_leaf = 20;
    p->max_per_group = 3000;
    p->clip = MODEL_CLIP;
    p->seed = 1;
}

typedef struct {
    int n;                       /* samples */
    const ModelSample **s;
    double *y, *w, *pred, *g, *h;
    uint8_t *bin;                /* n x FEAT_COUNT */
    float thr[FEAT_COUNT][MAX_BINS];
    int nbins[FEAT_COUNT];       /* bins of each feature (1: never split) */
    int use[FEAT_COUNT];
    const ModelParams *p;
    ModelNode *nodes;
    int nnodes, cap;
} Trainer;

static unsigned long long next_rand(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int cmp_ms(const void *a, const void *b)
{
    double x = (*(const ModelSample *const *)a)->ms, y = (*(const ModelSample *const *)b)->ms;
    return (x > y) - (x < y);
}

/* The samples of the kept groups, at most max_per_group of each (a random subset), with their
 * targets and weights. */
static int choose_samples(Trainer *t, const ModelData *d, const int *keep)
{
    const ModelParams *p = t->p;
    unsigned long long rng = p->seed * 0x9E3779B97F4A7C15ULL + 1;
    int *count = calloc((size_t)d->ngroups, sizeof *count);
    for (long i = 0; i < d->n; i++)
        count[d->samples[i].group]++;
    t->s = malloc(sizeof *t->s * (size_t)(d->n > 0 ? d->n : 1));
    t->n = 0;
    int groups = 0;
    for (int g = 0; g < d->ngroups; g++) {
        if ((keep && !keep[g]) || count[g] == 0 || d->groups[g].best_ms <= 0)
            continue;
        groups++;
        double take = count[g] <= p->max_per_group ? 1 : (double)p->max_per_group / count[g];
        for (long i = 0; i < d->n; i++)
            if (d->samples[i].group == g
                && (take >= 1 || (double)(next_rand(&rng) >> 11) / 9007199254740992.0 < take))
                t->s[t->n++] = &d->samples[i];
    }
    free(count);
    if (t->n == 0)
        return -1;
    /* targets; each group's weights sum to the mean group size */
    t->y = calloc((size_t)t->n, sizeof *t->y);
    t->w = calloc((size_t)t->n, sizeof *t->w);
    int *in_group = calloc((size_t)d->ngroups, sizeof *in_group);
    for (int i = 0; i < t->n; i++)
        in_group[t->s[i]->group]++;
    double mean = (double)t->n / groups;
    for (int g = 0; g < d->ngroups; g++) {
        if (!in_group[g])
            continue;
        /* the fastest 20% of the group's ok samples (seed 003's labels) */
        const ModelSample **ok = malloc(sizeof *ok * (size_t)in_group[g]);
        int nok = 0;
        for (int i = 0; i < t->n; i++)
            if (t->s[i]->group == g && t->s[i]->ok)
                ok[nok++] = t->s[i];
        qsort(ok, (size_t)nok, sizeof *ok, cmp_ms);
        double cut = nok ? ok[(nok - 1) / 5]->ms : 0;
        free(ok);
        double best = d->groups[g].best_ms;
        for (int i = 0; i < t->n; i++) {
            const ModelSample *s = t->s[i];
            if (s->group != g)
                continue;
            t->w[i] = mean / in_group[g];
            if (p->loss == MODEL_TOP20)
                t->y[i] = s->ok && s->ms <= cut;
            else
                t->y[i] = s->ok ? fmin(p->clip, log2(s->ms / best)) : p->clip;
        }
    }
    free(in_group);
    return 0;
}

/* Quantile thresholds per feature, and each sample's bin. */
static void make_bins(Trainer *t)
{
    float *vals = malloc(sizeof *vals * (size_t)t->n);
    t->bin = malloc((size_t)t->n * FEAT_COUNT);
    for (int f = 0; f < FEAT_COUNT; f++) {
        t->nbins[f] = 1;
        if (!t->use[f])
            continue;
        for (int i = 0; i < t->n; i++)
            vals[i] = t->s[i]->f[f];
        qsort(vals, (size_t)t->n, sizeof *vals, cmp_float);
        int nb = 0;
        for (int q = 1; q < MAX_BINS && nb < MAX_BINS - 1; q++) {
            float v = vals[(long)q * t->n / MAX_BINS];
            if (v < vals[t->n - 1] && (nb == 0 || v > t->thr[f][nb - 1]))
                t->thr[f][nb++] = v;
        }
        /* a feature of few values: every distinct value its own bin */
        t->nbins[f] = nb + 1;
        for (int i = 0; i < t->n; i++) {
            float v = t->s[i]->f[f];
            int lo = 0, hi = nb; /* first threshold >= v */
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (t->thr[f][mid] >= v)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            t->bin[(size_t)i * FEAT_COUNT + f] = (uint8_t)lo;
        }
    }
    free(vals);
}

static int add_node(Trainer *t)
{
    if (t->nnodes == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->nodes = realloc(t->nodes, sizeof *t->nodes * (size_t)t->cap);
    }
    memset(&t->nodes[t->nnodes], 0, sizeof *t->nodes);
    t->nodes[t->nnodes].feat = -1;
    return t->nnodes++;
}

typedef struct {
    double gain;
    int feat, bin;
} Split;

static Split best_split(const Trainer *t, const int *idx, int n)
{
    static double hg[FEAT_COUNT][MAX_BINS], hh[FEAT_COUNT][MAX_BINS], hw[FEAT_COUNT][MAX_BINS];
    Split best = {0, -1, -1};
    double G = 0, H = 0, W = 0;
    for (int k = 0; k < n; k++)
        G += t->g[idx[k]], H += t->h[idx[k]], W += t->w[idx[k]];
    double lambda = t->p->lambda, parent = G * G / (H + lambda);
    for (int f = 0; f < FEAT_COUNT; f++) {
        if (t->nbins[f] < 2)
            continue;
        memset(hg[f], 0, sizeof hg[f]);
        memset(hh[f], 0, sizeof hh[f]);
        memset(hw[f], 0, sizeof hw[f]);
    }
    for (int k = 0; k < n; k++) {
        int i = idx[k];
        const uint8_t *b = &t->bin[(size_t)i * FEAT_COUNT];
        double g = t->g[i], h = t->h[i], w = t->w[i];
        for (int f = 0; f < FEAT_COUNT; f++) {
            if (t->nbins[f] < 2)
                continue;
            hg[f][b[f]] += g, hh[f][b[f]] += h, hw[f][b[f]] += w;
        }
    }
    for (int f = 0; f < FEAT_COUNT; f++) {
        double gl = 0, hl = 0, wl = 0;
        for (int b = 0; b + 1 < t->nbins[f]; b++) {
            gl += hg[f][b], hl += hh[f][b], wl += hw[f][b];
            if (wl < t->p->min_leaf || W - wl < t->p->min_leaf)
                continue;
            double gr = G - gl, hr = H - hl;
            double gain = gl * gl / (hl + lambda) + gr * gr / (hr + lambda) - parent;
            if (gain > best.gain + 1e-12)
                best = (Split){gain, f, b};
        }
    }
    return best;
}

/* Grows the subtree over idx[0..n) and returns its root's index; leaves add their value to the
 * samples' predictions. */
static int grow(Trainer *t, int *idx, int n, int depth)
{
    int node = add_node(t);
    Split s = depth < t->p->depth ? best_split(t, idx, n) : (Split){0, -1, -1};
    if (s.feat < 0) {
        double G = 0, H = 0;
        for (int k = 0; k < n; k++)
            G += t->g[idx[k]], H += t->h[idx[k]];
        double v = -G / (H + t->p->lambda) * t->p->rate;
        t->nodes[node].value = (float)v;
        for (int k = 0; k < n; k++)
            t->pred[idx[k]] += (float)v; /* as scored: the leaf's float value */
        return node;
    }
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        if (t->bin[(size_t)idx[lo] * FEAT_COUNT + s.feat] <= s.bin)
            lo++;
        else {
            int tmp = idx[lo];
            idx[lo] = idx[hi];
            idx[hi--] = tmp;
        }
    }
    t->nodes[node].feat = s.feat;
    t->nodes[node].thr = t->thr[s.feat][s.bin];
    int left = grow(t, idx, lo, depth + 1);
    int right = grow(t, idx + lo, n - lo, depth + 1);
    t->nodes[node].left = left;
    t->nodes[node].right = right;
    return node;
}

static void gradients(Trainer *t)
{
    for (int i = 0; i < t->n; i++) {
        if (t->p->loss == MODEL_TOP20) {
            double q = 1 / (1 + exp(-t->pred[i]));
            t->g[i] = t->w[i] * (q - t->y[i]);
            t->h[i] = t->w[i] * fmax(q * (1 - q), 1e-6);
        } else {
            t->g[i] = t->w[i] * (t->pred[i] - t->y[i]);
            t->h[i] = t->w[i];
        }
    }
}

int model_gpu_matches(const char *recorded, const char *want)
{
    const OccGpu *a = occ_gpu_find(recorded), *b = occ_gpu_find(want);
    if (a && b)
        return a == b;
    return strstr(recorded, want) != NULL;
}

Model *model_train(const ModelData *d, const int *keep_in, const ModelParams *p)
{
    Trainer t = {.p = p};
    /* the groups kept and, with p->gpu, measured on that GPU */
    int *keep = malloc(sizeof *keep * (size_t)(d->ngroups > 0 ? d->ngroups : 1));
    for (int g = 0; g < d->ngroups; g++)
        keep[g] = (!keep_in || keep_in[g]) && (!p->gpu || model_gpu_matches(d->groups[g].gpu, p->gpu));
    for (int f = 0; f < FEAT_COUNT; f++)
        t.use[f] = p->nfeatures <= 0;
    for (int i = 0; i < p->nfeatures; i++)
        if (p->feature_ids[i] >= 0 && p->feature_ids[i] < FEAT_COUNT)
            t.use[p->feature_ids[i]] = 1;
    if (choose_samples(&t, d, keep) != 0) {
        free(t.s);
        free(keep);
        return NULL;
    }
    make_bins(&t);
    t.pred = calloc((size_t)t.n, sizeof *t.pred);
    t.g = calloc((size_t)t.n, sizeof *t.g);
    t.h = calloc((size_t)t.n, sizeof *t.h);
    int *idx = malloc(sizeof *idx * (size_t)t.n);
    double sy = 0, sw = 0;
    for (int i = 0; i < t.n; i++)
        sy += t.w[i] * t.y[i], sw += t.w[i];
    double mean = sy / sw;
    Model *m = calloc(1, sizeof *m);
    m->loss = p->loss;
    m->base = p->loss == MODEL_TOP20 ? log(fmax(mean, 1e-3) / fmax(1 - mean, 1e-3)) : mean;
    m->trees = calloc((size_t)p->trees, sizeof *m->trees);
    for (int i = 0; i < t.n; i++)
        t.pred[i] = m->base;
    for (int k = 0; k < p->trees; k++) {
        gradients(&t);
        for (int i = 0; i < t.n; i++)
            idx[i] = i;
        t.nnodes = 0;
        grow(&t, idx, t.n, 0);
        ModelTree *tr = &m->trees[m->ntrees++];
        tr->nnodes = t.nnodes;
        tr->nodes = malloc(sizeof *tr->nodes * (size_t)t.nnodes);
        memcpy(tr->nodes, t.nodes, sizeof *tr->nodes * (size_t)t.nnodes);
    }
    model_add_exemplars(m, d, keep, 3);
    model_add_support(m, d, keep);
    free(keep);
    free(idx);
    free(t.nodes);
    free(t.pred);
    free(t.g);
    free(t.h);
    free(t.bin);
    free(t.y);
    free(t.w);
    free(t.s);
    return m;
}
