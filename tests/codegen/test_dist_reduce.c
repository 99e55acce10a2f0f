/* The reductions of a distributed run (codegen/emit_dist_reduce.c): NAME_dist_reduce and
 * NAME_dist_run_reduce in the header only where the program has reductions; the partial
 * kernels' boxed form over a rank's owned points, with global coordinates; the exchange of the
 * buffers the reductions read at an offset, at their reach; one NCCL group of all-gathers; the
 * values combined by kind; and the one-GPU files without any of it. (tests/dist/test_compile.sh
 * compiles the emitted code with nvcc; tests/dist/run_gpu.sh runs it.) */
#include <assert.h>
#include <string.h>

#include "../driver/load_program.h"
#include "codegen.h"
#include "hand_ir.h"

/* What the files of one program must hold and must not (NULL-terminated lists). */
typedef struct {
    const char *example; /* under examples/ */
    int dist;            /* emitted with --distributed */
    const char *const *h_has, *const *cu_has, *const *h_lacks, *const *cu_lacks;
} Case;

/* wave3d_energy: periodic on every axis, reductions reading u at x + 1 and z - 1, u@-1 at 0. */
static const char *const WAVE_H[] = {
    "#define WAVE3D_ENERGY_REDUCTIONS(X) X(energy, sum) X(peak, max) X(low, min)\n",
    "int wave3d_energy_dist_reduce(wave3d_energy_dist *d, const wave3d_energy_fields *f, "
    "const wave3d_energy_params *p, wave3d_energy_reductions *out,\n    cudaStream_t stream);",
    "int wave3d_energy_dist_run_reduce(wave3d_energy_dist *d, wave3d_energy_fields *f, "
    "const wave3d_energy_params *p, int steps, void *workspace,\n    wave3d_energy_reductions *out, cudaStream_t stream);",
    NULL};
static const char *const WAVE_CU[] = {
    /* the boxed partial kernel: the owned points of a local buffer of interior n */
    "for (int k = box_lo2 + (int)blockIdx.z; k < box_lo2 + box_n2; k += 8) {",
    "wave3d_energy_reduce_energy_box<<<dim3(4u, 8u, 8u), dim3(256u, 1u, 1u), 0, stream>>>(b->u[0], b->u[1], p->c2, "
    "b->k, n[0], n[1], n[2], scratch + 0, dd->ext_lo[0], dd->ext_lo[1], dd->ext_lo[2], dd->n[0], dd->n[1], dd->n[2]);",
    "wave3d_energy_combine_sum<<<dim3(1u, 1u, 1u), dim3(256u, 1u, 1u), 0, stream>>>(scratch + 0);",
    "cudaError_t ce = wave3d_energy_dreduce_(b, p, d->local, scratch, stream, d);",
    /* the exchange: u at the reach {1, 0, 1}, periodic on x, y, z */
    "static const int wave3d_energy_DIST_RED_REACH_[3] = {1, 0, 1};",
    "    x[n++] = (wave3d_energy_xfield_){(float *)b->u[0], 7};\n    return n;",
    /* every rank's values in one group, combined by kind (0 sum, 1 min, 2 max) */
    "    ncclResult_t ne = ncclGroupStart();\n    if (ne == ncclSuccess)\n"
    "        ne = ncclAllGather(scratch + 256, all + 0 * (size_t)d->nranks, 1, ncclDouble, d->comm, stream);",
    "ncclAllGather(scratch + 770, all + 2 * (size_t)d->nranks, 1, ncclDouble, d->comm, stream);\n"
    "    const ncclResult_t end = ncclGroupEnd();",
    "out->peak = wave3d_energy_dist_combine_(host + 1 * (size_t)nranks, nranks, 2); /* max */",
    "out->low = wave3d_energy_dist_combine_(host + 2 * (size_t)nranks, nranks, 1); /* min */",
    NULL};
/* u@-1 is read at offset 0 only: not exchanged */
static const char *const WAVE_CU_LACKS[] = {"(wave3d_energy_xfield_){(float *)b->u[1], 7};\n    return n;", NULL};

/* tests/dist/dred.st: the global coordinates (origin: the rank's offset less its layers before
 * the owned points, as the steps'); the diagonal read makes both axes' reach 1. */
static const char *const DRED_CU[] = {
    "    const int co_[3] = {dd->offset[0] - dd->ext_lo[0], dd->offset[1] - dd->ext_lo[1],\n",
    "dred_reduce_moment_box<<<dim3(16u, 16u, 1u), dim3(256u, 1u, 1u), 0, stream>>>(b->u[0], n[0], n[1], co_[0], "
    "co_[1], scratch + 0, dd->ext_lo[0], dd->ext_lo[1], dd->n[0], dd->n[1]);",
    "(float)(i + c_o0)", "static const int dred_DIST_RED_REACH_[3] = {1, 1, 0};",
    "(dred_xfield_){(float *)b->u[0], 1};", NULL};

/* no distributed reductions: one GPU, or a program without reductions */
static const char *const NO_DIST_H[] = {"dist_reduce", "REDUCTIONS", NULL};
static const char *const NO_DIST_CU[] = {"_box<<<dim3(", "ncclAllGather", "dist_reduce", NULL};
static const char *const HEAT_H[] = {"int heat_dist_run(", NULL};
static const char *const NONE[] = {NULL};

static const Case CASES[] = {
    {"wave3d_energy.st", 1, WAVE_H, WAVE_CU, NONE, WAVE_CU_LACKS},
    {"../tests/dist/dred.st", 1, NONE, DRED_CU, NONE, NONE},
    {"wave3d_energy.st", 0, NONE, NONE, NO_DIST_H, NO_DIST_CU},
    {"heat.st", 1, HEAT_H, NONE, NO_DIST_H, NO_DIST_CU},
};

static void each(const char *text, const char *const *needles, void (*check)(const char *, const char *))
{
    for (; *needles; needles++)
        check(text, *needles);
}

static void check_case(Arena *a, const Case *c)
{
    IrProgram *p = load_example(c->example, a);
    assert(p);
    StrBuf cu = {0}, h = {0};
    assert(cg_emit_opts(hb_plan(a, p, ""), p->name, NULL, c->dist, &cu, &h) == 0);
    each(h.data, c->h_has, hb_has);
    each(cu.data, c->cu_has, hb_has);
    each(h.data, c->h_lacks, hb_lacks);
    each(cu.data, c->cu_lacks, hb_lacks);
    sb_free(&cu);
    sb_free(&h);
}

int main(void)
{
    Arena *a = arena_new();
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        check_case(a, &CASES[i]);
    arena_free(a);
    return 0;
}
