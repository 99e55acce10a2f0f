/* GeST's batches and knobs: a round's samples of every group go out together (parallel
 * compiles), the dataset opens with the knobs' first configurations, then the prior
 * configurations (a resumed run measures those its journal lacks first), and --gest's knob
 * text is read with clear errors. */
#include <string.h>

#include "fake_space.h"
#include "tune_int.h"

static int accept_all(void *ctx, const Config *c, char *why, int whylen)
{
    (void)ctx, (void)c, (void)why, (void)whylen;
    return 1;
}

/* Proposal sizes of a GeST run on the synthetic space with an evaluator taking `batch`. */
static int batch_sizes(int batch, int quota, int fill, int *sizes, int max_calls)
{
    Space s;
    fake_space(&s);
    TuneProblem pb = {&s, fake_valid, NULL};
    TuneKnobs k;
    tune_knobs_default(&k);
    k.quota = quota;
    k.fill = fill;
    k.seed = 7;
    TuneStrategy *st = tune_strategy_new("gest", &pb, &k, NULL, 0);
    TuneHistory h;
    tune_history_init(&h);
    Config *cs = malloc(sizeof *cs * (size_t)batch);
    int calls = 0;
    while (calls < max_calls) {
        int n = st->propose(st, &h, cs, batch);
        CHECK(n >= 0 && n <= batch);
        if (n == 0)
            break;
        sizes[calls++] = n;
        for (int i = 0; i < n; i++) {
            double ms;
            char why[160];
            int ok = fake_eval(NULL, &cs[i], &ms, why, sizeof why) == 0;
            int idx = tune_history_add(&h, &cs[i], ok, ms, why, 0);
            CHECK(idx >= 0); /* never proposed twice */
            st->observe(st, &h.items[idx]);
        }
    }
    free(cs);
    tune_history_free(&h);
    tune_strategy_free(st);
    return calls;
}

static void test_batches(void)
{
    int sizes[64];
    int calls = batch_sizes(12, 8, 0, sizes, 40);
    CHECK(calls == 40);
    CHECK(sizes[0] == 12 && sizes[1] == 4); /* the dataset of 16 */
    int sum = 0;
    for (int i = 2; i < calls; i++) {
        CHECK(sizes[i] <= 8 + 5); /* a round's quota (carried fractions add one per group) */
        sum += sizes[i];
    }
    /* One group's share of a quota of 8 over 5 groups is 1-4 (1.6 on average): batches of
     * whole rounds are what lets the evaluator compile in parallel. */
    CHECK(sum > 4 * (calls - 2));
    /* A batch of 1 (no parallel evaluator) still walks the groups one sample at a time. */
    calls = batch_sizes(1, 8, 0, sizes, 40);
    for (int i = 0; i < calls; i++)
        CHECK(sizes[i] == 1);
    /* fill=1: a round that leaves room in the batch is topped up, so every batch after the
     * dataset (12 + 4: the groups form from exactly its 16) is full. */
    calls = batch_sizes(12, 8, 1, sizes, 40);
    CHECK(calls == 40 && sizes[0] == 12 && sizes[1] == 4);
    for (int i = 2; i < calls; i++)
        CHECK(sizes[i] == 12);
    /* ... and with a batch of 1 it changes nothing (replay measures one at a time). */
    int plain[64], filled[64];
    CHECK(batch_sizes(1, 8, 0, plain, 40) == batch_sizes(1, 8, 1, filled, 40));
}

static void test_priors(void)
{
    Space s;
    space_init(&s, NULL, NULL); /* the generator's space, no program: the 3D priors */
    space_set_steps(&s, 1);     /* one step: no temporal blocking */
    TuneProblem pb = {&s, accept_all, NULL};
    Config pri[16];
    int np = tune_priors(&pb, pri, 16);
    CHECK(np >= 4);
    CHECK(tune_priors(&pb, pri, 2) == 2);
    char text[512];
    /* with no program a star, one step: cyclic merging with and without the halo columns
     * stored, vector merging, cyclic merging of vectors, retimed streaming */
    config_format(&pri[0], text, sizeof text);
    CHECK(strstr(text, "cm=8x1x4") && strstr(text, "hcol=on") && strstr(text, "cmem=on"));
    config_format(&pri[1], text, sizeof text);
    CHECK(strstr(text, "cm=8x1x4") && !strstr(text, "hcol"));
    config_format(&pri[2], text, sizeof text);
    CHECK(strstr(text, "vec=2") && strstr(text, "bm=2x2x1"));
    config_format(&pri[3], text, sizeof text);
    CHECK(strstr(text, "vec=2") && strstr(text, "cm=4x1x8"));
    CHECK(np >= 5);
    config_format(&pri[4], text, sizeof text);
    CHECK(strstr(text, "stream=z") && strstr(text, "retime=on"));
    /* GeST's dataset opens with them; priors=0 is the paper's purely random dataset. */
    for (int with = 0; with <= 1; with++) {
        TuneKnobs k;
        tune_knobs_default(&k);
        k.priors = with ? 3 : 0;
        TuneStrategy *st = tune_strategy_new("gest", &pb, &k, NULL, 0);
        TuneHistory h;
        tune_history_init(&h);
        Config out[16];
        int n = st->propose(st, &h, out, 16);
        CHECK(n == 16);
        int same = 0;
        for (int i = 0; i < 3; i++)
            same += tune_config_equal(&out[i], &pri[i]);
        CHECK(same == (with ? 3 : 0));
        tune_history_free(&h);
        tune_strategy_free(st);
    }
    /* A run resumed from a journal past its dataset (made without priors, as by a stencilc
     * older than them) measures the priors first; one whose journal has them goes on. */
    for (int journal_has_priors = 0; journal_has_priors <= 1; journal_has_priors++) {
        TuneKnobs k;
        tune_knobs_default(&k);
        k.seed = 5;
        TuneHistory h;
        tune_history_init(&h);
        Config out[16];
        k.priors = journal_has_priors ? 3 : 0;
        TuneStrategy *first = tune_strategy_new("gest", &pb, &k, NULL, 0);
        int n = first->propose(first, &h, out, 16);
        CHECK(n == 16);
        for (int i = 0; i < n; i++)
            CHECK(tune_history_add(&h, &out[i], 1, 1.0 + i, "", 0.1 * i) >= 0);
        tune_strategy_free(first);
        k.priors = 3;
        TuneStrategy *st = tune_strategy_new("gest", &pb, &k, NULL, 0);
        for (int i = 0; i < h.n; i++) /* as tune_run does with a journal */
            st->observe(st, &h.items[i]);
        n = st->propose(st, &h, out, 16);
        int priors = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < 3; j++)
                priors += tune_config_equal(&out[i], &pri[j]);
        if (journal_has_priors)
            CHECK(n > 0 && priors == 0);
        else
            CHECK(n == 3 && priors == 3);
        tune_history_free(&h);
        tune_strategy_free(st);
    }
    /* Priors the problem rejects are skipped. */
    TuneProblem strict = {&s, fake_valid, NULL};
    np = tune_priors(&strict, pri, 16);
    for (int i = 0; i < np; i++)
        CHECK(fake_valid(NULL, &pri[i], text, sizeof text));
    /* So are priors with a value the space does not take (here: no vec, no cyclic merging
     * along z), even where the validity function does not look. */
    int all = tune_priors(&pb, pri, 16);
    Space small = s;
    small.params[P_VEC].nvalues = 1;
    small.params[P_CMZ].nvalues = 1;
    TuneProblem narrow = {&small, accept_all, NULL};
    np = tune_priors(&narrow, pri, 16);
    CHECK(np == all - 4); /* the two cyclic kernels (with and without hcol) and the two with vec */
    for (int i = 0; i < np; i++)
        CHECK(pri[i].v[P_VEC] == 1 && pri[i].v[P_CMZ] == 1);
}

static Config parsed(const char *text)
{
    Config c;
    char err[256];
    CHECK(config_parse(text, 3, &c, err, sizeof err) == 0);
    return c;
}

/* The proposals of a fresh GeST run, n at a time, until want (out holds want). */
static void first_proposals(const TuneProblem *pb, const TuneKnobs *k, int n, Config *out, int want)
{
    TuneStrategy *st = tune_strategy_new("gest", pb, k, NULL, 0);
    TuneHistory h;
    tune_history_init(&h);
    for (int got = 0; got < want;) {
        int m = st->propose(st, &h, out + got, n < want - got ? n : want - got);
        CHECK(m > 0);
        for (int i = 0; i < m; i++) {
            int idx = tune_history_add(&h, &out[got + i], 1, 1.0 + got + i, "", 0);
            CHECK(idx >= 0);
            st->observe(st, &h.items[idx]);
        }
        got += m;
    }
    tune_history_free(&h);
    tune_strategy_free(st);
}

static int find_config(const Config *list, int n, const Config *c)
{
    for (int i = 0; i < n; i++)
        if (tune_config_equal(&list[i], c))
            return i;
    return -1;
}

/* The knobs' first configurations (the one-step winner of a run that may fuse steps) go before
 * the priors, in order, in a batch of any size, the priors after them; one that is not valid,
 * or not in the space, is skipped; one that is also a prior is measured once. */
static void test_first(void)
{
    Space s;
    space_init(&s, NULL, NULL); /* the generator's 3D space, no program */
    space_set_steps(&s, 100);   /* temporal blocking: a multi-step run */
    TuneProblem pb = {&s, tune_space_valid, &s};
    Config pri[4], out[16];
    CHECK(tune_priors(&pb, pri, 4) == 4);
    Config good = parsed("tb=64x4x1"), invalid = parsed("tb=1024x8x1"), outside = good;
    outside.v[P_TBX] = 48; /* not a value of the space; its validity function does not look */
    char why[256];
    CHECK(space_check(&s, &good, why, sizeof why) && !space_check(&s, &invalid, why, sizeof why));
    CHECK(tune_in_space(&s, &invalid) && !tune_in_space(&s, &outside) && find_config(pri, 4, &good) < 0);
    for (int batch = 1; batch <= 16; batch += 15) {
        TuneKnobs k;
        tune_knobs_default(&k);
        k.first[0] = invalid;
        k.first[1] = good;
        k.nfirst = 2;
        first_proposals(&pb, &k, batch, out, 16);
        CHECK(tune_config_equal(&out[0], &good));
        for (int i = 0; i < 4; i++)
            CHECK(tune_config_equal(&out[1 + i], &pri[i]));
        CHECK(find_config(out, 16, &invalid) < 0);
        k.first[0] = outside;
        k.first[1] = pri[2]; /* also a prior: first, and not again */
        first_proposals(&pb, &k, batch, out, 16);
        CHECK(tune_config_equal(&out[0], &pri[2]) && tune_config_equal(&out[1], &pri[0]));
        CHECK(tune_config_equal(&out[2], &pri[1]) && tune_config_equal(&out[3], &pri[3]));
        CHECK(find_config(out, 16, &outside) < 0);
        k.priors = 0; /* the paper's random dataset still opens with them */
        k.first[0] = good;
        first_proposals(&pb, &k, batch, out, 16);
        CHECK(tune_config_equal(&out[0], &good) && tune_config_equal(&out[1], &pri[2]));
    }
    /* a value outside the space is skipped where the validity function does not look */
    TuneProblem lax = {&s, accept_all, NULL};
    TuneKnobs k;
    tune_knobs_default(&k);
    k.first[0] = outside;
    k.first[1] = good;
    k.nfirst = 2;
    first_proposals(&lax, &k, 16, out, 16);
    CHECK(tune_config_equal(&out[0], &good) && find_config(out, 16, &outside) < 0);
}

/* A batch of one (replay: `stencilc replay`, --replay, bench/replay.py) measures every prior the
 * table gives, in order, before any random draw, as a GPU batch of 12 does in one call; so does
 * a run resumed from a journal that lacks them. A dataset smaller than the priors is followed by
 * the rest of them, before the groups form. */
static void test_batch_of_one(void)
{
    Space s;
    space_init(&s, NULL, NULL); /* the generator's 3D space, no program: the 3D priors */
    space_set_steps(&s, 1);
    TuneProblem pb = {&s, tune_space_valid, &s};
    Config pri[8], one[16], wide[16];
    int all = tune_priors(&pb, pri, 8);
    CHECK(all >= 5);
    for (int want = 4; want <= 8; want += 4) {
        TuneKnobs k;
        tune_knobs_default(&k);
        k.priors = want;
        int np = want < all ? want : all;
        first_proposals(&pb, &k, 1, one, 16);
        first_proposals(&pb, &k, 12, wide, 16);
        for (int i = 0; i < np; i++)
            CHECK(tune_config_equal(&one[i], &pri[i]) && tune_config_equal(&wide[i], &pri[i]));
        for (int i = np; i < 16; i++) /* then random draws, no prior again */
            CHECK(find_config(pri, all, &one[i]) < 0);
        k.dataset = 2;
        first_proposals(&pb, &k, 1, one, np);
        for (int i = 0; i < np; i++)
            CHECK(tune_config_equal(&one[i], &pri[i]));
    }
    /* resumed past its dataset from a journal made without priors: one prior per call */
    TuneKnobs k;
    tune_knobs_default(&k);
    k.priors = 0;
    TuneHistory h;
    tune_history_init(&h);
    TuneStrategy *st = tune_strategy_new("gest", &pb, &k, NULL, 0);
    CHECK(st->propose(st, &h, one, 16) == 16);
    for (int i = 0; i < 16; i++)
        CHECK(find_config(pri, all, &one[i]) < 0 && tune_history_add(&h, &one[i], 1, 1.0 + i, "", 0) >= 0);
    tune_strategy_free(st);
    k.priors = 4;
    st = tune_strategy_new("gest", &pb, &k, NULL, 0);
    for (int i = 0; i < h.n; i++) /* as tune_run does with a journal */
        st->observe(st, &h.items[i]);
    for (int i = 0; i < 4; i++) {
        CHECK(st->propose(st, &h, one, 1) == 1 && tune_config_equal(&one[0], &pri[i]));
        st->observe(st, &h.items[tune_history_add(&h, &one[0], 1, 0.5, "", 0)]);
    }
    CHECK(st->propose(st, &h, one, 1) == 1 && find_config(pri, all, &one[0]) < 0);
    tune_history_free(&h);
    tune_strategy_free(st);
}

static void test_knobs(void)
{
    TuneKnobs k;
    tune_knobs_default(&k);
    char err[256];
    CHECK(k.priors == 4 && k.dataset == 16 && k.groups == 5);
    CHECK(tune_knobs_parse(&k, "dataset=20,groups=4,ar=0.2,lr=0.05,quota=12,priors=0,front=1,by_size=1",
                           err, sizeof err) == 0);
    CHECK(k.dataset == 20 && k.groups == 4 && k.ar == 0.2 && k.lr == 0.05 && k.quota == 12);
    CHECK(k.priors == 0 && k.grouping_front == 1 && k.ratio_by_size == 1);
    CHECK(tune_knobs_parse(&k, "", err, sizeof err) == 0);
    CHECK(tune_knobs_parse(&k, "speed=3", err, sizeof err) == -1 && strstr(err, "unknown GeST knob 'speed'"));
    CHECK(k.fill == 0 && tune_knobs_parse(&k, "fill=1", err, sizeof err) == 0 && k.fill == 1);
    CHECK(k.grouping_balanced == 0 && tune_knobs_parse(&k, "balance=1", err, sizeof err) == 0 &&
          k.grouping_balanced == 1 && k.fill == 1);
    CHECK(tune_knobs_parse(&k, "balance=3", err, sizeof err) == -1 && strstr(err, "'balance'"));
    CHECK(tune_knobs_parse(&k, "fill=2", err, sizeof err) == -1 && strstr(err, "'fill'"));
    CHECK(tune_knobs_parse(&k, "ar=1.5", err, sizeof err) == -1 && strstr(err, "'ar'"));
    CHECK(tune_knobs_parse(&k, "dataset=2.5", err, sizeof err) == -1 && strstr(err, "whole number"));
    CHECK(tune_knobs_parse(&k, "dataset", err, sizeof err) == -1 && strstr(err, "key=value"));
    CHECK(tune_knobs_parse(&k, "dataset=4,,groups=2", err, sizeof err) == -1);
}

/* A space whose valid points the random draws rarely reach: a configuration is valid when at
 * most one free parameter is off its first value (what the draws' repair toward the padded form
 * lands on) or when every free parameter but the last two is at its last value (121 points, which
 * a draw or a group's re-draw around the best almost never hits). With one measured point of that
 * region, as after a resumed run, a long search must still find the rest of the valid points
 * instead of stopping: GeST then steps away from measured ones, and lists their unmeasured
 * neighbours when those steps find nothing. */
static int dense_params[P_COUNT], ndense;

static int sparse_or_dense(void *ctx, const Config *c, char *why, int whylen)
{
    const Space *s = ctx;
    int off = 0;
    for (int p = 0; p < P_COUNT; p++)
        off += tune_param_free(s, p) && c->v[p] != s->params[p].values[0];
    if (off <= 1)
        return 1;
    for (int i = 0; i < ndense; i++) {
        const SpaceParam *sp = &s->params[dense_params[i]];
        if (c->v[sp->id] != sp->values[sp->nvalues - 1]) {
            snprintf(why, (size_t)whylen, "outside both regions");
            return 0;
        }
    }
    return 1;
}

/* How many points of the sparse-or-dense space one long search with seed `seed` measures, of
 * *nvalid, running until GeST proposes nothing. */
static int long_search(unsigned seed, int *nvalid_out)
{
    Space s;
    fake_space_large(&s); /* 11 values per parameter */
    int nfree = 0;
    ndense = 0;
    for (int p = 0; p < P_COUNT; p++)
        nfree += tune_param_free(&s, p);
    for (int p = 0; p < P_COUNT && ndense < nfree - 2; p++)
        if (tune_param_free(&s, p))
            dense_params[ndense++] = p;
    /* valid: the first values (1), one parameter off them (10 values each), the dense 121 */
    int nvalid = 1 + 10 * nfree + 121;
    TuneProblem pb = {&s, sparse_or_dense, &s};
    TuneKnobs k;
    tune_knobs_default(&k);
    k.seed = seed;
    TuneStrategy *st = tune_strategy_new("gest", &pb, &k, NULL, 0);
    TuneHistory h;
    tune_history_init(&h);
    Config d;
    tune_config_min(&s, &d);
    for (int i = 0; i < ndense; i++)
        d.v[dense_params[i]] = s.params[dense_params[i]].values[s.params[dense_params[i]].nvalues - 1];
    CHECK(sparse_or_dense(&s, &d, NULL, 0));
    int first = tune_history_add(&h, &d, 1, 1.0, "", -1); /* loaded, as from a journal */
    st->observe(st, &h.items[first]);
    int total = 0;
    Config cs[12];
    for (;;) {
        int n = st->propose(st, &h, cs, 12);
        if (n <= 0)
            break;
        for (int i = 0; i < n; i++) {
            CHECK(sparse_or_dense(&s, &cs[i], NULL, 0));
            double ms = 1.0 + (double)(tune_config_hash(&cs[i]) % 1000) / 1000.0;
            int idx = tune_history_add(&h, &cs[i], 1, ms, "", 0);
            CHECK(idx >= 0); /* never proposed twice */
            st->observe(st, &h.items[idx]);
        }
        total += n;
    }
    tune_history_free(&h);
    tune_strategy_free(st);
    *nvalid_out = nvalid;
    return total;
}

/* Every valid point but the one loaded, in any order, on every seed, and then nothing: GeST
 * stops only when no valid point is left one parameter away from a measured one. wander's random
 * steps alone stall in the dense corner, on some seeds with most of it unmeasured (docs/gest.md,
 * "Exhausted"). */
static void test_long_search(void)
{
    for (unsigned seed = 1; seed <= 10; seed++) {
        int nvalid = 0;
        CHECK(long_search(seed, &nvalid) == nvalid - 1);
    }
}


int main(void)
{
    test_batches();
    test_long_search();
    test_priors();
    test_first();
    test_batch_of_one();
    test_knobs();
    puts("gest batches, priors, first configurations, knobs: ok");
    return 0;
}
