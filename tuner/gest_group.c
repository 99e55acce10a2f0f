/* GeST's statistics: how strongly two parameters are related (the coefficient of variation of
 * the best values of one over the values of the other), the grouping that follows from it
 * (Algorithm 1 of the paper), and the quota-based reward update of the sampling ratios. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gest.h"
#include "tune_int.h"

double gest_level(int v)
{
    return log2(v > 0 ? (double)v : 1.0) + 1.0;
}

double gest_cv_directed(const TuneSample *data, int n, int a, int b)
{
    /* per distinct value of a: the b of the fastest ok sample */
    int avals[64], bbest[64], nv = 0;
    double msbest[64];
    for (int i = 0; i < n; i++) {
        if (!data[i].ok)
            continue;
        int av = data[i].config.v[a], k = 0;
        while (k < nv && avals[k] != av)
            k++;
        if (k == nv) {
            if (nv == 64)
                continue;
            avals[nv] = av;
            msbest[nv] = data[i].ms;
            bbest[nv] = data[i].config.v[b];
            nv++;
        } else if (data[i].ms < msbest[k]) {
            msbest[k] = data[i].ms;
            bbest[k] = data[i].config.v[b];
        }
    }
    if (nv < 2)
        return NAN;
    double mean = 0, var = 0;
    for (int k = 0; k < nv; k++)
        mean += gest_level(bbest[k]);
    mean /= nv;
    for (int k = 0; k < nv; k++) {
        double d = gest_level(bbest[k]) - mean;
        var += d * d;
    }
    return sqrt(var / nv) / mean;
}

double gest_cv_pair(const TuneSample *data, int n, int a, int b)
{
    double x = gest_cv_directed(data, n, a, b), y = gest_cv_directed(data, n, b, a);
    if (isnan(x))
        return y;
    if (isnan(y))
        return x;
    return (x + y) / 2;
}

typedef struct {
    int a, b;
    double cv; /* +inf when unknown: an unknown relation counts as the weakest */
} Pair;

static int pair_cmp(const void *x, const void *y)
{
    const Pair *p = x, *q = y;
    if (p->cv != q->cv)
        return p->cv < q->cv ? -1 : 1;
    if (p->a != q->a)
        return p->a - q->a;
    return p->b - q->b;
}

typedef struct {
    GestGroup *g;
    int ng, max;
    int cap;         /* balanced grouping: most members a group takes in (0: no limit) */
    int of[P_COUNT]; /* group of each parameter, -1 */
} Grouping;

/* Whether group gi takes no more members (balanced grouping only; a preset group may already
 * hold more than the cap). */
static int group_full(const Grouping *G, int gi)
{
    return G->cap > 0 && G->g[gi].n >= G->cap;
}

static void group_add(Grouping *G, int gi, int p)
{
    G->g[gi].params[G->g[gi].n++] = p;
    G->of[p] = gi;
}

static void group_new(Grouping *G, int p)
{
    G->g[G->ng].n = 0;
    group_add(G, G->ng++, p);
}

static int is_tb(int p)
{
    return p == P_TBX || p == P_TBY || p == P_TBZ;
}

static int is_merge(int p)
{
    return p >= P_CMX && p <= P_BMZ;
}

/* The group a leftover parameter relates to most (lowest CV to a member); the smallest group
 * when nothing is known, as the paper does to keep groups balanced. */
static int leftover_home(const Grouping *G, const Pair *pairs, int np, int p)
{
    double best = INFINITY;
    int home = -1;
    for (int i = 0; i < np; i++) {
        int other = pairs[i].a == p ? pairs[i].b : pairs[i].b == p ? pairs[i].a : -1;
        if (other < 0 || G->of[other] < 0 || !(pairs[i].cv < best) || group_full(G, G->of[other]))
            continue;
        best = pairs[i].cv;
        home = G->of[other];
    }
    if (home >= 0)
        return home;
    for (int gi = 0; gi < G->ng; gi++)
        if (home < 0 || G->g[gi].n < G->g[home].n)
            home = gi;
    return home;
}

/* The preset groups: the thread-block dimensions together, the merging factors together. */
static void preset_groups(Grouping *G, const int *freep, int nfree)
{
    for (int kind = 0; kind < 2; kind++) {
        int first = 1;
        for (int i = 0; i < nfree; i++) {
            int p = freep[i];
            if (kind == 0 ? !is_tb(p) : !is_merge(p))
                continue;
            if (first)
                group_new(G, p), first = 0;
            else
                group_add(G, G->ng - 1, p);
        }
    }
}

/* Algorithm 1: the least related pairs (the back of the sorted deque) seed the groups, so that
 * parameters that do not interact land apart; then the most related pairs (the front) pull
 * their partners in. */
static void group_from_both_ends(Grouping *G, const Pair *pairs, int np, int ngroups)
{
    int lo = 0, hi = np;
    while (lo < hi && G->ng < ngroups) {
        Pair q = pairs[--hi];
        if (G->of[q.a] < 0 && G->ng < ngroups)
            group_new(G, q.a);
        if (G->of[q.b] < 0 && G->ng < ngroups)
            group_new(G, q.b);
    }
    while (lo < hi) {
        Pair q = pairs[lo++];
        if (G->of[q.a] >= 0 && G->of[q.b] < 0 && !group_full(G, G->of[q.a]))
            group_add(G, G->of[q.a], q.b);
        else if (G->of[q.b] >= 0 && G->of[q.a] < 0 && !group_full(G, G->of[q.b]))
            group_add(G, G->of[q.b], q.a);
    }
}

/* The variant: grow from the most related pairs; an ungrouped pair starts a group while there is
 * room, and the last free parameters start groups when the count needs it. */
static void group_from_front(Grouping *G, const Pair *pairs, int np, int ngroups, int ungrouped)
{
    for (int lo = 0; lo < np; lo++) {
        Pair q = pairs[lo];
        int ga = G->of[q.a], gb = G->of[q.b];
        if (ga >= 0 && gb >= 0)
            continue;
        int room = ngroups - G->ng;
        if (ga < 0 && gb < 0) {
            if (room > 0 && ungrouped - 2 >= room - 1) {
                group_new(G, q.a);
                group_add(G, G->ng - 1, q.b);
                ungrouped -= 2;
            }
            continue;
        }
        int p = ga < 0 ? q.a : q.b;
        if (room > 0 && ungrouped <= room)
            group_new(G, p);
        else if (!group_full(G, ga >= 0 ? ga : gb))
            group_add(G, ga >= 0 ? ga : gb, p);
        else
            continue; /* balanced: its partner's group is full; a later pair places it */
        ungrouped--;
    }
}

/* The pairs of free parameters not already in one group, by their coefficient of variation
 * (most related first); returns the count, *out allocated. */
static int sorted_pairs(const Grouping *G, const TuneSample *data, int n, const int *freep, int nfree,
                        Pair **out)
{
    Pair *pairs = malloc(sizeof(Pair) * (size_t)(nfree * nfree + 1));
    int np = 0;
    for (int i = 0; i < nfree; i++)
        for (int j = i + 1; j < nfree; j++) {
            int a = freep[i], b = freep[j];
            if (G->of[a] >= 0 && G->of[a] == G->of[b])
                continue;
            double cv = gest_cv_pair(data, n, a, b);
            pairs[np++] = (Pair){a, b, isnan(cv) ? INFINITY : cv};
        }
    qsort(pairs, (size_t)np, sizeof *pairs, pair_cmp);
    *out = pairs;
    return np;
}

int gest_group(const Space *s, const TuneSample *data, int n, int ngroups, int front_variant,
               int balanced, GestGroup *out)
{
    int freep[P_COUNT], nfree = 0;
    for (int p = 0; p < P_COUNT; p++)
        if (tune_param_free(s, p))
            freep[nfree++] = p;
    if (ngroups > GEST_MAX_GROUPS)
        ngroups = GEST_MAX_GROUPS;
    if (ngroups > nfree)
        ngroups = nfree;
    if (ngroups < 1)
        return 0;
    Grouping G = {.g = out, .max = ngroups, .cap = balanced ? (nfree + ngroups - 1) / ngroups : 0};
    for (int p = 0; p < P_COUNT; p++)
        G.of[p] = -1;
    if (ngroups == 1) {
        G.g[0].n = 0;
        for (int i = 0; i < nfree; i++)
            group_add(&G, 0, freep[i]);
        return 1;
    }
    preset_groups(&G, freep, nfree);
    Pair *pairs;
    int np = sorted_pairs(&G, data, n, freep, nfree, &pairs), ungrouped = 0;
    for (int i = 0; i < nfree; i++)
        ungrouped += G.of[freep[i]] < 0;
    if (!front_variant)
        group_from_both_ends(&G, pairs, np, ngroups);
    else
        group_from_front(&G, pairs, np, ngroups, ungrouped);
    for (int i = 0; i < nfree; i++) { /* the parameters no pair placed */
        int p = freep[i];
        if (G.of[p] >= 0)
            continue;
        if (G.ng < ngroups)
            group_new(&G, p);
        else
            group_add(&G, leftover_home(&G, pairs, np, p), p);
    }
    free(pairs);
    return G.ng;
}

void gest_update_ratios(double *sr, const int *up, int n, double ar, double lr)
{
    int nup = 0;
    double rest = 0;
    if (lr * n > 1)
        lr = 1.0 / n;
    for (int i = 0; i < n; i++) {
        if (up[i]) {
            nup++;
            continue;
        }
        sr[i] = sr[i] - ar < lr ? lr : sr[i] - ar;
        rest += sr[i];
    }
    if (nup > 0) {
        double share = (1 - rest) / nup;
        for (int i = 0; i < n; i++)
            if (up[i])
                sr[i] = share;
        return;
    }
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += sr[i];
    for (int i = 0; i < n && sum > 0; i++)
        sr[i] /= sum;
}

void gest_split_quota(const double *sr, double *credit, int n, int quota, int *count)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += sr[i];
    for (int i = 0; i < n; i++) {
        credit[i] += sum > 0 ? quota * sr[i] / sum : (double)quota / n;
        count[i] = (int)floor(credit[i] + 1e-9);
        credit[i] -= count[i];
    }
}
