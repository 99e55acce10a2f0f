/* The reductions of a distributed run (codegen/emit_dist_reduce.c): NAME_dist_reduce and
 * NAME_dist_run_reduce in the header only where the program has reductions; the partial
 * kernels' boxed form over a rank's owned points, with global coordinates; the exchange of the
 * buffers the reductions read at an offset, at their reach; one NCCL group of all-gathers; the
 * values combined by kind; and the one-GPU files unchanged by it. (tests/dist/test_compile.sh
 * compiles the emitted code with nvcc; tests/dist/run_gpu.sh runs it.) */
#include <assert.h>
#include <string.h>

#include "../driver/load_program.h"
#include "codegen.h"
#include "hand_ir.h"

static void emit(Arena *a, const char *example, const char *base, int dist, StrBuf *cu, StrBuf *h)
{
    IrProgram *p = load_example(example, a);
    assert(p);
    assert(cg_emit_opts(hb_plan(a, p, ""), base, NULL, dist, cu, h) == 0);
}

/* wave3d_energy: periodic on every axis, reductions reading u at x + 1 and z - 1, u@-1 at 0. */
static void check_wave(Arena *a)
{
    StrBuf cu = {0}, h = {0};
    emit(a, "wave3d_energy.st", "w", 1, &cu, &h);
    hb_has(h.data, "#define WAVE3D_ENERGY_REDUCTIONS(X) X(energy, sum) X(peak, max) X(low, min)\n");
    hb_has(h.data, "int wave3d_energy_dist_reduce(wave3d_energy_dist *d, const wave3d_energy_fields *f, "
                   "const wave3d_energy_params *p, wave3d_energy_reductions *out,\n    cudaStream_t stream);");
    hb_has(h.data, "int wave3d_energy_dist_run_reduce(wave3d_energy_dist *d, wave3d_energy_fields *f, "
                   "const wave3d_energy_params *p, int steps, void *workspace,\n"
                   "    wave3d_energy_reductions *out, cudaStream_t stream);");
    /* the boxed partial kernel: the owned points of a local buffer of interior n */
    hb_has(cu.data, "for (int k = box_lo2 + (int)blockIdx.z; k < box_lo2 + box_n2; k += 8) {");
    hb_has(cu.data, "wave3d_energy_reduce_energy_box<<<dim3(4u, 8u, 8u), dim3(256u, 1u, 1u), 0, stream>>>(b->u[0], "
                    "b->u[1], p->c2, b->k, n[0], n[1], n[2], scratch + 0, dd->ext_lo[0], dd->ext_lo[1], "
                    "dd->ext_lo[2], dd->n[0], dd->n[1], dd->n[2]);");
    hb_has(cu.data, "wave3d_energy_combine_sum<<<dim3(1u, 1u, 1u), dim3(256u, 1u, 1u), 0, stream>>>(scratch + 0);");
    hb_has(cu.data, "cudaError_t ce = wave3d_energy_dreduce_(b, p, d->local, scratch, stream, d);");
    /* the exchange: u at the reach {1, 0, 1}, periodic on x, y, z; u@-1 is read at offset 0 only */
    hb_has(cu.data, "static const int wave3d_energy_DIST_RED_REACH_[3] = {1, 0, 1};");
    hb_has(cu.data, "    x[n++] = (wave3d_energy_xfield_){(float *)b->u[0], 7};\n    return n;");
    hb_lacks(cu.data, "(wave3d_energy_xfield_){(float *)b->u[1], 7};\n    return n;");
    /* every rank's values in one group, combined by kind (0 sum, 1 min, 2 max) */
    hb_has(cu.data, "    ncclResult_t ne = ncclGroupStart();\n    if (ne == ncclSuccess)\n"
                    "        ne = ncclAllGather(scratch + 256, all + 0 * (size_t)d->nranks, 1, ncclDouble, d->comm, stream);");
    hb_has(cu.data, "ncclAllGather(scratch + 770, all + 2 * (size_t)d->nranks, 1, ncclDouble, d->comm, stream);\n"
                    "    const ncclResult_t end = ncclGroupEnd();");
    hb_has(cu.data, "out->peak = wave3d_energy_dist_combine_(host + 1 * (size_t)nranks, nranks, 2); /* max */");
    hb_has(cu.data, "out->low = wave3d_energy_dist_combine_(host + 2 * (size_t)nranks, nranks, 1); /* min */");
    sb_free(&cu);
    sb_free(&h);

    /* the one-GPU files have none of it */
    StrBuf one = {0}, oneh = {0};
    emit(a, "wave3d_energy.st", "w", 0, &one, &oneh);
    hb_lacks(one.data, "_box");
    hb_lacks(one.data, "ncclAllGather");
    hb_lacks(oneh.data, "dist_reduce");
    sb_free(&one);
    sb_free(&oneh);
}

/* tests/dist/dred.st: the global coordinates (origin: the rank's offset less its layers before
 * the owned points, as the steps'); the diagonal read makes both axes' reach 1. */
static void check_coords(Arena *a)
{
    StrBuf cu = {0}, h = {0};
    emit(a, "../tests/dist/dred.st", "dred", 1, &cu, &h);
    hb_has(cu.data, "    const int co_[3] = {dd->offset[0] - dd->ext_lo[0], dd->offset[1] - dd->ext_lo[1],\n");
    hb_has(cu.data, "dred_reduce_moment_box<<<dim3(16u, 16u, 1u), dim3(256u, 1u, 1u), 0, stream>>>(b->u[0], n[0], n[1], "
                    "co_[0], co_[1], scratch + 0, dd->ext_lo[0], dd->ext_lo[1], dd->n[0], dd->n[1]);");
    hb_has(cu.data, "(float)(i + c_o0)");
    hb_has(cu.data, "static const int dred_DIST_RED_REACH_[3] = {1, 1, 0};");
    hb_has(cu.data, "(dred_xfield_){(float *)b->u[0], 1};");
    sb_free(&cu);
    sb_free(&h);
}

/* Without reductions, no distributed reduction API. */
static void check_none(Arena *a)
{
    StrBuf cu = {0}, h = {0};
    emit(a, "heat.st", "heat", 1, &cu, &h);
    hb_has(h.data, "int heat_dist_run(");
    hb_lacks(h.data, "reduce");
    hb_lacks(h.data, "REDUCTIONS");
    hb_lacks(cu.data, "reduce");
    hb_lacks(cu.data, "ncclAllGather");
    sb_free(&cu);
    sb_free(&h);
}

int main(void)
{
    Arena *a = arena_new();
    check_wave(a);
    check_coords(a);
    check_none(a);
    arena_free(a);
    return 0;
}
