/* Grids past 2^31 elements on the GPU (ir.h's index range), against the interpreter at sampled
 * points. Exits 77 without a GPU; needs about 20 GB of GPU memory (an 80 GB H100 holds it).
 *
 * - big2d: a star2d1r-like 2D float stencil on 48000 x 48000 (2.3e9 elements per buffer, two
 *   buffers of 9.2 GB), 5 steps under the default configuration and under streaming, tiled
 *   (block merging), vector and temporal (tblock=4, plus one single step) kernels;
 * - wide1d: a 1D float stencil with a mirror boundary on the largest axis the range allows
 *   (padded extent IR_MAX_EXTENT), where the mirror period 2(n-1) passes INT_MAX.
 *
 * The interpreter cannot run such a grid on a CPU, so each sampled point is checked against
 * the interpreter run on a window around it: W = 2*S*R + 1 points per axis (S steps, radius R),
 * placed so that the point is at least S*R points from every window edge that is not the
 * grid's own boundary. The window, halo included, starts from the GPU's initial data (read
 * back before the run); after S steps the values it holds at the point are exact, because
 * nothing beyond the window reaches the point in S steps. Samples: corners, edges, the points
 * around linear index 2^31, the last rows, and a few scattered ones. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "rt.h"
#include "space.h"

enum { STEPS = 5, MAX_SAMPLES = 64 };

typedef struct {
    int at[3];        /* the sampled interior point */
    double want;      /* the interpreter's value after STEPS steps */
} Sample;

static int failures;

static IrProgram *lower_text(Arena *a, const char *text)
{
    static Source src;
    src.name = "index64.st";
    src.text = text;
    src.size = (long)strlen(text);
    Diag dg;
    diag_init(&dg, &src, stderr);
    AstFile file;
    memset(&file, 0, sizeof file);
    if (parse_source(&src, a, &dg, &file) != 0 || file.nstencils != 1)
        return NULL;
    return ir_lower(&file.stencils[0], a, &dg);
}

static long long linear(const IrProgram *p, const int n[3], int i, int j, int k)
{
    long long p0 = (long long)n[0] + 2 * p->halo[0], p1 = (long long)n[1] + 2 * p->halo[1];
    return ((long long)(k + p->halo[2]) * p1 + (j + p->halo[1])) * p0 + (i + p->halo[0]);
}

/* Reads count elements of field 0's newest buffer from linear index at: from the GPU grid, or
 * (for the self-check) from an interpreter grid. */
typedef int (*ReadFn)(void *from, long long at, int count, double *out, char *why, int whylen);

static int read_gpu(void *from, long long at, int count, double *out, char *why, int whylen)
{
    return rt_grid_read(from, 0, at, count, out, why, whylen);
}

static int read_interp(void *from, long long at, int count, double *out, char *why, int whylen)
{
    const InterpGrid *ig = from;
    (void)why, (void)whylen;
    memcpy(out, ig->buf[0][ig->newest[0]] + at, sizeof *out * (size_t)count);
    return 0;
}

/* The interpreter's value at s->at after STEPS steps, from the grid's current data. */
static int reference(ReadFn read, void *g, const IrProgram *p, const int n[3], Sample *s)
{
    int w[3] = {1, 1, 1}, o[3] = {0, 0, 0};
    for (int d = 0; d < p->dims; d++) {
        int reach = STEPS * p->halo[d];
        w[d] = 2 * reach + 1 < n[d] ? 2 * reach + 1 : n[d];
        o[d] = s->at[d] - reach;
        o[d] = o[d] < 0 ? 0 : o[d] > n[d] - w[d] ? n[d] - w[d] : o[d];
    }
    InterpGrid *ig = interp_grid_new(p, w);
    assert(ig);
    const int *h = p->halo;
    double row[4096];
    assert(w[0] + 2 * h[0] <= 4096);
    char why[300];
    for (int k = -h[2]; k < w[2] + h[2]; k++)
        for (int j = -h[1]; j < w[1] + h[1]; j++) {
            long long from = linear(p, n, o[0] - h[0], o[1] + j, o[2] + k);
            if (read(g, from, w[0] + 2 * h[0], row, why, (int)sizeof why) != 0) {
                printf("FAIL reading the initial data: %s\n", why);
                interp_grid_free(ig);
                return -1;
            }
            for (int l = 0; l < p->fields[0].levels; l++)
                for (int i = -h[0]; i < w[0] + h[0]; i++)
                    ig->buf[0][l][interp_index(ig, i, j, k)] = row[i + h[0]];
        }
    interp_run(ig, STEPS);
    s->want = ig->buf[0][ig->newest[0]][interp_index(ig, s->at[0] - o[0], s->at[1] - o[1], s->at[2] - o[2])];
    interp_grid_free(ig);
    return 0;
}

/* cfg as a Config valid for p on grid n (space_check with the grid), or -1 after a FAIL line. */
static int parse_config(const IrProgram *p, const int n[3], const char *cfg, Config *c)
{
    char why[600];
    const long ln[3] = {n[0], n[1], n[2]};
    Space space;
    space_init(&space, p, ln);
    if (config_parse(cfg, p->dims, c, why, (int)sizeof why) != 0 || !space_check(&space, c, why, (int)sizeof why)) {
        printf("FAIL %s [%s]: not a valid configuration: %s\n", p->name, cfg, why);
        failures++;
        return -1;
    }
    return 0;
}

/* One configuration: fill, read the references (first time only), run, compare the samples. */
static void run_config(RtContext *rc, RtGrid *g, const IrProgram *p, const int n[3], const char *cfg,
                       Sample *samples, int nsamples, int *have_refs)
{
    char why[600];
    Config c;
    if (parse_config(p, n, cfg, &c) != 0)
        return;
    Arena *a = arena_new();
    Plan *plan = plan_build(p, &c, a, why, (int)sizeof why);
    RtModule *m = plan ? rt_compile_plan(rc, plan, why, (int)sizeof why) : NULL;
    if (!m) {
        printf("FAIL %s [%s]: %s\n", p->name, cfg, why);
        failures++;
        arena_free(a);
        return;
    }
    if (rt_grid_fill_random(g, 2024, why, (int)sizeof why) != 0)
        goto fail;
    if (!*have_refs) {
        for (int i = 0; i < nsamples; i++)
            if (reference(read_gpu, g, p, n, &samples[i]) != 0)
                goto fail;
        *have_refs = 1;
    }
    if (rt_run(m, g, STEPS, why, (int)sizeof why) != 0 || rt_sync(rc, why, (int)sizeof why) != 0)
        goto fail;
    double tol = rt_tolerance(p, STEPS), worst = 0;
    int bad = 0;
    for (int i = 0; i < nsamples; i++) {
        const Sample *s = &samples[i];
        double got;
        if (rt_grid_read(g, 0, linear(p, n, s->at[0], s->at[1], s->at[2]), 1, &got, why, (int)sizeof why) != 0)
            goto fail;
        double err = fabs(got - s->want) / (fabs(s->want) > 1e-30 ? fabs(s->want) : 1.0);
        if (!(err <= tol)) {
            if (bad++ < 5)
                printf("  %s [%s]: point (%d, %d, %d): got %.9g, interpreter %.9g\n", p->name, cfg,
                       s->at[0], s->at[1], s->at[2], got, s->want);
        }
        worst = err > worst || err != err ? err : worst;
    }
    printf("%s %s [%s]: %d points, max rel err %.3g (tolerance %.3g)\n", bad ? "FAIL" : "ok  ", p->name,
           cfg[0] ? cfg : "default", nsamples, worst, tol);
    failures += bad != 0;
    rt_module_free(m);
    arena_free(a);
    return;
fail:
    printf("FAIL %s [%s]: %s\n", p->name, cfg, why);
    failures++;
    rt_module_free(m);
    arena_free(a);
}

static void run_program(RtContext *rc, const IrProgram *p, const int n[3], const char *const *cfgs,
                        int ncfgs, Sample *samples, int nsamples)
{
    char why[600];
    RtGrid *g = rt_grid_new(rc, p, n, why, (int)sizeof why);
    if (!g) {
        printf("FAIL %s on %d x %d x %d: %s\n", p->name, n[0], n[1], n[2], why);
        failures++;
        return;
    }
    int have_refs = 0;
    for (int i = 0; i < ncfgs; i++)
        run_config(rc, g, p, n, cfgs[i], samples, nsamples, &have_refs);
    rt_grid_free(g);
}

static int add(Sample *s, int count, int i, int j)
{
    assert(count < MAX_SAMPLES);
    s[count] = (Sample){{i, j, 0}, 0};
    return count + 1;
}

static const IrProgram *program_big2d(Arena *a)
{
    return lower_text(a, "stencil big2d {\n grid 2d;\n type float;\n state u;\n"
                         " u = 0.1873*u[0,-1] + 0.1876*u[-1,0] + 0.25*u[0,0] + 0.1877*u[1,0]\n"
                         "     + 0.1874*u[0,1];\n}\n");
}

static const IrProgram *program_wide1d(Arena *a)
{
    return lower_text(a, "stencil wide1d {\n grid 1d;\n type float;\n"
                         " state u boundary mirror;\n u = 0.25*u[-1] + 0.5*u + 0.25*u[1];\n}\n");
}

/* Corners, edges, the points around linear index 2^31 (when the grid has them), scattered ones. */
static int samples_2d(const int n[3], Sample *s)
{
    int ns = 0, x = n[0] - 1, y = n[1] - 1;
    const int corner[][2] = {{0, 0}, {1, 0}, {0, 1}, {x, 0}, {0, y}, {x, y}, {x - 1, y}, {x / 2, 0},
                             {0, y / 2}, {x, y * 2 / 3}, {x / 4, y}, {x / 2, y / 2}, {x - 999 % n[0], y - 9}};
    for (size_t i = 0; i < sizeof corner / sizeof *corner; i++)
        ns = add(s, ns, corner[i][0], corner[i][1]);
    long long p0 = n[0] + 2, at = 1LL << 31;
    if (p0 * (n[1] + 2) > at) {
        int j0 = (int)(at / p0) - 1, i0 = (int)(at % p0) - 1; /* linear index 2^31 */
        for (int dj = -1; dj <= 1; dj++)
            for (int di = -1; di <= 1; di++)
                ns = add(s, ns, i0 + di, j0 + dj);
        ns = add(s, ns, 0, j0 + 1); /* the first row past 2^31 elements, at its ends */
        ns = add(s, ns, x, j0 + 1);
    }
    unsigned long long r = 88172645463325252ull;
    while (ns < 40) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        ns = add(s, ns, (int)(r % (unsigned)n[0]), (int)((r >> 32) % (unsigned)n[1]));
    }
    return ns;
}

/* Both ends of the axis, and a point near the end of the range. */
static int samples_1d(const int n[3], Sample *s)
{
    int ns = 0, last = n[0] - 1;
    static const int from_end[] = {0, 1, 2, 5, 30};
    for (size_t i = 0; i < sizeof from_end / sizeof *from_end; i++) {
        ns = add(s, ns, from_end[i], 0);
        ns = add(s, ns, last - from_end[i], 0);
    }
    return add(s, ns, last - 7 - n[0] / 3, 0);
}

/* The windowed references against the interpreter on the whole of a small grid: they must be
 * the same numbers (runs without a GPU, so CI checks the test's own method). */
static void self_check(const IrProgram *p, const int n[3], int (*sample)(const int[3], Sample *))
{
    Sample s[MAX_SAMPLES];
    int ns = sample(n, s);
    InterpGrid *full = interp_grid_new(p, n);
    assert(full);
    interp_fill_random(full, 7);
    for (int i = 0; i < ns; i++)
        if (reference(read_interp, full, p, n, &s[i]) != 0)
            failures++;
    interp_run(full, STEPS);
    int bad = 0;
    for (int i = 0; i < ns; i++) {
        double got = full->buf[0][full->newest[0]][interp_index(full, s[i].at[0], s[i].at[1], s[i].at[2])];
        if (fabs(got - s[i].want) > 1e-12 * fabs(got)) {
            if (bad++ < 5)
                printf("  self-check %s: point (%d, %d): window %.17g, whole grid %.17g\n", p->name,
                       s[i].at[0], s[i].at[1], s[i].want, got);
        }
    }
    printf("%s self-check %s on %d x %d: %d windows against the whole grid\n", bad ? "FAIL" : "ok  ",
           p->name, n[0], n[1], ns);
    failures += bad != 0;
    interp_grid_free(full);
}

int main(void)
{
    Arena *a = arena_new();
    const IrProgram *big = program_big2d(a), *wide = program_wide1d(a);
    assert(big && wide);
    const int small2d[3] = {67, 61, 1}, small1d[3] = {67, 1, 1};
    self_check(big, small2d, samples_2d);
    self_check(wide, small1d, samples_1d);

    /* 2.3e9 elements per buffer: past 2^31 */
    const int n2[3] = {48000, 48000, 1};
    static const char *const cfgs2[] = {
        "",
        "tb=256x1x1,smem=on,stream=y,sb=8,uf=1x8x1",
        "tb=128x4x1,uf=2x1x1,bm=2x4x1",
        "tb=1024x1x1,cmem=on,uf=2x8x1,bm=2x8x1,vec=2,hcol=on,maxreg=64",
        "tb=32x8x1,tblock=4",
    };
    /* the largest axis: padded extent IR_MAX_EXTENT, mirror period 2(n-1) past INT_MAX */
    const int n1[3] = {IR_MAX_EXTENT - 2, 1, 1};
    static const char *const cfgs1[] = {"", "tb=128x1x1,bm=4x1x1,uf=4x1x1"};
    Config c;
    for (size_t i = 0; i < sizeof cfgs2 / sizeof *cfgs2; i++)
        parse_config(big, n2, cfgs2[i], &c);
    for (size_t i = 0; i < sizeof cfgs1 / sizeof *cfgs1; i++)
        parse_config(wide, n1, cfgs1[i], &c);

    char why[512];
    if (failures || !rt_available(why, (int)sizeof why)) {
        if (!failures)
            printf("skipped: %s\n", why);
        arena_free(a);
        return failures ? 1 : 77;
    }
    RtContext *rc = rt_context_new(why, (int)sizeof why);
    assert(rc);
    rt_device_print(stdout, rc);
    if (rt_device_info(rc)->total_mem < (size_t)24 << 30) {
        printf("skipped: the GPU has less than 24 GB of memory\n");
        rt_context_free(rc);
        arena_free(a);
        return 77;
    }
    Sample s[MAX_SAMPLES];
    run_program(rc, big, n2, cfgs2, (int)(sizeof cfgs2 / sizeof *cfgs2), s, samples_2d(n2, s));
    run_program(rc, wide, n1, cfgs1, (int)(sizeof cfgs1 / sizeof *cfgs1), s, samples_1d(n1, s));
    rt_context_free(rc);
    arena_free(a);
    puts(failures ? "FAILED" : "ok");
    return failures != 0;
}
