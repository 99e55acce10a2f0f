/* The reductions' code (codegen/emit_reduce.c, emit_reduce_api.c) for examples/wave3d_energy.st:
 * two launches per reduction with fixed grids in every plan, whatever the kernel family; the
 * partial kernel's loops, tree and NaN-keeping fold; the point expression through kir_point.c
 * with the reads at offsets, an older level and a coef; NAME_reductions and NAME_reduce in the
 * files; nothing for a stencil without reductions (heat1d.st); and, where nvcc is, the emitted
 * .cu compiled with warnings as errors. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../driver/load_program.h"
#include "codegen.h"
#include "hand_ir.h"

static void check_plan(const IrProgram *p, const Plan *plan)
{
    assert(plan->nreduce == 2 * p->nreduces);
    const PlanLaunch *partial = &plan->reduce[0], *final = &plan->reduce[1];
    assert(strcmp(partial->kernel, "wave3d_energy_reduce_energy") == 0);
    assert(strcmp(final->kernel, "wave3d_energy_combine_sum") == 0);
    assert(strcmp(plan->reduce[3].kernel, "wave3d_energy_combine_max") == 0);
    /* fixed grids: 256 blocks of 256 threads, then one block */
    assert(partial->block[0] == 256 && (1 + partial->extra[0]) * (1 + partial->extra[1]) * (1 + partial->extra[2]) == 256);
    assert(final->extra[0] == 0 && final->extra[1] == 0 && final->extra[2] == 0);
    assert(partial->args[partial->nargs - 1].kind == ARG_SCRATCH && partial->args[partial->nargs - 1].index == 0);
    assert(plan->reduce[2].args[plan->reduce[2].nargs - 1].index == PLAN_REDUCE_SLOT(1));
    const KKernel *k = k_module_kernel(&plan->module, "wave3d_energy_reduce_energy");
    assert(k);
    assert(kir_count_stmts(&k->body, KS_FOR) == 3);     /* k, j, i */
    assert(kir_count_stmts(&k->body, KS_BARRIER) == 9); /* the tree of 256 */
    assert(kir_count_index(&k->body, "f_u_lm1") > 0 && kir_count_index(&k->body, "f_k_l0") > 0);
}

int main(void)
{
    Arena *a = arena_new();
    IrProgram *p = load_example("wave3d_energy.st", a);
    assert(p && p->nreduces == 3);
    check_plan(p, hb_plan(a, p, ""));
    check_plan(p, hb_plan(a, p, "tb=32x4x1,stream=z,sb=64"));
    check_plan(p, hb_plan(a, p, "tb=32x4x1,smem=on"));

    Plan *plan = hb_plan(a, p, "");
    hb_has(plan->source, "acc = x != x || x > acc ? x : acc;");
    hb_has(plan->source, "acc += x;");
    hb_has(plan->source, "u_lm1");
    StrBuf cu = {0}, h = {0};
    assert(cg_emit(plan, "wave3d_energy", &cu, &h) == 0);
    hb_has(h.data, "    double energy; /* sum */\n    double peak; /* max */\n    double low; /* min */\n} wave3d_energy_reductions;");
    hb_has(h.data, "cudaError_t wave3d_energy_reduce(const wave3d_energy_fields *f, const wave3d_energy_params *p, int nx, int ny, int nz,\n"
                   "    wave3d_energy_reductions *out, cudaStream_t stream);");
    hb_has(cu.data, "bufs.u[1] = f->u[1];");
    hb_has(cu.data, "bufs.k = f->k;");
    hb_has(cu.data, "wave3d_energy_reduce_energy<<<dim3(4u, 8u, 8u), dim3(256u, 1u, 1u), 0, stream>>>(");
    hb_has(cu.data, "err = cudaMemcpyAsync(&values[1], scratch + 513,");
    hb_has(cu.data, "out->peak = values[1];");

    /* without reductions, nothing of them */
    IrProgram *q = load_example("heat1d.st", a);
    Plan *qp = hb_plan(a, q, "");
    StrBuf qcu = {0}, qh = {0};
    assert(qp->nreduce == 0 && cg_emit(qp, "heat1d", &qcu, &qh) == 0);
    hb_lacks(qcu.data, "reduce");
    hb_lacks(qh.data, "reduce");

    /* a reduction that loads nothing (sum(1): the point count) leaves the index unused */
    IrNode one = {.op = N_CONST, .a = -1, .b = -1, .c = -1, .value = 1, .uses = 1};
    IrWrite value = {.field = -1, .node = 0};
    IrReduce count = {.name = "count", .kind = RED_SUM, .stage = {.nodes = &one, .nnodes = 1, .writes = &value, .nwrites = 1}};
    q->reduces = &count;
    q->nreduces = 1;
    StrBuf ccu = {0}, ch = {0};
    assert(cg_emit(hb_plan(a, q, ""), "heat1d", &ccu, &ch) == 0);
    hb_has(ccu.data, "(void)idx;");

    int status = 0;
    const char *nvcc = hb_find_nvcc();
    if (nvcc) {
        static const char *const names[] = {"wave3d_energy", "heat1d"};
        const StrBuf *const cus[] = {&cu, &ccu}, *const hs[] = {&h, &ch};
        status = hb_nvcc_compile(nvcc, names, cus, hs, 2);
    }
    sb_free(&ccu);
    sb_free(&ch);
    sb_free(&cu);
    sb_free(&h);
    sb_free(&qcu);
    sb_free(&qh);
    arena_free(a);
    return status != 0;
}
