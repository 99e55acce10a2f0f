/* Occupancy pruning on the H100 recordings of the 21 benchmark stencils (tests/data/replay_*):
 * what the GPU's limits make hopeless before anything is compiled (tuner/guide.c,
 * occ_hopeless) never includes the recording's fastest variant, and the variants it does prune
 * are slow. Then the same variants on the limits of an L40 (sm_89: 99 KiB of shared memory per
 * block, 48 warps per SM), where more of them cannot launch at all. No GPU needed. */
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
    long variants, pruned, pruned_ok;
    double slowest_pruned_ratio; /* the fastest pruned variant's time over the best */
} Counts;

static void prune_recording(const char *name, const OccGpu *gpu, Counts *total, int must_keep_best)
{
    const char *root = getenv("STC_SOURCE_ROOT");
    char path[1024], rel[128], err[512];
    snprintf(path, sizeof path, "%s/tests/data/replay_%s_h100.tsv", root ? root : ".", name);
    snprintf(rel, sizeof rel, "bench/%s.st", name);
    Arena *arena = arena_new();
    IrProgram *p = load_example(rel, arena);
    Replay *rp = replay_load(path, err, sizeof err);
    CHECK(p && rp);
    if (!p || !rp) {
        arena_free(arena);
        replay_free(rp);
        return;
    }
    long grid[3] = {1, 1, 1};
    const char *g = replay_header(rp, "grid");
    for (int d = 0; d < 3 && *g; d++) {
        char *end;
        grid[d] = strtol(g, &end, 10);
        g = *end == 'x' ? end + 1 : end;
    }
    Space s;
    space_init(&s, p, grid);
    space_set_steps(&s, 1);
    Config best;
    double best_ms = replay_best_ms(rp, &best);
    TuneGuide *guide = tune_guide_new(NULL, gpu, 1);
    char why[256];
    int best_pruned = tune_guide_hopeless(guide, &s, &best, why, sizeof why);
    if (must_keep_best) {
        if (best_pruned)
            fprintf(stderr, "%s: the best variant is pruned on %s: %s\n", name, gpu->name, why);
        CHECK(!best_pruned);
    }
    /* every recorded variant */
    FILE *f = fopen(path, "r");
    char line[1024];
    long n = 0, pruned = 0, pruned_ok = 0;
    double fastest_pruned = INFINITY;
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char *tab = strchr(line, '\t');
        Config c;
        if (!tab)
            continue;
        *tab = 0;
        if (config_parse(line, p->dims, &c, err, sizeof err) != 0)
            continue;
        n++;
        if (tune_guide_hopeless(guide, &s, &c, why, sizeof why)) {
            pruned++;
            if (strncmp(tab + 1, "fail", 4)) {
                pruned_ok++;
                double ms = atof(tab + 1);
                fastest_pruned = ms < fastest_pruned ? ms : fastest_pruned;
            }
        }
    }
    if (f)
        fclose(f);
    printf("  %-11s %-4s %4ld variants, %3ld pruned (%ld of them measured ok; the fastest of those %.2fx the best)\n",
           name, gpu->name, n, pruned, pruned_ok, pruned_ok ? fastest_pruned / best_ms : 0.0);
    total->variants += n;
    total->pruned += pruned;
    total->pruned_ok += pruned_ok;
    if (pruned_ok && fastest_pruned / best_ms < total->slowest_pruned_ratio)
        total->slowest_pruned_ratio = fastest_pruned / best_ms;
    tune_guide_free(guide);
    replay_free(rp);
    arena_free(arena);
}

int main(void)
{
    static const char *const names[] = {
        "star2d1r", "star2d2r", "star2d3r", "star2d4r", "box2d1r",  "box2d2r",  "box2d3r",
        "box2d4r",  "j2d5pt",   "j2d9pt",   "j2d9pt-gol", "gradient2d", "star3d1r", "star3d2r",
        "star3d3r", "star3d4r", "box3d1r",  "box3d2r",  "box3d3r",  "box3d4r",  "j3d27pt"};
    const OccGpu *h100 = occ_gpu_find("H100"), *l40 = occ_gpu_find("L40");
    Counts th = {0, 0, 0, INFINITY}, tl = {0, 0, 0, INFINITY};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        prune_recording(names[i], h100, &th, 1);
    printf("H100: %ld of %ld recorded variants pruned; the fastest pruned one %.2fx its stencil's best\n",
           th.pruned, th.variants, th.slowest_pruned_ratio);
    /* what is pruned is slow: at least 3x the best (box2d1r's 64-block stream: 5.4x) */
    CHECK(th.pruned > 0 && th.slowest_pruned_ratio > 3);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        prune_recording(names[i], l40, &tl, 0);
    printf("L40: %ld of %ld recorded variants pruned\n", tl.pruned, tl.variants);
    CHECK(tl.pruned > th.pruned && tl.pruned < tl.variants / 2);
    return failures ? 1 : 0;
}
