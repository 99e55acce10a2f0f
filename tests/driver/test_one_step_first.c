/* The one-step tuning's record, timed first by a tuning that may fuse steps (issue 33;
 * tuner/policy_db.c, tune_db_one_step): a record stored under the key of star2d1r's one-step
 * tuning (the generator's tblock<=1) is found by its 1000-step tuning of the same grid on the
 * same GPU and CUDA, and not by a tuning of another grid, program or GPU, nor by a run that
 * cannot fuse steps; a distributed tuning finds only its own one-step record; a record whose
 * configuration is not valid for the space is not taken. No GPU needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../frontend/ast.h"
#include "check.h"
#include "load_program.h"
#include "../../tuner/policy_int.h"


/* One tuning as tune_choose sets it up, with the GPU known. Not to be moved once made. */
typedef struct {
    Space space;
    TuneRequest rq;
    TuneChoice out;
    Tuning t;
    TuneProblem pb;
    char generator[160];
    char *program;
} Run;

static Diag diag;
static char dir[64];

static void run_init(Run *r, const IrProgram *p, long nx, int steps, const char *gpu)
{
    memset(r, 0, sizeof *r);
    long grid[3] = {nx, 256, 1};
    space_init(&r->space, p, grid);
    space_set_steps(&r->space, steps);
    r->rq = (TuneRequest){.prog = p, .space = &r->space, .grid = {nx, 256, 1}, .quiet = 1,
                          .generator = "stencilc test"};
    r->t = (Tuning){.rq = &r->rq, .out = &r->out, .d = &diag, .strategy = "gest"};
    snprintf(r->t.dir, sizeof r->t.dir, "%s", dir);
    r->program = tune_key_init(&r->rq, &r->t.key, r->generator, sizeof r->generator);
    r->t.key.gpu = gpu;
    r->t.key.cuda = "13.0";
    r->pb = (TuneProblem){&r->space, tune_space_valid, &r->space};
}

/* Distributed over 2x1x1 ranks; the key's generator follows. */
static void run_distribute(Run *r)
{
    r->rq.procs[0] = 2;
    r->rq.procs[1] = r->rq.procs[2] = 1;
    free(r->program);
    r->program = tune_key_init(&r->rq, &r->t.key, r->generator, sizeof r->generator);
    r->t.key.gpu = "NVIDIA H100 80GB HBM3";
    r->t.key.cuda = "13.0";
}

static void store(const Run *r, const char *config, double ms)
{
    TuneDbEntry e = {.ms = ms};
    char err[512];
    snprintf(e.config, sizeof e.config, "%s", config);
    CHECK(tunedb_store(dir, &r->t.key, &e, NULL, err, sizeof err) == 0);
}

/* What the run would time first: 1 with its text in found, or 0. */
static int first_of(Run *r, char *found, int len)
{
    Config c;
    TuneDbEntry e;
    if (tune_db_one_step(&r->t, &r->pb, &c, &e) != 0)
        return 0;
    config_format(&c, found, len);
    return 1;
}

/* Whether found (config_format's) is the 2D configuration text. */
static int same_config(const char *found, const char *text)
{
    Config c;
    char err[256], want[512];
    if (config_parse(text, 2, &c, err, sizeof err) != 0)
        return 0;
    config_format(&c, want, sizeof want);
    return !strcmp(found, want);
}

static void check_lookups(const IrProgram *star1, const IrProgram *star2)
{
    static Run one, multi, other;
    const char *h100 = "NVIDIA H100 80GB HBM3", *cfg = "tb=128x2,uf=1x4,bm=1x4";
    char found[512];
    run_init(&one, star1, 256, 1, h100);
    CHECK(!strcmp(one.generator, "stencilc test; tblock<=1"));
    store(&one, cfg, 0.5);
    run_init(&multi, star1, 256, 1000, h100);
    CHECK(tune_tblock_max(&multi.space) > 1 && strcmp(multi.generator, one.generator));
    CHECK(first_of(&multi, found, sizeof found) && same_config(found, cfg));
    CHECK(!first_of(&one, found, sizeof found)); /* no tblock > 1: nothing to add */
    run_init(&other, star1, 512, 1000, h100);    /* another grid */
    CHECK(!first_of(&other, found, sizeof found));
    free(other.program);
    run_init(&other, star2, 256, 1000, h100); /* another program */
    CHECK(!first_of(&other, found, sizeof found));
    free(other.program);
    run_init(&other, star1, 256, 1000, "NVIDIA H200"); /* another GPU */
    CHECK(!first_of(&other, found, sizeof found));
    /* distributed: the suffix stays, so only a distributed one-step record answers */
    run_distribute(&multi);
    CHECK(!first_of(&multi, found, sizeof found));
    run_distribute(&one);
    CHECK(strstr(one.generator, "tblock<=1; distributed 2x1x1"));
    store(&one, "tb=64x4", 0.7);
    CHECK(first_of(&multi, found, sizeof found) && same_config(found, "tb=64x4"));
    /* a record the space refuses (a block of 8192 threads) is not taken */
    store(&one, "tb=1024x8", 0.1);
    CHECK(!first_of(&multi, found, sizeof found));
    free(one.program);
    free(multi.program);
    free(other.program);
}

int main(void)
{
    Arena *arena = arena_new();
    IrProgram *star1 = load_example("bench/star2d1r.st", arena), *star2 = load_example("bench/star2d2r.st", arena);
    CHECK(star1 && star2);
    snprintf(dir, sizeof dir, "/tmp/stc_one_step_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    diag_init(&diag, NULL, stderr);
    if (star1 && star2)
        check_lookups(star1, star2);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    arena_free(arena);
    if (failures)
        return 1;
    puts("one-step record first: ok");
    return 0;
}
