/* The GPU evaluation pipeline against real faults on the GPU: kernels that the test rewrites
 * (GpuEvalOptions.rewrite) to write to an unmapped address, to spin forever, to compute the
 * wrong value or not to compile. Each costs one failed measurement with its reason; the
 * poisoned context and the hung kernel cost a new worker, and the variants after them in the
 * same batch are still measured and verified. test_gpu_eval tests the same with a fake GPU;
 * this one exits 77 where there is no GPU. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../frontend/ast.h"
#include "load_program.h"
#include "measure_texts.h"
#include "../../tuner/gpu_eval.h"

/* source with `statement` put first in the body of every kernel */
static char *into_kernels(const char *source, const char *statement)
{
    size_t n = strlen(source), k = strlen(statement), count = 0;
    for (const char *s = source; (s = strstr(s, "__global__")); s++)
        count++;
    char *out = malloc(n + count * k + 1), *o = out;
    const char *s = source;
    for (const char *g; (g = strstr(s, "__global__"));) {
        const char *brace = strchr(g, '{');
        assert(brace);
        memcpy(o, s, (size_t)(brace + 1 - s));
        o += brace + 1 - s;
        memcpy(o, statement, k);
        o += k;
        s = brace + 1;
    }
    strcpy(o, s);
    return out;
}

static char *replace_first(const char *source, const char *what, const char *with)
{
    const char *at = strstr(source, what);
    assert(at);
    size_t n = strlen(source), a = strlen(what), b = strlen(with);
    char *out = malloc(n - a + b + 1);
    memcpy(out, source, (size_t)(at - source));
    memcpy(out + (at - source), with, b);
    strcpy(out + (at - source) + b, at + a);
    return out;
}

/* By block width: 64 computes 5 u instead of 6 u, 128 writes far outside any allocation, 256
 * spins, 16 does not compile; the others are left alone. */
static char *rewrite(const Config *c, const char *source)
{
    switch (c->v[P_TBX]) {
    case 64:
        return replace_first(source, "6.0f", "5.0f");
    case 128:
        return into_kernels(source, "\n    if (threadIdx.x == 0)\n        *(volatile float *)"
                            "(0x7f0000000000ull + 4096ull * blockIdx.x) = 1.0f;\n");
    case 256:
        return into_kernels(source, "\n    for (long long t0 = clock64(); clock64() - t0 < (1ll << 62);)"
                                    "\n        ;\n");
    case 16:
        return into_kernels(source, "\n    this is not C;\n");
    }
    return NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    char why[512];
    if (!rt_available(why, (int)sizeof why)) {
        printf("skipped: %s\n", why);
        return 77;
    }
    Arena *arena = arena_new();
    IrProgram *p = load_example("heat.st", arena);
    assert(p && p->dims == 3);
    long grid[3] = {256, 256, 256};
    Space space;
    space_init(&space, p, grid);
    GpuEvalOptions opt = {.rewrite = rewrite, .hang_s = 5, .batch = 9};
    GpuEval *g = gpu_eval_start(p, &space, grid, &opt, why, sizeof why);
    if (!g) {
        printf("skipped: no GPU worker: %s\n", why);
        return 77;
    }
    printf("device: %s\n", gpu_eval_device(g)->name);

    const char *texts[] = {"tb=32x4x2", "tb=64x4x2",  "tb=32x8x2", "tb=128x4x1", "tb=32x16x2",
                           "tb=256x2x1", "tb=32x4x1", "tb=16x16x1", "tb=32x2x2"};
    enum { N = sizeof texts / sizeof *texts };
    Config cs[N];
    GpuEvalResult res[N];
    measure_texts(g, p, texts, N, cs, res);
    int expect_ok[N] = {1, 0, 1, 0, 1, 0, 1, 0, 1};
    for (int i = 0; i < N; i++) {
        assert(res[i].ok == expect_ok[i]);
        assert(res[i].ok ? res[i].ms > 0 : res[i].why[0] != 0);
    }
    assert(strstr(res[1].why, "wrong result") && !strstr(res[1].why, "restarted"));
    /* the context is poisoned: the error is sticky, and the worker is replaced */
    assert(strstr(res[3].why, "ILLEGAL_ADDRESS") || strstr(res[3].why, "LAUNCH_FAILED"));
    assert(strstr(res[3].why, "GPU worker restarted"));
    assert(strstr(res[5].why, "hung") && strstr(res[5].why, "GPU worker restarted"));
    assert(strstr(res[7].why, "does not compile"));
    GpuEvalStats st;
    gpu_eval_stats(g, &st);
    printf("restarts: %ld\n", st.restarts);
    assert(st.restarts == 2);

    /* The new worker compares a variant with the plain kernel on the full grid. */
    RtVerifyResult vr;
    assert(gpu_eval_compare_plain(g, &cs[2], 10, &vr, why, sizeof why) == 0 && vr.ok && vr.steps == 10);
    gpu_eval_stop(g);
    arena_free(arena);
    printf("ok\n");
    return 0;
}
