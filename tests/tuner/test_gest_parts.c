/* GeST's parts on hand-made data: the CV of a pair, the grouping, the reward update and the
 * quota split. */
#include <math.h>
#include <string.h>

#include "fake_space.h"
#include "gest.h"
#include "tune_int.h"

static TuneSample sample(int ufx, int cmx, int ok, double ms)
{
    TuneSample s;
    memset(&s, 0, sizeof s);
    for (int p = 0; p < P_COUNT; p++)
        s.config.v[p] = 1;
    s.config.v[P_UFX] = ufx;
    s.config.v[P_CMX] = cmx;
    s.ok = ok;
    s.ms = ms;
    return s;
}

static void test_cv(void)
{
    TuneSample d[] = {
        sample(1, 1, 1, 5), sample(1, 4, 1, 3), /* ufx=1: best cmx=4 (level 3) */
        sample(2, 2, 1, 2),                     /* ufx=2: best cmx=2 (level 2) */
        sample(4, 4, 1, 4), sample(4, 1, 1, 6), /* ufx=4: best cmx=4 (level 3) */
        sample(8, 1, 0, -1),                    /* failed: not counted */
    };
    int n = (int)(sizeof d / sizeof d[0]);
    /* levels {3,2,3}: mean 8/3, std sqrt(2/9) -> CV sqrt(2)/8 */
    CHECK(fabs(gest_cv_directed(d, n, P_UFX, P_CMX) - sqrt(2) / 8) < 1e-12);
    /* cmx=1 -> ufx 1, cmx=4 -> ufx 1, cmx=2 -> ufx 2: levels {1,1,2} -> CV sqrt(2)/4 */
    CHECK(fabs(gest_cv_directed(d, n, P_CMX, P_UFX) - sqrt(2) / 4) < 1e-12);
    CHECK(fabs(gest_cv_pair(d, n, P_UFX, P_CMX) - 3 * sqrt(2) / 16) < 1e-12);
    /* a single value of the fixed parameter says nothing */
    CHECK(isnan(gest_cv_directed(d, 2, P_UFX, P_CMX)));
    /* a constant best value is the strongest relation: CV 0 */
    TuneSample e[] = {sample(1, 2, 1, 1), sample(2, 2, 1, 1), sample(4, 2, 1, 1)};
    CHECK(gest_cv_directed(e, 3, P_UFX, P_CMX) == 0);
    CHECK(gest_level(1) == 1 && gest_level(8) == 4);
}

static int group_of(const GestGroup *g, int ng, int p)
{
    int found = -1;
    for (int i = 0; i < ng; i++)
        for (int j = 0; j < g[i].n; j++)
            if (g[i].params[j] == p) {
                CHECK(found < 0); /* in one group only */
                found = i;
            }
    return found;
}

static int is_preset(int p)
{
    return p == P_TBX || p == P_TBY || p == P_TBZ || (p >= P_CMX && p <= P_BMZ);
}

static void check_grouping(const Space *s, const TuneSample *d, int n, int want, int front, int balanced)
{
    GestGroup g[GEST_MAX_GROUPS];
    int ng = gest_group(s, d, n, want, front, balanced, g);
    CHECK(ng == want);
    for (int i = 0; i < ng; i++)
        CHECK(g[i].n > 0);
    int total = 0;
    for (int p = 0; p < P_COUNT; p++) {
        int gi = group_of(g, ng, p);
        CHECK((gi >= 0) == (s->params[p].nvalues > 1));
        total += gi >= 0;
    }
    int sum = 0;
    for (int i = 0; i < ng; i++)
        sum += g[i].n;
    CHECK(sum == total);
    if (balanced && want >= 2) {
        /* no group takes in more than ceil(total / want) members; a preset may start larger */
        int cap = (total + want - 1) / want;
        for (int i = 0; i < ng; i++) {
            int preset = 0;
            for (int j = 0; j < g[i].n; j++)
                preset += is_preset(g[i].params[j]);
            CHECK(g[i].n <= (preset > cap ? preset : cap));
        }
    }
    if (want >= 2) {
        CHECK(group_of(g, ng, P_TBX) == group_of(g, ng, P_TBY));
        CHECK(group_of(g, ng, P_TBX) == group_of(g, ng, P_TBZ));
        CHECK(group_of(g, ng, P_CMX) == group_of(g, ng, P_BMY));
        CHECK(group_of(g, ng, P_CMX) != group_of(g, ng, P_TBX));
    }
}

static void test_grouping(void)
{
    Space s;
    fake_space(&s);
    /* a dataset from the synthetic cost */
    TuneProblem pb = {&s, fake_valid, NULL};
    TuneHistory h;
    tune_history_init(&h);
    TuneRng rng;
    tune_rng_seed(&rng, 7);
    for (int i = 0; i < 16; i++) {
        Config c;
        CHECK(tune_sample(&pb, &h, NULL, &rng, NULL, NULL, 0, 100, &c));
        double ms;
        char why[160];
        int bad = fake_eval(NULL, &c, &ms, why, sizeof why);
        tune_history_add(&h, &c, !bad, ms, why, 0);
    }
    for (int balanced = 0; balanced < 2; balanced++)
        for (int front = 0; front < 2; front++)
            for (int want = 1; want <= 6; want++)
                check_grouping(&s, h.items, h.n, want, front, balanced);
    /* no data at all still groups (every CV unknown) */
    check_grouping(&s, NULL, 0, 5, 0, 0);
    check_grouping(&s, NULL, 0, 5, 0, 1);
    tune_history_free(&h);

    /* With room for the two presets only, every other parameter joins one of them. */
    GestGroup g[GEST_MAX_GROUPS];
    Space t;
    fake_space(&t);
    int ng = gest_group(&t, NULL, 0, 2, 0, 0, g);
    CHECK(ng == 2); /* only the presets, everything else joins them */
}

static void test_ratios(void)
{
    double sr[5] = {0.2, 0.2, 0.2, 0.2, 0.2};
    int up1[5] = {0, 1, 0, 0, 0};
    gest_update_ratios(sr, up1, 5, 0.1, 0.1);
    double want1[5] = {0.1, 0.6, 0.1, 0.1, 0.1};
    for (int i = 0; i < 5; i++)
        CHECK(fabs(sr[i] - want1[i]) < 1e-12);
    int up2[5] = {0, 0, 1, 0, 0};
    gest_update_ratios(sr, up2, 5, 0.1, 0.1);
    double want2[5] = {0.1, 0.5, 0.2, 0.1, 0.1}; /* the floor holds; group 2 gets the rest */
    for (int i = 0; i < 5; i++)
        CHECK(fabs(sr[i] - want2[i]) < 1e-12);
    int none[5] = {0};
    double sr3[5] = {0.5, 0.2, 0.1, 0.1, 0.1};
    gest_update_ratios(sr3, none, 5, 0.1, 0.1);
    double want3[5] = {0.5, 0.125, 0.125, 0.125, 0.125}; /* 0.4,.1,.1,.1,.1 renormalized */
    for (int i = 0; i < 5; i++)
        CHECK(fabs(sr3[i] - want3[i]) < 1e-12);
    int two[5] = {1, 0, 0, 0, 1};
    double sr4[5] = {0.3, 0.3, 0.2, 0.1, 0.1};
    gest_update_ratios(sr4, two, 5, 0.1, 0.1);
    double want4[5] = {0.3, 0.2, 0.1, 0.1, 0.3}; /* 1 - (0.2 + 0.1 + 0.1 at the floor + 0.1 at the floor), shared */
    for (int i = 0; i < 5; i++)
        CHECK(fabs(sr4[i] - want4[i]) < 1e-12);
}

static void test_quota(void)
{
    double sr[5] = {0.2, 0.2, 0.2, 0.2, 0.2}, credit[5] = {0};
    int count[5], total = 0;
    gest_split_quota(sr, credit, 5, 8, count);
    for (int i = 0; i < 5; i++)
        CHECK(count[i] == 1);
    gest_split_quota(sr, credit, 5, 8, count);
    for (int i = 0; i < 5; i++)
        CHECK(count[i] == 2); /* 0.6 carried + 1.6 */
    total = 5 + 10;
    for (int r = 0; r < 8; r++) {
        gest_split_quota(sr, credit, 5, 8, count);
        for (int i = 0; i < 5; i++)
            total += count[i];
    }
    CHECK(total == 80); /* nothing lost over rounds */
    double skew[3] = {0.8, 0.1, 0.1}, c3[3] = {0};
    int n3[3];
    gest_split_quota(skew, c3, 3, 10, n3);
    CHECK(n3[0] == 8 && n3[1] == 1 && n3[2] == 1);
}

int main(void)
{
    test_cv();
    test_grouping();
    test_ratios();
    test_quota();
    printf("gest parts: ok\n");
    return 0;
}
