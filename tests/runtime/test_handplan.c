/* The runtime on a GPU with a plan written by hand (no codegen, no interpreter needed): a 2D
 * 5-point heat stencil, float and double, as one step per group and as two fused launches per
 * group plus a single step for the remainder, with a prologue, a parameter, rotation, >48 KiB of
 * shared memory; checked against a loop on the host. Then timing, copy bandwidth, plan
 * comparison, and the errors: NVRTC failure, missing kernel, bad launch. Exits 77 without GPU. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rt.h"

static const char *kernels =
    "#define IDX(i, j) ((long)((j) + 1) * (nx + 2) + ((i) + 1))\n"
    "extern \"C\" __global__ void step5(const T *__restrict__ in, T *__restrict__ out, T alpha,\n"
    "                                 int nx, int ny)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (i >= nx || j >= ny) return;\n"
    "    T c = in[IDX(i, j)];\n"
    "    out[IDX(i, j)] = c + alpha * (in[IDX(i - 1, j)] + in[IDX(i + 1, j)] + in[IDX(i, j - 1)]\n"
    "                                  + in[IDX(i, j + 1)] - 4 * c);\n"
    "}\n"
    "extern \"C\" __global__ void step5_smem(const T *__restrict__ in, T *__restrict__ out,\n"
    "                                      T alpha, int nx, int ny)\n"
    "{\n"
    "    extern __shared__ T big[];\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    int t = threadIdx.y * blockDim.x + threadIdx.x;\n"
    "    big[t * 32] = alpha;\n"
    "    __syncthreads();\n"
    "    if (i >= nx || j >= ny) return;\n"
    "    T c = in[IDX(i, j)];\n"
    "    out[IDX(i, j)] = c + big[t * 32] * (in[IDX(i - 1, j)] + in[IDX(i + 1, j)]\n"
    "                     + in[IDX(i, j - 1)] + in[IDX(i, j + 1)] - 4 * c);\n"
    "}\n"
    "extern \"C\" __global__ void halo_copy(const T *src, T *dst, int nx, int ny)\n"
    "{\n"
    "    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x) - 1;\n"
    "    int j = (int)(blockIdx.y * blockDim.y + threadIdx.y) - 1;\n"
    "    if (i > nx || j > ny) return;\n"
    "    if (i == -1 || j == -1 || i == nx || j == ny) dst[IDX(i, j)] = src[IDX(i, j)];\n"
    "}\n";

static IrField fields[1] = { { .name = "u", .role = ROLE_STATE, .levels = 2, .read = 1,
                               .written = 1 } };
static IrParam params[1] = { { .name = "alpha", .def = 0.2, .has_default = 1, .used = 1 } };
static IrProgram prog = { .name = "hand5pt", .dims = 2, .fields = fields, .nfields = 1,
                          .params = params, .nparams = 1, .halo = { 1, 1, 0 } };

static PlanArg step_args[] = { { ARG_BUF, 0, 0, 0 }, { ARG_BUF, 0, 1, 0 }, { ARG_PARAM, 0, 0, 0 },
                               { ARG_DIM, 0, 0, 0 }, { ARG_DIM, 0, 0, 1 } };
static PlanArg halo_args[] = { { ARG_BUF, 0, 0, 0 }, { ARG_BUF, 0, 1, 0 }, { ARG_DIM, 0, 0, 0 },
                               { ARG_DIM, 0, 0, 1 } };

static PlanLaunch step_launch(const char *kernel, int smem)
{
    return (PlanLaunch){ .kernel = kernel, .block = { 32, 8, 1 }, .tile = { 32, 8, 0 },
                         .axis_of = { 0, 1, 2 }, .smem_bytes = smem, .args = step_args,
                         .nargs = 5, .steps = 1, .rotate_after = 1 };
}

static PlanLaunch prologue[1], plain[1], fused[2], big[1];

/* plan 0: one launch per step; 1: two launches per group + single; 2: 64 KiB shared memory. */
static void make_plans(Plan plans[3], char *source)
{
    prologue[0] = (PlanLaunch){ .kernel = "halo_copy", .block = { 16, 16, 1 },
                                .tile = { 16, 16, 0 }, .axis_of = { 0, 1, 2 },
                                .extra = { 2, 2, 0 }, .args = halo_args, .nargs = 4 };
    plain[0] = step_launch("step5", 0);
    fused[0] = fused[1] = step_launch("step5", 0);
    big[0] = step_launch("step5_smem", 64 * 1024);
    for (int p = 0; p < 3; p++)
        plans[p] = (Plan){ .prog = &prog, .source = source, .prologue = prologue,
                           .nprologue = 1, .step = plain, .nstep = 1, .step_count = 1 };
    plans[1].step = fused;
    plans[1].nstep = 2;
    plans[1].step_count = 2;
    plans[1].single = plain;
    plans[1].nsingle = 1;
    plans[2].step = big;
}

static InterpGrid *host_grid(const int n[3])
{
    InterpGrid *g = calloc(1, sizeof *g);
    g->prog = &prog;
    g->total = 1;
    for (int d = 0; d < 3; d++) {
        g->n[d] = n[d];
        g->pad[d] = n[d] + 2 * prog.halo[d];
        g->total *= g->pad[d];
    }
    g->buf[0] = calloc(3, sizeof(double *));
    for (int l = 0; l < 2; l++) {
        g->buf[0][l] = calloc((size_t)g->total, sizeof(double));
        unsigned s = 17u + (unsigned)l;
        for (long i = 0; i < g->total; i++) {
            s = s * 1103515245u + 12345u;
            g->buf[0][l][i] = 0.5 + (double)(s >> 8) / (double)(1u << 24);
        }
    }
    g->params = calloc(1, sizeof(double));
    g->params[0] = 0.2;
    return g;
}

static void free_host_grid(InterpGrid *g)
{
    for (int l = 0; l < 3; l++)
        free(g->buf[0][l]);
    free(g->buf[0]);
    free(g->params);
    free(g);
}

/* What the plan should compute: the prologue's halo copy, then plain steps, in double. */
static void reference(InterpGrid *g, int steps)
{
    int P0 = g->pad[0];
    double *a = g->buf[0][g->newest[0]], *b = g->buf[0][1 - g->newest[0]];
    for (int j = 0; j < g->pad[1]; j++)
        for (int i = 0; i < P0; i++)
            if (i == 0 || j == 0 || i == P0 - 1 || j == g->pad[1] - 1)
                b[j * P0 + i] = a[j * P0 + i];
    for (int s = 0; s < steps; s++) {
        double *in = g->buf[0][g->newest[0]], *out = g->buf[0][1 - g->newest[0]];
        for (int j = 1; j <= g->n[1]; j++)
            for (int i = 1; i <= g->n[0]; i++) {
                double c = in[j * P0 + i];
                out[j * P0 + i] = c + g->params[0] * (in[j * P0 + i - 1] + in[j * P0 + i + 1]
                                                      + in[(j - 1) * P0 + i]
                                                      + in[(j + 1) * P0 + i] - 4 * c);
            }
        g->newest[0] = 1 - g->newest[0];
    }
}

static void check_plan(RtContext *rc, RtModule *m, int steps)
{
    char why[1024];
    int n[3] = { 67, 61, 1 };
    InterpGrid *want = host_grid(n), *got = host_grid(n);
    RtGrid *g = rt_grid_new(rc, &prog, n, why, (int)sizeof why);
    assert(g);
    /* Start from the values the GPU holds, rounded to its type. */
    assert(rt_grid_upload(g, want, why, (int)sizeof why) == 0);
    assert(rt_grid_download(g, want, why, (int)sizeof why) == 0);
    if (rt_run(m, g, steps, why, (int)sizeof why) != 0) {
        fprintf(stderr, "run failed: %s\n", why);
        abort();
    }
    assert(rt_grid_download(g, got, why, (int)sizeof why) == 0);
    reference(want, steps);
    int worst;
    double err = rt_compare_grids(got, want, &worst);
    printf("  %s, %d steps: newest %d/%d, error %.3g (tolerance %.3g)\n",
           prog.type == ELEM_FLOAT ? "float" : "double", steps, got->newest[0], want->newest[0],
           err, rt_tolerance(&prog, steps));
    assert(got->newest[0] == want->newest[0]);
    assert(err <= rt_tolerance(&prog, steps));
    rt_grid_free(g);
    free_host_grid(want);
    free_host_grid(got);
}

static void run_type(RtContext *rc, ElemType type)
{
    char log[8192], source[8192];
    prog.type = type;
    prog.an.bytes_per_point = 2 * ir_elem_size(&prog);
    snprintf(source, sizeof source, "typedef %s T;\n%s", type == ELEM_FLOAT ? "float" : "double",
             kernels);
    Plan plans[3];
    make_plans(plans, source);
    RtModule *m[3];
    for (int p = 0; p < 3; p++) {
        m[p] = rt_compile_plan(rc, &plans[p], log, (int)sizeof log);
        if (!m[p]) {
            fprintf(stderr, "compile failed: %s\n", log);
            abort();
        }
    }
    for (int p = 0; p < 3; p++) {
        printf("plan %d:\n", p);
        for (int steps = 1; steps <= 7; steps += 3)
            check_plan(rc, m[p], steps);
    }
    int tn[3] = { 4096, 4096, 1 };
    RtVerifyResult vr;
    char why[1024];
    assert(rt_compare_plans(rc, m[0], m[1], tn, 9, &vr, why, (int)sizeof why) == 0);
    printf("compare plain vs fused on 4096^2, 9 steps: error %.3g, ok %d\n", vr.max_rel_err, vr.ok);
    assert(vr.ok && vr.worst_field == 0);
    RtTiming t;
    double copy = rt_copy_bandwidth(rc, why, (int)sizeof why);
    printf("copy bandwidth: %.1f GB/s\n", copy);
    assert(copy > 0);
    for (int p = 0; p < 3; p++) {
        assert(rt_time_plan(rc, m[p], tn, NULL, &t, why, (int)sizeof why) == 0);
        printf("plan %d: ", p);
        rt_bench_report(stdout, &prog, tn, &t, copy);
        assert(t.ms_per_step > 0 && t.reps >= 5);
    }
    /* A small grid fits in L2: the timer flushes. */
    int sn[3] = { 256, 256, 1 };
    assert(rt_time_plan(rc, m[0], sn, NULL, &t, why, (int)sizeof why) == 0);
    printf("small: ");
    rt_bench_report(stdout, &prog, sn, &t, copy);
    assert(t.flushed);
    for (int p = 0; p < 3; p++)
        rt_module_free(m[p]);
}

static void check_errors(RtContext *rc)
{
    char log[8192];
    Plan plans[3];
    make_plans(plans, "extern \"C\" __global__ void step5(float *p) { p[0] = undeclared_x; }\n");
    assert(rt_compile_plan(rc, &plans[0], log, (int)sizeof log) == NULL);
    printf("NVRTC failure reported:\n%s\n", log);
    assert(strstr(log, "undeclared_x"));

    char source[8192];
    snprintf(source, sizeof source, "typedef float T;\n%s", kernels);
    prog.type = ELEM_FLOAT;
    make_plans(plans, source);
    PlanLaunch missing = step_launch("no_such_kernel", 0);
    plans[0].step = &missing;
    assert(rt_compile_plan(rc, &plans[0], log, (int)sizeof log) == NULL);
    printf("missing kernel reported: %s\n", log);
    assert(strstr(log, "no_such_kernel"));

    /* A block too large to launch is an error, not a crash, and the context survives it. */
    make_plans(plans, source);
    PlanLaunch huge = step_launch("step5", 0);
    huge.block[0] = 2048;
    plans[0].step = &huge;
    RtModule *m = rt_compile_plan(rc, &plans[0], log, (int)sizeof log);
    assert(m);
    int n[3] = { 67, 61, 1 };
    RtGrid *g = rt_grid_new(rc, &prog, n, log, (int)sizeof log);
    assert(g);
    assert(rt_grid_fill_random(g, 1, log, (int)sizeof log) == 0);
    assert(rt_run(m, g, 3, log, (int)sizeof log) != 0);
    printf("bad launch reported: %s\n", log);
    rt_grid_free(g);
    rt_module_free(m);
    make_plans(plans, source);
    m = rt_compile_plan(rc, &plans[0], log, (int)sizeof log);
    assert(m);
    check_plan(rc, m, 3);
    rt_module_free(m);
}

int main(void)
{
    char why[512];
    if (!rt_available(why, (int)sizeof why)) {
        printf("skipped: %s\n", why);
        return 77;
    }
    RtContext *rc = rt_context_new(why, (int)sizeof why);
    assert(rc);
    rt_device_print(stdout, rc);
    run_type(rc, ELEM_FLOAT);
    run_type(rc, ELEM_DOUBLE);
    check_errors(rc);
    rt_context_free(rc);
    puts("ok");
    return 0;
}
