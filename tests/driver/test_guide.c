/* The guide around GeST (tuner/guide.c) on star3d1r's real space (512^3, one step), with the
 * shipped model (data/model.txt) and the H100's limits, answered by a synthetic time: every
 * configuration handed to the evaluator is valid and new, none is one the guide dropped; the model
 * ranks about three proposals per measurement; what it dropped is in the tune log with status
 * "pruned" and its reason, and the strategy never proposes it again; GeST's dataset opens with the
 * model's ranking (tune_guide_priors), which the ranking of the batch never drops, nor the knobs'
 * first configuration (the one-step winner of a multi-step run), however it ranks; on a small grid
 * (32^3) the limits prune the merged variants whose few blocks leave SMs idle, without emptying the
 * search, and on one too small for any variant to fill the SMs (20^3) they prune none. The menu's
 * ranking puts the retimed kernels, never near a 3D star's best, behind the rest. No GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../frontend/ast.h"
#include "../../tuner/guide.h"
#include "../../tuner/tune_int.h"
#include "check.h"
#include "load_program.h"


typedef struct {
    const Space *s;
    TuneSeen *measured;
    int n, repeated, invalid;
    Config first[12]; /* the first batch measured */
} Eval;

/* A smooth synthetic time: blocks near 256 threads and merging pay. */
static int eval(void *ctx, const Config *c, double *ms, char *why, int whylen)
{
    Eval *e = ctx;
    char w[256];
    if (!space_check(e->s, c, w, sizeof w))
        e->invalid++;
    if (!tune_seen_add(e->measured, c))
        e->repeated++;
    if (e->n < 12)
        e->first[e->n] = *c;
    e->n++;
    double t = c->v[P_TBX] * c->v[P_TBY] * c->v[P_TBZ];
    *ms = 1 + fabs(log2(t) - 8) / 4 + 1.0 / (c->v[P_CMX] * c->v[P_BMX]);
    return 0;
}

/* The batch evaluator, as the GPU pipeline's: GeST hands out up to the batch at once. */
static void eval_batch(void *ctx, const Config *cs, int n, int *ok, double *ms, char (*why)[160])
{
    for (int i = 0; i < n; i++)
        ok[i] = eval(ctx, &cs[i], &ms[i], why[i], 160) == 0;
}

/* Whether c is among the first batch measured. */
static int in_first_batch(const Eval *e, const Config *c)
{
    for (int j = 0; j < 12 && j < e->n; j++)
        if (tune_config_equal(c, &e->first[j]))
            return 1;
    return 0;
}

/* first (may be NULL): the knobs' first configuration. */
static TuneGuideStats run_guided(const Model *m, const OccGpu *gpu, const long grid[3], int budget,
                                 const char *logpath, const char *first)
{
    Arena *arena = arena_new();
    IrProgram *p = load_example("bench/star3d1r.st", arena);
    TuneGuideStats gs = {0, 0, 0};
    CHECK(p);
    if (!p)
        return gs;
    Space s;
    space_init(&s, p, grid);
    space_set_steps(&s, 1);
    TuneProblem pb = {&s, tune_space_valid, &s};
    TuneKnobs k;
    tune_knobs_default(&k);
    if (first) {
        k.first[0] = load_config(p, first);
        k.nfirst = 1;
    }
    TuneGuide *g = tune_guide_new(m, gpu, 3);
    FILE *log = fopen(logpath, "w");
    tune_guide_set_log(g, log);
    k.guide = g;
    char err[256];
    TuneStrategy *st = tune_strategy_new("gest", &pb, &k, err, sizeof err);
    CHECK(st);
    Eval e = {&s, tune_seen_new(), 0, 0, 0, {{{0}}}};
    TuneEvaluator ev = {eval, &e, eval_batch, 12, NULL, NULL, NULL};
    TuneHistory h;
    tune_history_init(&h);
    TuneRunOptions ro = {.budget = {0, budget}, .quiet = 1};
    TuneResult res;
    tune_run(&pb, st, &ev, &h, &ro, &res);
    fclose(log);
    tune_guide_stats(g, &gs);
    printf("  grid %ldx%ldx%ld: %d measured, %ld proposed, %ld pruned, %ld ranked out\n", grid[0], grid[1], grid[2],
           e.n, gs.seen, gs.pruned, gs.ranked_out);
    CHECK(e.n == budget && e.repeated == 0 && e.invalid == 0);
    if (m) {
        /* a proposal scored beyond 1.25x of its batch's best is ranked out: with the shipped
         * model a third of star3d1r's at least (two thirds before the model learned l_fill,
         * whose scores of star3d1r's variants lie closer); a few kept for a later batch may be
         * left when the budget ends */
        long carried = gs.seen - e.n - gs.ranked_out - gs.pruned;
        CHECK(gs.ranked_out * 3 >= gs.seen && carried >= 0 && carried <= 12);
        /* the dataset opens with the model's ranking */
        Config pri[4];
        int np = tune_guide_priors(g, &pb, pri, 4);
        CHECK(np == 4);
        for (int i = 0; i < np; i++) /* among the first batch measured */
            CHECK(in_first_batch(&e, &pri[i]));
        CHECK(!first || in_first_batch(&e, &k.first[0]));
    }
    /* the log: one "pruned" line per dropped proposal, none of them measured */
    FILE *f = fopen(logpath, "r");
    char line[1024];
    long lines = 0;
    while (f && fgets(line, sizeof line, f)) {
        TuneSample r;
        lines++;
        CHECK(strstr(line, "\"status\":\"pruned\"") && strstr(line, "\"reason\":\""));
        if (tune_log_parse(line, 3, &r) == 0)
            CHECK(!tune_seen_has(e.measured, &r.config));
    }
    if (f)
        fclose(f);
    CHECK(lines == gs.pruned + gs.ranked_out);
    tune_history_free(&h);
    tune_strategy_free(st);
    tune_guide_free(g);
    tune_seen_free(e.measured);
    arena_free(arena);
    return gs;
}

/* The menu's ranking (tune_guide_rank) for star3d1r with the shipped model: the 3D boxes'
 * retimed kernels, a family the model measured on 3D stars and never near their best, come
 * after every trusted candidate (GUIDE_UNSUPPORTED), though the trees alone score them well. */
static void menu_support(const Model *m, const OccGpu *gpu)
{
    Arena *arena = arena_new();
    IrProgram *p = load_example("bench/star3d1r.st", arena);
    CHECK(p);
    if (!p)
        return;
    const long grid[3] = {512, 512, 512};
    Space s;
    space_init(&s, p, grid);
    space_set_steps(&s, 1);
    TuneProblem pb = {&s, tune_space_valid, &s};
    TuneGuide *g = tune_guide_new(m, gpu, 3);
    TuneGuideCandidate c[256];
    int n = tune_guide_rank(g, &pb, NULL, c, 256), trusted = 0, retimed_behind = 0;
    char text[256];
    for (int i = 0; i < n; i++) {
        config_format(&c[i].config, text, sizeof text);
        int retime = strstr(text, "retime=on") != NULL;
        if (c[i].score < GUIDE_UNSUPPORTED / 2) {
            trusted++;
            CHECK(!retime);
        } else if (retime) {
            retimed_behind++;
            CHECK(tune_guide_score(g, &s, &c[i].config) < GUIDE_UNSUPPORTED / 2);
        }
    }
    printf("  menu: %d candidates, %d trusted, %d retimed ones behind them\n", n, trusted, retimed_behind);
    CHECK(trusted > 0 && retimed_behind > 0);
    tune_guide_free(g);
    arena_free(arena);
}

int main(void)
{
    const char *root = getenv("STC_SOURCE_ROOT");
    char path[1024], err[1200];
    snprintf(path, sizeof path, "%s/data/model.txt", root ? root : ".");
    Model *m = model_load(path, err, sizeof err);
    if (!m)
        fprintf(stderr, "%s\n", err);
    CHECK(m);
    const OccGpu *h100 = occ_gpu_find("H100");
    char logpath[] = "/tmp/stc_test_guide_XXXXXX";
    int fd = mkstemp(logpath);
    CHECK(fd >= 0);
    long big[3] = {512, 512, 512}, small[3] = {32, 32, 32}, tiny[3] = {20, 20, 20};
    menu_support(m, h100);
    run_guided(m, h100, big, 120, logpath, NULL);
    run_guided(m, h100, big, 120, logpath, "tb=32x2x1"); /* one the model ranks low */
    TuneGuideStats gs = run_guided(NULL, h100, small, 60, logpath, NULL);
    CHECK(gs.pruned > 0);
    /* 20^3 cannot give 132 SMs 4 warps even at one point per thread: the blocks rule is off */
    gs = run_guided(NULL, h100, tiny, 60, logpath, NULL);
    CHECK(gs.pruned == 0);
    if (!getenv("KEEP_LOG"))
        remove(logpath);
    else
        printf("log: %s\n", logpath);
    model_free(m);
    return failures ? 1 : 0;
}
