/* Every stencil in examples/, examples/bench/ and tests/programs/ (whatever files are there; the
 * last holds programs that only tests need), float and double,
 * through codegen and onto the GPU, checked against the interpreter on odd sizes with several
 * steps: the default configuration and a set of others (those the space rejects for a stencil
 * are skipped); every other configuration is also compared with the default one on a larger odd
 * grid. Plans are compiled with NVRTC on several threads, then run one by one. Without
 * a GPU, each plan is only compiled (for sm_90); exits 77 when NVRTC is missing too.
 * With --bench, every plan that passed is also timed at its stencil's default size.
 * With --random N, each program gets the default and N random valid configurations instead of
 * the list (the count of verified variants is the figure docs/correctness.md records).
 * With --only TEXT, only the files whose path contains TEXT (e.g. edges2d); with --configs TEXT,
 * only the listed configurations that contain TEXT (e.g. select=on; several parts separated by
 * '|': any of them), the default among them.
 *   test_rt_examples [SOURCE_ROOT] [--quick] [--bench] [--random N [--seed S]] [--threads N]
 *                    [--only TEXT] [--configs TEXT]
 *   (root: $STC_SOURCE_ROOT or .) */
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ast.h"
#include "example_programs.h"
#include "rt.h"
#include "space.h"

static const char *const configs[] = {
    "default", "tb=64x4x1", "tb=32x4x4", "smem=on", "cmem=on", "uf=1x2x1", "uf=2x1x1",
    "cm=1x2x1", "bm=1x2x1", "bm=2x1x1", "stream=y,sb=16", "stream=z,sb=16",
    "stream=z,sb=16,retime=on", "stream=z,sb=16,prefetch=on", "stream=z,sb=16,smem=on",
    "stream=y,sb=32,smem=on", "tblock=2", "tblock=2,smem=on", "tblock=3", "maxreg=64",
    "tb=256x1x1,stream=y,sb=64", "tb=128x1x1,stream=y,sb=32,regq=3,prefetch=on,uf=1x2x1",
    "tb=32x8x1,stream=z,sb=32,regq=3,prefetch=on", "tb=32x4x1,stream=z,sb=16,uf=1x1x4",
    "tb=32x1x8,stream=y,sb=16,regq=2", "tb=64x1x1,stream=y,sb=8,regq=5,prefetch=on",
    "tb=32x32x1,tblock=8", "tb=64x16x1,tblock=4", "tb=32x16x1,tblock=4,maxreg=64",
    "tb=128x8x1,tblock=2", "tb=16x8x8,tblock=2", "tb=32x32x1,tblock=4",
    "tb=64x8x1,tblock=8", "tb=32x4x1,tblock=4", "tb=128x8x1,tblock=16",
    "smem=on,cmem=on", "bm=1x4x1,uf=1x4x1,smem=on", "bm=1x1x4,uf=1x1x4", "bm=1x1x4,uf=1x1x2,smem=on",
    "cm=2x2x1,uf=2x1x1,smem=on", "bm=2x2x1,uf=2x2x1,smem=on,cmem=on", "tb=64x4x1,bm=1x2x2,uf=1x2x2",
    "bm=4x1x1,uf=4x1x1,smem=on", "cm=1x1x2,uf=1x1x2,smem=on", "tb=32x4x1,bm=1x8x1,uf=1x8x1,cmem=on",
    "tb=64x1x1,stream=y,sb=8,tblock=4", "tb=128x1x1,stream=y,sb=16,tblock=8",
    "tb=256x1x1,stream=y,sb=64,tblock=16", "tb=32x1x1,stream=y,sb=32,tblock=2",
    "tb=16x8x1,stream=z,sb=8,tblock=2", "tb=32x16x1,stream=z,sb=16,tblock=4",
    "tb=32x32x1,stream=z,sb=32,tblock=4", "tb=32x32x1,stream=z,sb=32,tblock=3",
    "tb=256x1x1,stream=y,sb=64,tblock=12", "tb=64x1x1,stream=y,sb=16,tblock=6",
    /* on the 67x61 check grid, blocks inside it and blocks at its faces (clamp, mirror: both loops) */
    "tb=32x1x1,stream=y,sb=8,tblock=2",
    "tb=64x1x1,stream=y,sb=16,tblock=4,retime=on", "tb=128x1x1,stream=y,sb=8,tblock=3,retime=on",
    "tb=16x8x1,stream=z,sb=8,tblock=2,retime=on", "tb=32x16x1,stream=z,sb=16,tblock=3,retime=on",
    "tb=128x1x1,stream=y,sb=32,uf=1x2x1", "tb=64x1x1,stream=y,sb=16,prefetch=on,uf=1x4x1",
    "tb=32x4x1,stream=z,sb=16,bm=1x4x1,uf=1x1x2,prefetch=on", "tb=64x1x1,stream=y,sb=16,bm=1x1x2",
    "tb=32x4x1,stream=z,sb=16,retime=on", "tb=64x1x1,stream=y,sb=16,retime=on,uf=1x2x1,prefetch=on",
    "tb=32x2x1,stream=z,sb=16,retime=on,bm=1x4x1,prefetch=on", "tb=16x4x1,stream=z,sb=8,retime=on,bm=1x2x1,uf=1x1x2",
    "tb=32x1x2,stream=y,sb=16,retime=on,bm=1x1x4",
    /* planes copied asynchronously: rows, groups of two planes (a partial last group), along y */
    "tb=32x2x1,stream=z,sb=16,retime=on,bm=1x4x1,async=on", "tb=64x1x1,stream=y,sb=16,retime=on,uf=1x2x1,async=on",
    "tb=16x4x1,stream=z,sb=8,retime=on,bm=1x2x1,uf=1x1x2,async=on",
    "tb=32x1x2,stream=y,sb=16,retime=on,bm=1x1x4,async=on",
    "tb=32x1x4,stream=y,sb=16,retime=on", "tb=128x1x1,stream=y,sb=32,smem=on,prefetch=on,uf=1x2x1",
    "tb=32x8x1,stream=z,sb=32,smem=on,regq=2,prefetch=on", "tb=64x1x1,stream=y,sb=16,smem=on,regq=3",
    /* several columns per thread (3D, every boundary): tiles of 16x16 to 32x64 on the 37x33x29
     * check grid and the larger one, 2 to 4 steps, plain and retimed */
    "tb=16x4x1,stream=z,sb=8,tblock=2,bm=1x4x1", "tb=32x8x1,stream=z,sb=16,tblock=3,bm=1x2x1",
    "tb=32x4x1,stream=z,sb=8,tblock=4,bm=1x8x1", "tb=32x16x1,stream=z,sb=32,tblock=3,bm=1x4x1",
    "tb=16x4x1,stream=z,sb=8,tblock=2,retime=on,bm=1x4x1", "tb=32x8x1,stream=z,sb=16,tblock=3,retime=on,bm=1x2x1",
    /* the fused steps' points selected instead of branched around (select=on), every boundary */
    "tb=64x1x1,stream=y,sb=16,tblock=4,select=on", "tb=32x1x1,stream=y,sb=8,tblock=2,select=on",
    "tb=256x1x1,stream=y,sb=64,tblock=12,select=on", "tb=16x8x1,stream=z,sb=8,tblock=2,select=on",
    "tb=32x32x1,stream=z,sb=32,tblock=3,select=on", "tb=16x4x1,stream=z,sb=8,tblock=2,bm=1x4x1,select=on",
    "tb=32x16x1,stream=z,sb=32,tblock=3,bm=1x4x1,select=on",
    /* fused steps that wrap or reflect run held over extended copies (hold=on): streaming, the
     * columns, retimed, select, the tile kernel; a boundary they do not take skips them */
    "tb=64x1x1,stream=y,sb=16,tblock=4,hold=on", "tb=32x1x1,stream=y,sb=8,tblock=2,bm=2x1x1,hold=on",
    "tb=64x1x1,stream=y,sb=16,tblock=4,retime=on,hold=on", "tb=16x8x1,stream=z,sb=8,tblock=2,hold=on",
    "tb=32x16x1,stream=z,sb=32,tblock=3,bm=1x4x1,select=on,hold=on", "tb=32x32x1,tblock=4,hold=on",
    "tb=16x8x8,tblock=2,hold=on",
    /* held steps that wrap the extended grid (hwrap=on; one GPU: reflecting programs with hold=on) */
    "tb=64x1x1,stream=y,sb=16,tblock=4,hold=on,hwrap=on",
    "tb=32x1x1,stream=y,sb=8,tblock=2,bm=2x1x1,hold=on,hwrap=on",
    "tb=16x8x1,stream=z,sb=8,tblock=2,hold=on,hwrap=on", "tb=32x32x1,tblock=4,hold=on,hwrap=on",
    /* 2D, several columns per thread along x (every boundary; tests/programs/edges2d.st):
     * tiles of 16 to 64 on the 67x61 check grid, radius 1 to 4 across 1 to 4 threads */
    "tb=32x1x1,stream=y,sb=8,tblock=2,bm=2x1x1", "tb=16x1x1,stream=y,sb=16,tblock=4,bm=4x1x1,select=on",
    "tb=16x1x1,stream=y,sb=16,tblock=3,bm=4x1x1", "tb=16x1x1,stream=y,sb=16,tblock=4,bm=2x1x1,select=on",
    "tb=8x1x1,stream=y,sb=8,tblock=2,bm=8x1x1,select=on",
    "bm=2x1x1,uf=2x1x1,vec=2", "tb=64x2x1,bm=2x2x1,uf=2x2x1,vec=2", "tb=16x4x1,bm=4x1x1,uf=4x1x1,vec=4",
    "tb=32x4x1,bm=2x4x1,uf=2x2x1,cmem=on,vec=2", "tb=32x2x2,bm=2x1x4,uf=2x1x4,vec=2",
    "tb=16x8x1,bm=8x2x1,uf=8x2x1,vec=4", "tb=128x2x1,bm=2x2x1,uf=2x2x1,maxreg=64,vec=2",
    "tb=32x4x1,bm=2x1x1,cm=2x1x1,uf=4x1x1,vec=2", "tb=32x8x1,bm=2x1x1,cm=4x1x4,uf=8x1x1,vec=2",
    "tb=32x2x1,bm=2x1x1,cm=2x2x2,uf=4x2x1,vec=2", "tb=16x4x1,bm=4x1x1,cm=2x1x1,uf=8x1x1,vec=4",
    "tb=32x4x1,bm=2x1x1,cm=4x1x1,uf=8x1x1,cmem=on,maxreg=64,vec=2",
    "hcol=on", "tb=32x8x1,cm=8x1x1,uf=8x1x1,hcol=on", "tb=32x8x1,cm=8x1x4,uf=8x1x1,maxreg=128,hcol=on",
    "tb=32x4x1,bm=2x1x1,cm=2x1x2,uf=4x1x1,vec=2,hcol=on", "bm=1x2x1,uf=1x2x1,smem=on,hcol=on",
};

typedef struct {
    const char *file, *config;
    const IrProgram *prog;
    Plan *plan;
    void *cubin;
    char log[4096];
} Case;

typedef struct {
    RtContext *rc;
    Case *cases;
    int ncases, next;
    pthread_mutex_t lock;
} Work;

/* --random N: instead of the list above, the default and N random configurations per program
 * that the space accepts on the program's own grid (its `size`), drawn by space_random_valid. */
static int random_count;
static const char *configs_with; /* --configs TEXT */
static unsigned long long random_seed = 88172645463325252ull;
static Rng random_rng; /* seeded with random_seed once the options are read */

/* Whether config contains one of the '|'-separated parts of with. */
static int listed(const char *config, const char *with)
{
    char part[256];
    for (const char *p = with; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL) {
        size_t len = strcspn(p, "|");
        snprintf(part, sizeof part, "%.*s", (int)(len < sizeof part ? len : sizeof part - 1), p);
        if (len && strstr(config, part))
            return 1;
    }
    return 0;
}

static int random_configs(const IrProgram *prog, Arena *arena, const char ***out)
{
    long n[3];
    for (int d = 0; d < 3; d++)
        n[d] = d < prog->dims ? (prog->size[d] > 0 ? prog->size[d] : 256) : 1;
    Space space;
    space_init(&space, prog, n);
    const char **names = arena_alloc(arena, sizeof *names * (size_t)(random_count + 1));
    int count = 0;
    names[count++] = "default";
    for (int attempt = 0; attempt < random_count * 500 && count <= random_count; attempt++) {
        Config c;
        if (!space_random_valid(&space, &random_rng, 1, &c))
            continue;
        char text[512];
        config_format(&c, text, (int)sizeof text);
        int seen = 0;
        for (int i = 1; i < count && !seen; i++)
            seen = strcmp(names[i], text) == 0;
        if (!seen)
            names[count++] = arena_strdup(arena, text);
    }
    *out = names;
    return count;
}

static int add_cases(const char *path, int quick, Arena *arena, Case **cases, int *n, int *cap,
                     int *skipped)
{
    Diag diag;
    Source src;
    AstFile file;
    if (ex_parse_file(path, arena, &diag, &src, &file) != 0)
        return 1;
    int failed = 0;
    for (int s = 0; s < file.nstencils; s++) {
        for (int type = 0; type < 2; type++) {
            IrProgram *prog = ex_lower(path, &file.stencils[s], type ? ELEM_DOUBLE : ELEM_FLOAT, arena, &diag);
            if (!prog) {
                failed++;
                continue;
            }
            int nconf = quick ? 1 : (int)(sizeof configs / sizeof configs[0]);
            const char **names = (const char **)configs;
            if (random_count > 0)
                nconf = random_configs(prog, arena, &names);
            for (int c = 0; c < nconf; c++) {
                Config cfg;
                char why[1024];
                Plan *plan;
                if (configs_with && c > 0 && !listed(names[c], configs_with))
                    continue;
                if (config_parse(names[c], prog->dims, &cfg, why, (int)sizeof why) != 0
                    || !(plan = plan_build(prog, &cfg, arena, why, (int)sizeof why))) {
                    (*skipped)++;
                    continue;
                }
                if (*n == *cap) {
                    *cap = *cap ? 2 * *cap : 256;
                    *cases = realloc(*cases, sizeof **cases * (size_t)*cap);
                }
                (*cases)[(*n)++] = (Case){ .file = path, .config = names[c], .prog = prog,
                                           .plan = plan };
            }
        }
    }
    return failed;
}

/* Without a GPU the cases are only compiled, on CI machines of two cores where compiling every
 * case takes longer than CI may: there each configuration is compiled for the last
 * COMPILE_ONLY_PROGRAMS programs of each type that it is valid for, in file order (so
 * tests/programs, which exist to reach the unusual paths: every boundary, three levels, per-face
 * boundaries, come first), the default for every program. On a GPU every case runs. */
enum { COMPILE_ONLY_PROGRAMS = 3 };

static int thin_for_compile_only(Case *cases, int n)
{
    char *keep = calloc((size_t)n + 1, 1);
    for (int i = n - 1; i >= 0; i--) {
        int same = 0;
        for (int j = i + 1; j < n; j++)
            same += keep[j] && strcmp(cases[j].config, cases[i].config) == 0 &&
                    cases[j].prog->type == cases[i].prog->type;
        keep[i] = strcmp(cases[i].config, "default") == 0 || same < COMPILE_ONLY_PROGRAMS;
    }
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (keep[i])
            cases[kept++] = cases[i];
    free(keep);
    return kept;
}

static void *compile_worker(void *arg)
{
    Work *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        int i = w->next++;
        pthread_mutex_unlock(&w->lock);
        if (i >= w->ncases)
            return NULL;
        Case *c = &w->cases[i];
        size_t size;
        char name[256];
        snprintf(name, sizeof name, "%s.cu", c->prog->name);
        if (rt_nvrtc_compile(w->rc, c->plan->source, name, &c->cubin, &size, c->log,
                             (int)sizeof c->log) != 0)
            c->cubin = NULL;
    }
}

static const char *type_name(const IrProgram *p) { return p->type == ELEM_DOUBLE ? "double" : "float"; }

/* A non-default plan against the default plan of the same program, on a larger odd grid (the
 * check the tuner makes on the timing grid), and, with vector accesses, also on that grid
 * widened to rows a multiple of vec (on the odd one only the checked path runs). */
static int compare_with_default(RtContext *rc, RtModule *m, Case *c, Case *base)
{
    char why[4096];
    const IrProgram *prog = c->prog;
    if (!base || !base->cubin)
        return 1;
    RtModule *bm = rt_module_load(rc, base->plan, base->cubin, why, (int)sizeof why);
    int n[3], ok = 1;
    rt_verify_size(prog, n);
    for (int d = 0; d < prog->dims; d++)
        n[d] = 3 * n[d] + 2;
    long steps = 2L * (c->plan->step_count > 0 ? c->plan->step_count : 1) + 3;
    int grids = c->plan->config.v[P_VEC] > 1 ? 2 : 1;
    for (int gi = 0; gi < grids && ok; gi++) {
        if (gi == 1)
            rt_verify_align_rows(c->plan, n);
        RtVerifyResult r;
        ok = 0;
        if (!bm || rt_compare_plans(rc, m, bm, n, steps, &r, why, (int)sizeof why) != 0)
            printf("FAIL %s %s [%s] vs default: %s\n", prog->name, type_name(prog), c->config,
                   why);
        else if (!r.ok)
            printf("FAIL %s %s [%s] vs default: %dx%dx%d, %ld steps: field %s differs by %.3g\n",
                   prog->name, type_name(prog), c->config, r.n[0], r.n[1], r.n[2], r.steps,
                   prog->fields[r.worst_field].name, r.max_rel_err);
        else
            ok = 1;
    }
    rt_module_free(bm);
    return ok;
}

/* Loads, runs and checks one compiled case: 1 when it passed. */
static int run_case(RtContext *rc, Case *c, Case *base)
{
    char why[4096];
    const IrProgram *prog = c->prog;
    RtModule *m = rt_module_load(rc, c->plan, c->cubin, why, (int)sizeof why);
    if (!m) {
        printf("FAIL %s %s [%s]: load: %s\n", prog->name, type_name(prog), c->config, why);
        return 0;
    }
    /* The default step count (fused groups and single steps both run), then an odd longer one. */
    long steps[2] = { 0, 2L * (c->plan->step_count > 0 ? c->plan->step_count : 1) + 5 };
    int ok = 1;
    for (int s = 0; s < 2 && ok; s++) {
        RtVerifyResult r;
        if (rt_verify_plan(rc, m, NULL, steps[s], &r, why, (int)sizeof why) != 0) {
            printf("FAIL %s %s [%s]: run: %s\n", prog->name, type_name(prog), c->config, why);
            ok = 0;
        } else if (!r.ok) {
            printf("FAIL %s %s [%s]: %dx%dx%d, %ld steps: field %s differs by %.3g "
                   "(tolerance %.3g)\n", prog->name, type_name(prog), c->config, r.n[0], r.n[1],
                   r.n[2], r.steps, r.worst_field >= 0 ? prog->fields[r.worst_field].name : "?",
                   r.max_rel_err, r.tolerance);
            ok = 0;
        } else if (s == 1) {
            printf("ok   %s %s [%s]: %dx%dx%d, %ld steps, error %.2g\n", prog->name,
                   type_name(prog), c->config, r.n[0], r.n[1], r.n[2], r.steps, r.max_rel_err);
        }
    }
    if (ok && base != c)
        ok = compare_with_default(rc, m, c, base);
    rt_module_free(m);
    return ok;
}

static void bench_case(RtContext *rc, Case *c, double copy)
{
    char why[4096];
    const IrProgram *prog = c->prog;
    int n[3];
    for (int d = 0; d < 3; d++)
        n[d] = d < prog->dims ? (prog->size[d] > 0 ? (int)prog->size[d] : 256) : 1;
    RtModule *m = rt_module_load(rc, c->plan, c->cubin, why, (int)sizeof why);
    RtTiming t;
    if (!m || rt_time_plan(rc, m, n, NULL, &t, why, (int)sizeof why) != 0) {
        printf("bench %s %s [%s]: %s\n", prog->name, type_name(prog), c->config, why);
    } else {
        printf("bench %s [%s] ", type_name(prog), c->config);
        rt_bench_report(stdout, prog, n, &t, copy);
    }
    rt_module_free(m);
}

int main(int argc, char **argv)
{
    const char *root = getenv("STC_SOURCE_ROOT");
    const char *only = NULL;
    int quick = 0, bench = 0, threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--bench") == 0)
            bench = 1;
        else if (strcmp(argv[i], "--random") == 0 && i + 1 < argc)
            random_count = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            random_seed ^= (unsigned long long)atoll(argv[++i]) * 0x9E3779B97F4A7C15ull;
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--configs") == 0 && i + 1 < argc)
            configs_with = argv[++i];
        else
            root = argv[i];
    }
    rng_seed(&random_rng, random_seed);
    if (threads < 1)
        threads = 1;
    if (!root)
        root = ".";
    char why[512];
    RtContext *rc;
    int compile_only = 0;
    if (!rt_available(why, (int)sizeof why)) {
        printf("no GPU (%s): compiling with NVRTC only\n", why);
        compile_only = 1;
        if (!(rc = rt_context_compile_only(9, 0, why, (int)sizeof why))) {
            printf("skipped: %s\n", why);
            return 77;
        }
    } else if (!(rc = rt_context_new(why, (int)sizeof why))) {
        printf("FAIL: %s\n", why);
        return 1;
    }
    rt_device_print(stdout, rc);

    Arena *arena = arena_new();
    Case *cases = NULL;
    int ncases = 0, cap = 0, skipped = 0, failed = 0, passed = 0, files = 0;
    const char *dirs[] = { "examples/*.st", "examples/bench/*.st", "tests/programs/*.st" };
    glob_t gl[3];
    for (int d = 0; d < 3; d++) {
        char pattern[4096];
        snprintf(pattern, sizeof pattern, "%s/%s", root, dirs[d]);
        if (glob(pattern, 0, NULL, &gl[d]) != 0) {
            gl[d].gl_pathc = 0;
            continue;
        }
        for (size_t i = 0; i < gl[d].gl_pathc; i++) {
            if (only && !strstr(gl[d].gl_pathv[i], only))
                continue;
            files++;
            failed += add_cases(gl[d].gl_pathv[i], quick, arena, &cases, &ncases, &cap, &skipped);
        }
    }

    int listed = ncases;
    if (compile_only && random_count == 0 && !only)
        ncases = thin_for_compile_only(cases, ncases);
    Work w = { .rc = rc, .cases = cases, .ncases = ncases };
    pthread_mutex_init(&w.lock, NULL);
    pthread_t tids[64];
    if (threads > 64)
        threads = 64;
    for (int t = 0; t < threads; t++)
        pthread_create(&tids[t], NULL, compile_worker, &w);
    for (int t = 0; t < threads; t++)
        pthread_join(tids[t], NULL);
    pthread_mutex_destroy(&w.lock);

    double copy = 0;
    if (bench && !compile_only) {
        copy = rt_copy_bandwidth(rc, why, (int)sizeof why);
        printf("copy bandwidth: %.1f GB/s%s%s\n", copy, copy > 0 ? "" : ": ", copy > 0 ? "" : why);
    }
    Case *base = NULL;
    for (int i = 0; i < ncases; i++) {
        Case *c = &cases[i];
        if (strcmp(c->config, "default") == 0)
            base = c;
        else if (base && base->prog != c->prog)
            base = NULL;
        if (!c->cubin) {
            printf("FAIL %s %s [%s]: compile: %s\n", c->prog->name, type_name(c->prog),
                   c->config, c->log);
            failed++;
        } else if (compile_only || run_case(rc, c, base)) {
            passed++;
            if (bench && !compile_only)
                bench_case(rc, c, copy);
        } else {
            failed++;
        }
        fflush(stdout);
    }
    for (int i = 0; i < ncases; i++)
        free(cases[i].cubin);
    printf("%d files, %d cases: %d passed, %d failed (%d configurations not valid for a "
           "stencil, skipped)%s\n", files, ncases, passed, failed, skipped,
           compile_only ? " [compiled only, no GPU]" : "");
    if (ncases < listed)
        printf("(%d of the %d cases compiled: without a GPU, each configuration for %d programs "
               "of each type)\n", ncases, listed, COMPILE_ONLY_PROGRAMS);
    for (int d = 0; d < 3; d++)
        if (gl[d].gl_pathc)
            globfree(&gl[d]);
    free(cases);
    arena_free(arena);
    rt_context_free(rc);
    if (files == 0) {
        printf("FAIL: no examples under %s\n", root);
        return 1;
    }
    return failed ? 1 : 0;
}
