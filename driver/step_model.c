/* `stencilc model`: the learned model's commands (docs/model.md).
 *
 *   stencilc model features FILE.st [--config C] [--gpu G] [--compile]   one variant's vector
 *   stencilc model extract -o DATA.tsv [--src DIR] [--gpu G] [--compile --kernels CACHE]
 *                          [--db DIR --program FILE.st ...] [RECORD.tsv ...]
 *   stencilc model train -o MODEL.txt [--loo] [--pool replay] [--loss l2|top20]
 *                        [--train-gpu G] DATA.tsv ...
 *
 * extract reads recordings (bench/record_replay.sh, --tune-record), reference searches
 * (bench/longsearch.py) and tuning databases (a key's journal, matched to its program through
 * the program hash of its .best file), builds each variant's plan and writes its features; train
 * fits the model, and with --loo first prints the leave-one-program-out evaluation. --train-gpu G
 * trains on G's measurements only, while --loo and pick still judge every GPU's: how a model of one
 * GPU ranks for another. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../runtime/rt.h"
#include "../tuner/features_kernel.h"
#include "../tuner/guide.h"
#include "../tuner/model.h"
#include "model_cmd.h"
#include "model_program.h"

#define MAX_LIST 256

typedef struct {
    const char *out, *gpu, *kernels, *stencil, *config, *db, *exclude, *note, *train_gpu;
    const char *src[16];
    int nsrc;
    const char *inputs[MAX_LIST], *programs[MAX_LIST];
    int ninputs, nprograms;
    int compile, loo, pool, type, draws, climb, climb_from;
    long grid[3], steps;
    ModelParams params;
} ModelOptions;

static int model_usage(void)
{
    fputs("usage: stencilc model features FILE.st [--stencil S] [--config C] [--gpu G] [--compile]\n"
          "                                        [--type float|double] [--grid NxN[xN]] [--steps N]\n"
          "       stencilc model extract -o DATA.tsv [--src DIR]... [--gpu G] [--compile --kernels CACHE]\n"
          "                              [--db DIR --program FILE.st...] [RECORD.tsv...]\n"
          "       stencilc model train [-o MODEL.txt] [--loo] [--pool replay|reference|all]\n"
          "                            [--loss l2|top20] [--trees N] [--depth N] [--rate R]\n"
          "                            [--per-group N] [--features a,b,...] [--exclude NAME] [--train-gpu G]\n"
          "                            [--note TEXT] DATA.tsv...\n"
          "       stencilc model pick [--src DIR]... [--draws N] [--climb N] [train options] DATA.tsv...\n"
          "(docs/model.md)\n", stderr);
    return 2;
}

static int parse_grid_text(const char *s, long g[3])
{
    int n = 0;
    g[0] = g[1] = g[2] = 0;
    for (const char *p = s; *p && n < 3;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0)
            return -1;
        g[n++] = v;
        p = *end == 'x' ? end + 1 : end;
        if (*end && *end != 'x')
            return -1;
    }
    return n > 0 ? 0 : -1;
}

static int parse_features(const char *list, ModelParams *p)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", list);
    p->nfeatures = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        /* a prefix ending in '_' names a family: p_, c_, d_, l_, k_, o_, g_ */
        size_t n = strlen(tok);
        int found = 0;
        for (int i = 0; i < FEAT_COUNT; i++)
            if (tok[n - 1] == '_' ? !strncmp(feat_names[i], tok, n) : !strcmp(feat_names[i], tok)) {
                p->feature_ids[p->nfeatures++] = i;
                found = 1;
            }
        if (!found) {
            diag_run_error(model_diag, "model: unknown feature '%s'", tok);
            return -1;
        }
    }
    return 0;
}

/* The options that take a value: a text, or a number within [lo, hi] stored as an int, a long
 * or a double at its place in ModelOptions. */
typedef enum { MV_TEXT, MV_INT, MV_LONG, MV_REAL } ModelValue;
static const struct {
    const char *name;
    ModelValue kind;
    size_t at;
    double lo, hi;
} model_values[] = {
    {"-o", MV_TEXT, offsetof(ModelOptions, out), 0, 0},
    {"--gpu", MV_TEXT, offsetof(ModelOptions, gpu), 0, 0},
    {"--kernels", MV_TEXT, offsetof(ModelOptions, kernels), 0, 0},
    {"--stencil", MV_TEXT, offsetof(ModelOptions, stencil), 0, 0},
    {"--config", MV_TEXT, offsetof(ModelOptions, config), 0, 0},
    {"--db", MV_TEXT, offsetof(ModelOptions, db), 0, 0},
    {"--note", MV_TEXT, offsetof(ModelOptions, note), 0, 0},
    {"--exclude", MV_TEXT, offsetof(ModelOptions, exclude), 0, 0},
    {"--steps", MV_LONG, offsetof(ModelOptions, steps), 1, 1 << 30},
    {"--draws", MV_INT, offsetof(ModelOptions, draws), 0, 1e6},
    {"--climb", MV_INT, offsetof(ModelOptions, climb), 0, 1e6},
    {"--climb-from", MV_INT, offsetof(ModelOptions, climb_from), 1, 1e6},
    {"--trees", MV_INT, offsetof(ModelOptions, params.trees), 1, 1e5},
    {"--depth", MV_INT, offsetof(ModelOptions, params.depth), 1, 30},
    {"--per-group", MV_INT, offsetof(ModelOptions, params.max_per_group), 1, 1e7},
    {"--min-leaf", MV_INT, offsetof(ModelOptions, params.min_leaf), 1, 1e7},
    {"--rate", MV_REAL, offsetof(ModelOptions, params.rate), 1e-6, 1},
    {"--clip", MV_REAL, offsetof(ModelOptions, params.clip), 1e-3, 1e3},
};

/* Stores v for the option of row k; a number outside its range or not a number is an error. */
static int model_value(ModelOptions *o, int k, const char *v)
{
    char *end;
    void *at = (char *)o + model_values[k].at;
    if (model_values[k].kind == MV_TEXT) {
        *(const char **)at = v;
        return 0;
    }
    errno = 0;
    double x = strtod(v, &end);
    int whole = model_values[k].kind != MV_REAL;
    if (end == v || *end || errno || x < model_values[k].lo || x > model_values[k].hi
        || (whole && x != floor(x))) {
        diag_run_error(model_diag, whole ? "model: %s takes a whole number from %.0f to %.0f, not '%s'"
                                         : "model: %s takes a number from %g to %g, not '%s'",
                       model_values[k].name, model_values[k].lo, model_values[k].hi, v);
        return -1;
    }
    if (model_values[k].kind == MV_INT)
        *(int *)at = (int)x;
    else if (model_values[k].kind == MV_LONG)
        *(long *)at = (long)x;
    else
        *(double *)at = x;
    return 0;
}

/* The options whose value is a word or a list (model_word_option's): 1 taken, 0 not one of
 * them, -1 an error. */
static int model_word(ModelOptions *o, const char *a, const char *v)
{
    if (!strcmp(a, "--src")) {
        if (o->nsrc < 16)
            o->src[o->nsrc++] = v;
    } else if (!strcmp(a, "--program")) {
        if (o->nprograms < MAX_LIST)
            o->programs[o->nprograms++] = v;
    } else if (!strcmp(a, "--type")) {
        if (strcmp(v, "float") && strcmp(v, "double")) {
            diag_run_error(model_diag, "model: --type takes float or double, not '%s'", v);
            return -1;
        }
        o->type = !strcmp(v, "double") ? ELEM_DOUBLE : ELEM_FLOAT;
    } else if (!strcmp(a, "--grid")) {
        if (parse_grid_text(v, o->grid) != 0) {
            diag_run_error(model_diag, "model: bad --grid '%s'", v);
            return -1;
        }
    } else if (!strcmp(a, "--pool")) {
        o->pool = !strcmp(v, "replay") ? 0 : !strcmp(v, "reference") ? 1 : -1;
    } else if (!strcmp(a, "--loss")) {
        o->params.loss = !strcmp(v, "top20") ? MODEL_TOP20 : MODEL_L2;
    } else if (!strcmp(a, "--train-gpu")) {
        o->train_gpu = o->params.gpu = v;
    } else if (!strcmp(a, "--features")) {
        return parse_features(v, &o->params) != 0 ? -1 : 1;
    } else {
        return 0;
    }
    return 1;
}

/* Which row of model_values names a; -1 for none. */
static int model_value_row(const char *a)
{
    for (int k = 0; k < (int)(sizeof model_values / sizeof *model_values); k++)
        if (!strcmp(a, model_values[k].name))
            return k;
    return -1;
}

static int model_word_option(const char *a)
{
    static const char *const words[] = {"--src", "--program", "--type", "--grid",
                                        "--pool", "--loss", "--train-gpu", "--features"};
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
        if (!strcmp(a, words[k]))
            return 1;
    return 0;
}

static int parse_args(int argc, char **argv, ModelOptions *o)
{
    memset(o, 0, sizeof *o);
    o->type = -1;
    o->pool = -1;
    model_params_default(&o->params);
    o->climb_from = 8;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int k = model_value_row(a);
        if (!strcmp(a, "--compile")) {
            o->compile = 1;
        } else if (!strcmp(a, "--loo")) {
            o->loo = 1;
        } else if (a[0] != '-') {
            if (o->ninputs < MAX_LIST)
                o->inputs[o->ninputs++] = a;
        } else if (k < 0 && !model_word_option(a)) {
            diag_run_error(model_diag, "model: unknown option '%s'", a);
            return -1;
        } else if (!v) {
            diag_run_error(model_diag, "model: '%s' needs a value", a);
            return -1;
        } else {
            i++;
            if (k >= 0 ? model_value(o, k, v) != 0 : model_word(o, a, v) != 1)
                return -1;
        }
    }
    return 0;
}

/* The GPU row for a recorded name or a --gpu text; reports an unknown one. */
const OccGpu *find_gpu_named(const char *name)
{
    const OccGpu *g = occ_gpu_find(name);
    if (!g)
        diag_run_error(model_diag, "model: GPU '%s' is not in the table of GPUs (tuner/occupancy.c); name one with --gpu (e.g. H100, sm_90)", name);
    return g;
}

/* ---- features ------------------------------------------------------------------------------ */

static int cmd_features(const ModelOptions *o)
{
    if (o->ninputs != 1)
        return model_usage();
    Arena *arena = arena_new();
    ModelProgram mp;
    char why[1024];
    int rc = 1;
    const OccGpu *g = find_gpu_named(o->gpu ? o->gpu : "H100");
    if (!g || model_program_load(o->inputs[0], o->stencil, o->type, o->grid, o->steps ? o->steps : 1, arena,
                                 &mp, why, sizeof why) != 0) {
        if (g)
            diag_run_error(model_diag, "%s", why);
        goto out;
    }
    Config c = space_default(&mp.space);
    if (o->config && config_parse(o->config, mp.prog->dims, &c, why, sizeof why) != 0) {
        diag_run_error(model_diag, "--config: %s", why);
        goto out;
    }
    Plan *plan = plan_build(mp.prog, &c, arena, why, sizeof why);
    if (!plan) {
        diag_run_error(model_diag, "%s", why);
        goto out;
    }
    FeatKernel k = {0}, *kp = NULL;
    if (o->compile) {
        RtContext *rc_ = rt_context_compile_only(g->cc / 10, g->cc % 10, why, sizeof why);
        double t0 = (double)clock() / CLOCKS_PER_SEC;
        if (!rc_ || feat_kernel_compile(rc_, plan, &k, why, sizeof why) != 0) {
            diag_run_error(model_diag, "compile: %s", why);
            rt_context_free(rc_);
            goto out;
        }
        if (rt_nvcc_path()) /* nvcc's CPU time is a child's, which clock() does not count */
            diag_run_info(model_diag, "compiled for sm_%d by %s", g->cc, rt_nvcc_path());
        else
            diag_run_info(model_diag, "compiled for sm_%d in %.2f s of CPU", g->cc, (double)clock() / CLOCKS_PER_SEC - t0);
        rt_context_free(rc_);
        kp = &k;
    }
    double f[FEAT_COUNT];
    feat_variant(&mp.space, &c, plan, kp, g, arena, f, why, sizeof why);
    feat_print(stdout, f);
    Occupancy occ = feat_occupancy(plan, kp, g);
    printf("# occupancy on %s: %s, %d blocks of %d threads per SM (%.0f%%, limited by %s)\n", g->name,
           occ_status_text(occ.status), occ.blocks_sm, plan->nstep ? plan->step[0].block[0] * plan->step[0].block[1]
           * plan->step[0].block[2] : 0, 100 * occ.occupancy, occ_limit_name(occ.limit));
    rc = 0;
out:
    arena_free(arena);
    return rc;
}

/* Whether the list of names joined by sep holds name itself (not as part of a longer name). */
static int list_has(const char *list, const char *sep, const char *name)
{
    size_t n = strlen(name), k = strlen(sep);
    for (const char *p = list; *p;) {
        const char *end = strstr(p, sep);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        if (!end)
            break;
        p = end + k;
    }
    return 0;
}

/* Appends name to the list (len bytes) joined by sep, once, where it fits. */
static void list_add(char *list, size_t len, const char *sep, const char *name)
{
    size_t used = strlen(list);
    if (list_has(list, sep, name) || used + strlen(sep) + strlen(name) + 1 > len)
        return;
    snprintf(list + used, len - used, "%s%s", used ? sep : "", name);
}

/* Reads the inputs into d; with --train-gpu, checks that some of them were measured on it. */
static int read_data(const ModelOptions *o, ModelData *d)
{
    char err[1024], gpus[512] = "";
    model_data_init(d);
    for (int i = 0; i < o->ninputs; i++)
        if (model_data_read(d, o->inputs[i], err, sizeof err) != 0) {
            diag_run_error(model_diag, "%s", err);
            model_data_free(d);
            return -1;
        }
    int matched = !o->train_gpu;
    for (int g = 0; g < d->ngroups; g++) {
        matched |= o->train_gpu && model_gpu_matches(d->groups[g].gpu, o->train_gpu);
        list_add(gpus, sizeof gpus, ", ", d->groups[g].gpu);
    }
    if (!matched) {
        diag_run_error(model_diag, "model: --train-gpu '%s' matches none of the data's GPUs (%s)", o->train_gpu, gpus);
        model_data_free(d);
        return -1;
    }
    return 0;
}

/* Whether group g is one a model trained with o learns from. */
static int trained_on(const ModelOptions *o, const ModelData *d, int g)
{
    return (!o->exclude || strcmp(d->groups[g].name, o->exclude) != 0)
           && (!o->train_gpu || model_gpu_matches(d->groups[g].gpu, o->train_gpu));
}

/* The note of a model trained with o on d: the date, what it learned from, the settings. */
static void train_note(const ModelOptions *o, const ModelData *d, char *note, int len)
{
    long variants = 0;
    int pairs = 0, programs = 0, ngpus = 0;
    for (int g = 0; g < d->ngroups; g++) {
        if (!trained_on(o, d, g))
            continue;
        pairs++;
        int name_seen = 0, gpu_seen = 0;
        for (int k = 0; k < g; k++)
            if (trained_on(o, d, k)) {
                name_seen |= !strcmp(d->groups[k].name, d->groups[g].name);
                gpu_seen |= !strcmp(d->groups[k].gpu, d->groups[g].gpu);
            }
        programs += !name_seen;
        ngpus += !gpu_seen;
    }
    for (long i = 0; i < d->n; i++)
        variants += trained_on(o, d, d->samples[i].group);
    time_t t = time(NULL);
    struct tm tm;
    char day[16], where[64] = " (";
    gmtime_r(&t, &tm);
    strftime(day, sizeof day, "%Y-%m-%d", &tm);
    if (ngpus > 1) /* the pairs too: 21 programs may be 40 recordings */
        snprintf(where, sizeof where, " on %d GPUs (%d program-GPU pairs; ", ngpus, pairs);
    int used = snprintf(note, (size_t)len, "trained %s on %ld variants of %d programs%s%s loss, clip %g, %d trees, "
                        "depth %d, min-leaf %d, rate %g)", day, variants, programs, where,
                        o->params.loss == MODEL_L2 ? "l2" : "top20", o->params.clip, o->params.trees,
                        o->params.depth, o->params.min_leaf, o->params.rate);
    if (o->note && used > 0 && used < len)
        snprintf(note + used, (size_t)(len - used), "; %s", o->note);
}

static int cmd_train(const ModelOptions *o)
{
    if (o->ninputs < 1)
        return model_usage();
    ModelData d;
    char err[1024];
    if (read_data(o, &d) != 0)
        return 1;
    diag_run_info(model_diag, "model: %ld variants of %d programs", d.n, d.ngroups);
    if (o->loo) {
        ModelLooRow *rows = calloc((size_t)d.ngroups, sizeof *rows);
        int n = model_loo(&d, &o->params, o->pool, rows, stderr);
        printf("leave-one-program-out (%s loss, %d trees of depth %d, rate %g; candidates: %s; trained on %s%s)\n\n",
               o->params.loss == MODEL_L2 ? "l2" : "top20", o->params.trees, o->params.depth, o->params.rate,
               o->pool == 0 ? "the recording's variants" : o->pool == 1 ? "the reference's variants"
                                                         : "every measured variant",
               o->train_gpu ? "the measurements of " : "every GPU's measurements", o->train_gpu ? o->train_gpu : "");
        model_loo_print(stdout, rows, n);
        free(rows);
    }
    int rc = 0;
    if (o->out) {
        /* --exclude NAME: a model that never saw NAME (leave-one-out studies) */
        int *keep = calloc((size_t)d.ngroups + 1, sizeof *keep);
        for (int g = 0; g < d.ngroups; g++)
            keep[g] = trained_on(o, &d, g);
        Model *m = model_train(&d, keep, &o->params);
        free(keep);
        if (!m) {
            diag_run_error(model_diag, "model: nothing to train on");
            rc = 1;
        } else {
            /* the GPUs it learned from, and what from */
            char gpus[512] = "", note[512];
            for (int g = 0; g < d.ngroups; g++)
                if (trained_on(o, &d, g))
                    list_add(gpus, sizeof gpus, ",", d.groups[g].gpu);
            train_note(o, &d, note, sizeof note);
            model_set_info(m, gpus, note);
            if (model_save(m, o->out, err, sizeof err) != 0) {
                diag_run_error(model_diag, "%s", err);
                rc = 1;
            } else {
                diag_run_info(model_diag, "model written to %s (%s)", o->out, note);
            }
            model_free(m);
        }
    }
    model_data_free(&d);
    return rc;
}

/* ---- pick: the zero-run prediction of each program, by a model that never saw it ----------- */

/* The fastest measurement of config in group g, -1 when it was not measured (ok). */
static double measured_ms(const ModelData *d, int g, const char *config)
{
    double best = -1;
    for (long i = 0; i < d->n; i++) {
        const ModelSample *s = &d->samples[i];
        if (s->group == g && s->ok && !strcmp(s->config, config) && (best < 0 || s->ms < best))
            best = s->ms;
    }
    return best;
}

typedef struct {
    const char *gpu;
    double ratio; /* the pick's time over the best; -1 where the data lacks the pick */
} PickRow;

/* The summary line of the picks of gpu (NULL: all). */
static void pick_summary(const PickRow *rows, int n, const char *gpu)
{
    int count = 0, measured = 0, within15 = 0, within5 = 0;
    double lsum = 0;
    for (int i = 0; i < n; i++) {
        if (gpu && strcmp(rows[i].gpu, gpu))
            continue;
        count++;
        if (rows[i].ratio > 0) {
            measured++;
            within15 += rows[i].ratio <= 1.15;
            within5 += rows[i].ratio <= 1.05;
            lsum += log(rows[i].ratio);
        }
    }
    printf("%s%s%sthe pick within 15%% of the best: %d of %d (within 5%%: %d); %d of the picks measured, geometric "
           "mean ratio %.3f over them\n", gpu ? "on " : "", gpu ? gpu : "", gpu ? ": " : "", within15, count, within5,
           measured, measured ? exp(lsum / measured) : NAN);
}

/* The pick of model m (never trained on group g's program, found in st) for group g: printed as
 * a row of the table, and its ratio to the group's best kept. Returns -1 where the program or the
 * GPU is unknown (skipped with a warning). */
static int pick_one(const ModelOptions *o, const ModelData *d, int g, Model *m, const char *st, PickRow *row)
{
    const char *name = d->groups[g].name;
    char why[1024];
    Arena *arena = arena_new();
    ModelProgram mp;
    const OccGpu *gpu = occ_gpu_find(d->groups[g].gpu);
    if (!m || !st || !gpu
        || (model_program_load(st, name, -1, NULL, 1, arena, &mp, why, sizeof why) != 0
            && model_program_load(st, NULL, -1, NULL, 1, arena, &mp, why, sizeof why) != 0)) {
        diag_run_warning(model_diag, "model pick: %s skipped", name);
        arena_free(arena);
        return -1;
    }
    TuneGuide *guide = tune_guide_new(m, gpu, 1);
    TuneProblem pb = {&mp.space, tune_space_valid, &mp.space};
    TuneGuideRankOptions ro;
    tune_guide_rank_defaults(&ro);
    ro.draws = o->draws;
    ro.climb_rounds = o->climb;
    ro.climb_from = o->climb_from;
    TuneGuideCandidate cand[1];
    char cfg[512] = "-";
    double ms = -1, best = d->groups[g].best_ms;
    if (tune_guide_rank(guide, &pb, &ro, cand, 1) > 0) {
        config_format(&cand[0].config, cfg, sizeof cfg);
        ms = measured_ms(d, g, cfg);
    }
    *row = (PickRow){d->groups[g].gpu, ms > 0 ? ms / best : -1};
    if (ms > 0)
        printf("| %s | %s | %s | %.4g | %.4g | %.3f |\n", name, d->groups[g].gpu, cfg, ms, best, ms / best);
    else
        printf("| %s | %s | %s | not measured | %.4g | - |\n", name, d->groups[g].gpu, cfg, best);
    fflush(stdout);
    tune_guide_free(guide);
    arena_free(arena);
    return 0;
}

/* The summary over all rows, then each GPU's where the data holds several, in the data's order. */
static void pick_summaries(const PickRow *rows, int nrows)
{
    pick_summary(rows, nrows, NULL);
    int several = 0;
    for (int i = 1; i < nrows; i++)
        several |= strcmp(rows[i].gpu, rows[0].gpu) != 0;
    for (int i = 0; several && i < nrows; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= !strcmp(rows[j].gpu, rows[i].gpu);
        if (!seen)
            pick_summary(rows, nrows, rows[i].gpu);
    }
}

static int cmd_pick(const ModelOptions *o)
{
    static const char *const default_src[] = {"examples/bench", "examples"};
    const char *const *src = o->nsrc ? (const char *const *)o->src : default_src;
    int nsrc = o->nsrc ? o->nsrc : 2;
    ModelData d;
    if (read_data(o, &d) != 0)
        return 1;
    int *keep = calloc((size_t)d.ngroups, sizeof *keep), *done = calloc((size_t)d.ngroups, sizeof *done);
    PickRow *rows = calloc((size_t)d.ngroups + 1, sizeof *rows);
    int nrows = 0;
    printf("| program | GPU | the model's pick (never trained on the program) | ms | best ms | ratio |\n");
    printf("|---|---|---|---:|---:|---:|\n");
    for (int g0 = 0; g0 < d.ngroups; g0++) { /* each program once: its groups of every GPU */
        if (done[g0])
            continue;
        const char *name = d.groups[g0].name;
        for (int k = 0; k < d.ngroups; k++)
            keep[k] = strcmp(d.groups[k].name, name) != 0;
        Model *m = model_train(&d, keep, &o->params);
        char file[1024];
        const char *st = model_program_find(name, src, nsrc, file, sizeof file);
        for (int g = g0; g < d.ngroups; g++) {
            if (strcmp(d.groups[g].name, name))
                continue;
            done[g] = 1;
            nrows += pick_one(o, &d, g, m, st, &rows[nrows]) == 0;
        }
        model_free(m);
    }
    putchar('\n');
    pick_summaries(rows, nrows);
    free(rows);
    free(keep);
    free(done);
    model_data_free(&d);
    return 0;
}

static Diag diag_store;
Diag *model_diag = &diag_store;

int step_model(int argc, char **argv)
{
    diag_init(&diag_store, NULL, stderr);
    if (argc < 2)
        return model_usage();
    ModelOptions o;
    if (parse_args(argc - 2, argv + 2, &o) != 0)
        return 2;
    const char *cmd = argv[1];
    if (!strcmp(cmd, "features"))
        return cmd_features(&o);
    if (!strcmp(cmd, "extract"))
        return model_extract(o.out, (const char *const *)o.src, o.nsrc, o.gpu, o.compile, o.kernels, o.db, (const char *const *)o.programs,
                             o.nprograms, (const char *const *)o.inputs, o.ninputs);
    if (!strcmp(cmd, "train"))
        return cmd_train(&o);
    if (!strcmp(cmd, "pick"))
        return cmd_pick(&o);
    return model_usage();
}
