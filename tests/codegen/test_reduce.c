/* The reductions' code (codegen/emit_reduce.c, emit_reduce_api.c): two launches per reduction
 * with fixed grids in every plan, whatever the kernel family; the partial kernel's loops, tree
 * and NaN-keeping fold; the point expression through kir_point.c with the reads at offsets and
 * older levels; NAME_reductions and NAME_reduce in the files; nothing for a stencil without
 * reductions; and, where nvcc is, the emitted .cu compiled with warnings as errors. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen.h"
#include "hand_ir.h"

static const char text[] =
    "stencil energy3d {\n"
    "  grid 3d;\n"
    "  param c2 = 0.1;\n"
    "  state u levels 3 boundary periodic;\n"
    "  coef k;\n"
    "  u = 2 * u - u@-1 + c2 * k * (u[-1,0,0] + u[1,0,0] + u[0,-1,0] + u[0,1,0] + u[0,0,-1] + u[0,0,1] - 6 * u);\n"
    "  reduce energy = sum(0.5 * (u - u@-1) * (u - u@-1) + c2 * k * (u[1,0,0] - u) * (u[1,0,0] - u));\n"
    "  reduce peak = max(abs(u));\n"
    "}\n";

static IrProgram *compile(Arena *a, const char *src_text)
{
    static Source src;
    src.name = "energy3d.st";
    src.text = src_text;
    src.size = (long)strlen(src_text);
    Diag dg;
    diag_init(&dg, &src, stderr);
    AstFile file;
    memset(&file, 0, sizeof file);
    assert(parse_source(&src, a, &dg, &file) == 0 && file.nstencils == 1);
    IrProgram *p = ir_lower(&file.stencils[0], a, &dg);
    assert(p);
    return p;
}

static void check_plan(const IrProgram *p, const Plan *plan)
{
    assert(plan->nreduce == 2 * p->nreduces);
    const PlanLaunch *partial = &plan->reduce[0], *final = &plan->reduce[1];
    assert(strcmp(partial->kernel, "energy3d_reduce_energy") == 0);
    assert(strcmp(final->kernel, "energy3d_combine_sum") == 0);
    assert(strcmp(plan->reduce[3].kernel, "energy3d_combine_max") == 0);
    /* fixed grids: 256 blocks of 256 threads, then one block */
    assert(partial->block[0] == 256 && (1 + partial->extra[0]) * (1 + partial->extra[1]) * (1 + partial->extra[2]) == 256);
    assert(final->extra[0] == 0 && final->extra[1] == 0 && final->extra[2] == 0);
    assert(partial->args[partial->nargs - 1].kind == ARG_SCRATCH && partial->args[partial->nargs - 1].index == 0);
    assert(plan->reduce[2].args[plan->reduce[2].nargs - 1].index == PLAN_REDUCE_SLOT(1));
    const KKernel *k = k_module_kernel(&plan->module, "energy3d_reduce_energy");
    assert(k);
    assert(kir_count_stmts(&k->body, KS_FOR) == 3);     /* k, j, i */
    assert(kir_count_stmts(&k->body, KS_BARRIER) == 9); /* the tree of 256 */
    assert(kir_count_index(&k->body, "f_u_lm1") > 0 && kir_count_index(&k->body, "f_k_l0") > 0);
}

int main(void)
{
    Arena *a = arena_new();
    IrProgram *p = compile(a, text);
    check_plan(p, hb_plan(a, p, ""));
    check_plan(p, hb_plan(a, p, "tb=32x4x1,stream=z,sb=64"));
    check_plan(p, hb_plan(a, p, "tb=32x4x1,smem=on"));

    Plan *plan = hb_plan(a, p, "");
    hb_has(plan->source, "acc = x != x || x > acc ? x : acc;");
    hb_has(plan->source, "acc += x;");
    hb_has(plan->source, "u_lm1");
    StrBuf cu = {0}, h = {0};
    assert(cg_emit(plan, "energy3d", &cu, &h) == 0);
    hb_has(h.data, "    double energy; /* sum */\n    double peak; /* max */\n} energy3d_reductions;");
    hb_has(h.data, "cudaError_t energy3d_reduce(const energy3d_fields *f, const energy3d_params *p, int nx, int ny, int nz,\n"
                   "    energy3d_reductions *out, cudaStream_t stream);");
    hb_has(cu.data, "bufs.u[1] = f->u[1];");
    hb_has(cu.data, "bufs.k = f->k;");
    hb_has(cu.data, "energy3d_reduce_energy<<<dim3(4u, 8u, 8u), dim3(256u, 1u, 1u), 0, stream>>>(");
    hb_has(cu.data, "err = cudaMemcpyAsync(&values[1], scratch + 513,");
    hb_has(cu.data, "out->peak = values[1];");

    /* without reductions, nothing of them */
    static const char plain_text[] = "stencil plain { grid 1d; state u; u = 0.5 * (u[-1] + u[1]); }\n";
    IrProgram *q = compile(a, plain_text);
    Plan *qp = hb_plan(a, q, "");
    StrBuf qcu = {0}, qh = {0};
    assert(qp->nreduce == 0 && cg_emit(qp, "plain", &qcu, &qh) == 0);
    hb_lacks(qcu.data, "reduce");
    hb_lacks(qh.data, "reduce");

    const char *nvcc = hb_find_nvcc();
    int status = 0;
    if (nvcc) {
        char dir[] = "/tmp/stc_reduce_XXXXXX", cmd[1024];
        assert(mkdtemp(dir));
        snprintf(cmd, sizeof cmd, "%s/energy3d.cu", dir);
        FILE *f = fopen(cmd, "w");
        fputs(cu.data, f);
        fclose(f);
        snprintf(cmd, sizeof cmd, "%s/energy3d.h", dir);
        f = fopen(cmd, "w");
        fputs(h.data, f);
        fclose(f);
        snprintf(cmd, sizeof cmd, "%s -c -arch=sm_80 -Werror all-warnings -o %s/energy3d.o %s/energy3d.cu", nvcc, dir, dir);
        status = system(cmd);
        if (status != 0)
            fprintf(stderr, "nvcc failed: %s\n", cmd);
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        (void)system(cmd);
    }
    sb_free(&cu);
    sb_free(&h);
    sb_free(&qcu);
    sb_free(&qh);
    arena_free(a);
    return status != 0;
}
