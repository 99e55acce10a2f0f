/* How far GeST's proposals stray from its best, offline: GeST runs on a benchmark's real space
 * (one step, 512^3 or 8192^2), and each proposal is answered from a long search's measurements,
 * 2 ms where they hold none. The measurements are a reference's file (tests/data/reference_*.tsv,
 * written by `bench/longsearch.py reference`, decompressed: CONFIG<TAB>ms lines) or a search's
 * tune log (--tune-log JSON lines, e.g. bench/work/ls/NAME/leg*.jsonl joined). Prints how many
 * proposals they answered, how many after the dataset keep streaming along z with retiming
 * (box3d1r's best family), and the best. No GPU. tests/driver/gest_locality_study.py runs it on
 * every reference (the test tuner_reference_logs); docs/gest.md ("Balanced groups") has what
 * it showed. From the repository root:
 *
 *   ninja -C build-dev tests/driver/gest_locality
 *   xz -dc tests/data/reference_box3d1r_h100.tsv.xz > /tmp/box3d1r.tsv
 *   GEST=priors=0,balance=1 SHOW_GROUPS=1 STC_SOURCE_ROOT=$PWD \
 *       build-dev/tests/driver/gest_locality examples/bench/box3d1r.st /tmp/box3d1r.tsv 333 SEED
 *
 * GEST: GeST's knobs (--gest); SHOW_GROUPS: also print the groups formed from the dataset; SHOW=N:
 * print the first N proposals; UNMEASURED: what a proposal the log lacks counts as, a time in ms
 * (2 by default, faster than the median variant of the larger 3D stencils) or "invalid" (as
 * replay counts it: GeST sees a failed variant). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/ast.h"
#include "tests/driver/load_program.h"
#include "tuner/gest.h"
#include "tuner/guide.h"
#include "tuner/tune_int.h"

#define UNMEASURED_MS 2.0 /* unless UNMEASURED says otherwise */

typedef struct {
    char config[256];
    double ms;
} Measured;

static Measured *measured;
static int nmeasured;

/* A reference's CONFIG<TAB>ms line, or a tune log's ok line {"config":"...","ms":...,
 * "status":"ok",...}: the configuration in place, its time in *ms; NULL for any other line. */
static char *parse_line(char *line, double *ms)
{
    char *tab = strchr(line, '\t');
    if (line[0] != '{' && line[0] != '#' && tab) {
        *tab = '\0';
        *ms = atof(tab + 1);
        return line;
    }
    char *c = strstr(line, "\"config\":\""), *m = strstr(line, "\"ms\":");
    if (!c || !m || !strstr(line, "\"status\":\"ok\""))
        return NULL;
    c += strlen("\"config\":\"");
    char *end = strchr(c, '"');
    if (!end)
        return NULL;
    *end = '\0';
    *ms = atof(m + strlen("\"ms\":"));
    return c;
}

static int load_log(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024];
    int cap = 0;
    while (fgets(line, sizeof line, f)) {
        double ms;
        char *c = parse_line(line, &ms);
        if (!c)
            continue;
        if (nmeasured == cap) {
            cap = cap ? 2 * cap : 1024;
            measured = realloc(measured, (size_t)cap * sizeof *measured);
        }
        snprintf(measured[nmeasured].config, sizeof measured[nmeasured].config, "%.255s", c);
        measured[nmeasured++].ms = ms;
    }
    fclose(f);
    return 0;
}

static double lookup(const char *config)
{
    for (int i = 0; i < nmeasured; i++)
        if (!strcmp(measured[i].config, config))
            return measured[i].ms;
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s STENCIL.st MEASUREMENTS(.tsv|.jsonl) PROPOSALS [SEED]\n", argv[0]);
        return 2;
    }
    if (load_log(argv[2]) != 0) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 1;
    }
    int budget = atoi(argv[3]);
    Arena *arena = arena_new();
    IrProgram *p = load_program(argv[1], arena);
    if (!p)
        return 1;
    long grid[3] = {p->dims == 2 ? 8192 : 512, p->dims == 2 ? 8192 : 512, p->dims == 2 ? 1 : 512};
    Space s;
    space_init(&s, p, grid);
    space_set_steps(&s, 1);
    TuneProblem pb = {&s, tune_space_valid, &s};
    TuneKnobs k;
    tune_knobs_default(&k);
    k.seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
    char err[256];
    if (getenv("GEST") && tune_knobs_parse(&k, getenv("GEST"), err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    /* MODEL: a learned model (stencilc model train) guides the search, on the limits of GPU (default
     * H100), measuring the best-ranked 1/RANK (default 3) of GeST's proposals (tuner/guide.h) */
    Model *model = NULL;
    TuneGuide *guide = NULL;
    if (getenv("MODEL") && *getenv("MODEL")) {
        char merr[1200];
        if (!(model = model_load(getenv("MODEL"), merr, sizeof merr))) {
            fprintf(stderr, "%s\n", merr);
            return 1;
        }
        guide = tune_guide_new(model, occ_gpu_find(getenv("GPU") ? getenv("GPU") : "H100"),
                               getenv("RANK") ? atoi(getenv("RANK")) : 3);
        k.guide = guide;
    }
    TuneStrategy *g = tune_strategy_new("gest", &pb, &k, err, sizeof err);
    if (!g) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    TuneHistory h;
    tune_history_init(&h);
    int n = 0, answered = 0, near = 0, show = getenv("SHOW") ? atoi(getenv("SHOW")) : 0;
    const char *unmeasured = getenv("UNMEASURED");
    int unmeasured_invalid = unmeasured && !strcmp(unmeasured, "invalid");
    double unmeasured_ms = unmeasured && !unmeasured_invalid ? atof(unmeasured) : UNMEASURED_MS;
    double best = 1e30;
    char best_config[256] = "";
    while (n < budget) {
        Config out[8];
        int got = g->propose(g, &h, out, 8);
        if (got <= 0)
            break;
        for (int i = 0; i < got; i++) {
            char text[256];
            config_format(&out[i], text, sizeof text);
            double ms = lookup(text);
            int ok = ms > 0 || !unmeasured_invalid;
            answered += ms > 0;
            if (ms < 0)
                ms = unmeasured_invalid ? 0 : unmeasured_ms;
            int idx = tune_history_add(&h, &out[i], ok, ms, ok ? "" : "not in the log", n);
            if (idx >= 0)
                g->observe(g, &h.items[idx]);
            n++;
            if (n > k.dataset)
                near += strstr(text, "stream=z") && strstr(text, "retime=on");
            if (ok && ms < best) {
                best = ms;
                snprintf(best_config, sizeof best_config, "%s", text);
            }
            if (n <= show)
                printf("%4d %.4f %s\n", n, ms, text);
        }
    }
    if (getenv("SHOW_GROUPS") && h.n >= k.dataset) {
        GestGroup groups[GEST_MAX_GROUPS];
        int ng = gest_group(&s, h.items, k.dataset, k.groups, k.grouping_front, k.grouping_balanced, groups);
        for (int i = 0; i < ng; i++) {
            printf("group %d:", i);
            for (int j = 0; j < groups[i].n; j++)
                printf(" %s", config_param_name(groups[i].params[j]));
            printf("\n");
        }
    }
    printf("%d proposals, %d answered by the log, %d streaming along z with retiming after the dataset; "
           "best %.4f ms %s\n", n, answered, near, best, best_config);
    if (guide) {
        TuneGuideStats st;
        tune_guide_stats(guide, &st);
        printf("guide: %ld proposed, %ld pruned by the limits, %ld ranked out by the model\n", st.seen, st.pruned,
               st.ranked_out);
    }
    tune_history_free(&h);
    tune_strategy_free(g);
    tune_guide_free(guide);
    model_free(model);
    arena_free(arena);
    free(measured);
    return 0;
}
