/* Reductions folded by the step (codegen/emit_reduce_fused.c), no GPU needed: which reductions of
 * tests/programs/reduce_fused.st, reduce_stages.st and reduce_wide.st are fused, and why the
 * others are not (an offset, an earlier stage, too much shared memory); the fused step's kernel
 * (no return before the tree, the new value named once and stored, the level before read from
 * the step's level 0, the coordinates) and its launches, in the plain and the tile family (its fast and slow paths, the
 * partials' grid under vec) and the streaming family (register mode, the shared ring's fast path
 * and general loop, retiming; planes that leave no room for the trees); the combine kernels and
 * the launches after it; the coordinates in the separate pass; NAME_run_reduce in the files,
 * under temporal blocking its single step; and, where nvcc is, the emitted .cu compiled with
 * warnings as errors. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../driver/load_program.h"
#include "codegen.h"
#include "hand_ir.h"

static const char *const fused_names[] = {"relax_fused_change", "relax_fused_mass", "relax_fused_centre", "relax_fused_low"};

/* relax under the plain kernel: four fused, lap separate; the step and its launches after. */
static void check_relax(const IrProgram *p, const Plan *plan)
{
    assert(plan->nfused_reduces == 4);
    for (int r = 0; r < 4; r++)
        assert(plan->reduce_fused[r]);
    assert(!plan->reduce_fused[4]);
    hb_has(plan->fused_note, "lap: separate: it reads the new u 1 point away along x, which another thread computes.");
    /* the fused step: the step's launches, the last one the fused kernel with the scratch */
    assert(plan->nfused == plan->nstep);
    const PlanLaunch *l = &plan->fused[0];
    assert(strcmp(l->kernel, "relax_step_reduce") == 0 && l->rotate_after);
    assert(l->args[l->nargs - 1].kind == ARG_SCRATCH && l->args[l->nargs - 1].index == PLAN_REDUCE_SLOT(p->nreduces));
    assert(plan->fused_tile[0] == 32 && plan->fused_tile[1] == 8 && plan->fused_tile[2] == 1);
    const int n[3] = {67, 61, 1};
    assert(plan_fused_parts(plan, n) == 3 * 8 && plan_fused_scratch(plan, n) == 5 * 257 + 4 * 24);
    const KKernel *k = k_module_kernel(&plan->module, "relax_step_reduce");
    assert(k);
    assert(kir_count_stmts(&k->body, KS_RETURN) == 0);  /* every thread reaches the barriers */
    assert(kir_count_stmts(&k->body, KS_BARRIER) == 9); /* the tree of 256 */
    assert(kir_count_index(&k->body, "f_u_lp1") == 1);  /* the store */
    assert(kir_count_index(&k->body, "f_k_l0") >= 2);   /* the step's k and the reduction's k[1,0] */
    assert(kir_count_index(&k->body, "red3") > 0 && kir_count_index(&k->body, "red4") == 0);
    /* after it: the four combines, then lap's partial and combine */
    assert(plan->nafter == 6);
    for (int q = 0; q < 4; q++)
        assert(strcmp(plan->after[q].kernel, fused_names[q]) == 0);
    assert(strcmp(plan->after[4].kernel, "relax_reduce_lap") == 0 && strcmp(plan->after[5].kernel, "relax_combine_max") == 0);
    const KKernel *c = k_module_kernel(&plan->module, "relax_fused_mass");
    assert(c && kir_count_stmts(&c->body, KS_FOR) == 1 && kir_count_stmts(&c->body, KS_BARRIER) == 9);
}

static void check_relax_text(const Plan *plan)
{
    const char *src = plan->source;
    hb_has(src, "const double nv0 = ");
    hb_has(src, "f_u_lp1[idx] = nv0;");
    hb_has(src, "const double x = (double)fabs(nv0 - f_u_l0[idx]);"); /* u - u@-1 */
    hb_has(src, "acc0 = x != x || x > acc0 ? x : acc0;");
    hb_has(src, "acc1 += x;");
    hb_has(src, "(double)(i + c_o0)");                       /* x in the fused kernel */
    hb_has(src, "const unsigned t = threadIdx.x + 32u * threadIdx.y;");
    hb_has(src, "const long long part = ((long long)blockIdx.x + (long long)((n0 + 31) / 32) * (long long)blockIdx.y) * 4;");
    hb_has(src, "scratch[part + 3] = red3[0];");
    hb_has(src, "const int parts = (n0 + 31) / 32 * ((n1 + 7) / 8);");
    hb_has(src, "acc += scratch[(long long)c * 4 + 1286];"); /* the mass's partials: 5 * 257 + 1 */
    hb_has(src, "scratch[513] = red[0];");
    /* the separate pass takes the coordinates too */
    hb_has(src, "relax_reduce_centre(\n    const double *__restrict__ f_u_l0,\n    const int n0,\n    const int n1,\n"
                "    const int c_o0,\n    const int c_o1,\n");
}

static void check_files(const Plan *plan, StrBuf *cu, StrBuf *h)
{
    assert(cg_emit(plan, "relax", cu, h) == 0);
    hb_has(h->data, "cudaError_t relax_run_reduce(relax_fields *f, const relax_params *p, int nx, int ny, int nz, int steps,\n"
                    "    void *workspace, relax_reductions *out, cudaStream_t stream);");
    hb_has(h->data, " * Reductions:\n *   change: fused.\n *   mass: fused.\n *   centre: fused.\n *   low: fused.\n"
                    " *   lap: separate: it reads the new u 1 point away along x");
    hb_has(cu->data, "static cudaError_t relax_fused_(relax_bufs_ *b, const relax_params *p, const int n[3], int step0,\n"
                     "    cudaStream_t stream, double *scratch)");
    hb_has(cu->data, "relax_step_reduce<<<grid, dim3(32u, 8u, 1u), 0, stream>>>(");
    hb_has(cu->data, "    for (int s = 0; err == cudaSuccess && s < steps - 1; s++)\n");
    hb_has(cu->data, "err = cudaMallocAsync((void **)&scratch, (size_t)(1285 + (long long)((n[0] + 31) / 32) * "
                     "(long long)((n[1] + 7) / 8) * 4) * sizeof(double), stream);");
    hb_has(cu->data, "err = relax_fused_(&b, p, n, steps - 1, stream, scratch);");
    hb_has(cu->data, "err = relax_after_(&b, p, n, scratch, stream);");
    hb_has(cu->data, "relax_fused_low<<<dim3(1u, 1u, 1u), dim3(256u, 1u, 1u), 0, stream>>>(scratch + 0, n[0], n[1]);");
    hb_has(cu->data, "    const int co_[3] = {0, 0, 0};\n    const int *cn_ = n;\n    if (err == cudaSuccess) {\n"
                     "        relax_reduce_change<<<"); /* NAME_reduce_all_'s x, y, nx */
    hb_has(cu->data, "out->lap = values[4];");
}

/* Two stages: u (stage 0) separate, v (the last) fused; the first stage's kernel is the step's. */
static void check_stages(const IrProgram *p, const Plan *plan)
{
    assert(plan->nfused_reduces == 1 && !plan->reduce_fused[0] && plan->reduce_fused[1]);
    hb_has(plan->fused_note, "first: separate: it reads u, which stage 0 writes, not the last.");
    assert(strcmp(plan->fused[0].kernel, "stages_stage0") == 0);
    int at = -1;
    for (int i = 0; i < plan->nfused; i++)
        if (strcmp(plan->fused[i].kernel, "stages_stage1_reduce") == 0)
            at = i;
    assert(at > 0);
    assert(hb_count(plan->source, "\nstages_stage0(\n") == 1);
    hb_has(plan->source, "const unsigned t = threadIdx.x + 32u * (threadIdx.y + 4u * threadIdx.z);");
    hb_has(plan->source, "(float)(k + c_o2)"); /* the step's z, in the fused kernel too */
    assert(k_module_kernel(&plan->module, "stages_fused_last"));
    assert(plan->nafter == 3 && strcmp(plan->after[0].kernel, "stages_reduce_first") == 0);
    (void)p;
}

/* p renamed (its kernels and C symbols) under cfg, its files emitted into cu and h. */
static Plan *renamed_plan(Arena *a, const IrProgram *p, const char *name, const char *cfg, StrBuf *cu, StrBuf *h)
{
    IrProgram *copy = arena_alloc(a, sizeof *copy);
    *copy = *p;
    copy->c_prefix = name;
    Plan *plan = hb_plan(a, copy, cfg);
    assert(cg_emit(plan, name, cu, h) == 0);
    return plan;
}

/* The streaming fused step's kernel: no return, the tree, and n stores of array at the point's
 * index oidx (and none through plane pointers). */
static const KKernel *stream_fused_kernel(const Plan *plan, const char *name, const char *array, int stores)
{
    const KKernel *k = k_module_kernel(&plan->module, name);
    assert(k);
    assert(kir_count_stmts(&k->body, KS_RETURN) == 0);
    assert(hb_count_stores(&k->body, array, "oidx") == stores && hb_count_stores(&k->body, array, NULL) == stores);
    assert(kir_count_index(&k->body, "red0") > 0);
    return k;
}

/* stages streaming along z in register mode: the last stage fused, its tiles sb=16 planes deep. */
static void check_stream_stages(const Plan *plan)
{
    assert(plan->nfused_reduces == 1 && !plan->reduce_fused[0] && plan->reduce_fused[1]);
    hb_has(plan->fused_note, "last: fused.");
    assert(plan->fused_tile[0] == 32 && plan->fused_tile[1] == 4 && plan->fused_tile[2] == 16);
    stream_fused_kernel(plan, "sstream_stage1_reduce", "f_v_lp1", 1);
    hb_has(plan->source, "const long long part = ((long long)blockIdx.x + (long long)((n0 + 31) / 32) * ((long long)blockIdx.y + "
                         "(long long)((n1 + 3) / 4) * (long long)blockIdx.z)) * 1;");
    hb_has(plan->source, "const int parts = (n0 + 31) / 32 * ((n1 + 3) / 4) * ((n2 + 15) / 16);");
    assert(plan->nafter == 3 && strcmp(plan->after[2].kernel, "sstream_fused_last") == 0);
}

/* relax streaming along y through the shared ring: two fast planes and the general loop's fold. */
static void check_stream_ring(const Plan *plan)
{
    assert(plan->nfused_reduces == 4 && !plan->reduce_fused[4]);
    const KKernel *k = stream_fused_kernel(plan, "rring_step_reduce", "f_u_lp1", 3);
    const KStmt *fast = NULL;
    for (int n = 0; (fast = kir_find_stmt(&k->body, KS_IF, n)); n++)
        if (fast->cond->kind == KE_VAR && strcmp(fast->cond->name, "full") == 0)
            break;
    assert(fast && fast->els.n > 0); /* the general loop is the fast path's else */
    assert(plan->fused_tile[0] == 32 && plan->fused_tile[1] == 16);
    hb_has(plan->source, "const long long oidx = (long long)(z0 + jj + 1) * s1 + own_g;"); /* fast: the index */
    hb_has(plan->source, "const double x = (double)fabs(nv0 - f_u_l0[oidx]);");
    hb_has(plan->source, "const double x = (double)((double)(i + c_o0) * nv0 + (double)(z0 + jj + c_o1));");
    hb_has(plan->source, "const double x = (double)((double)(i + c_o0) * nv0 + (double)(t - 1 + c_o1));");
    assert(hb_count(plan->source, "acc1 += x;") == 3);
    hb_has(plan->source, "const int parts = (n0 + 31) / 32 * ((n1 + 15) / 16);");
}

/* jacobi retimed: total and lowest folded where the sum a0 is stored. */
static void check_stream_retime(const Plan *plan)
{
    assert(plan->nfused_reduces == 2 && !plan->reduce_fused[0]);
    stream_fused_kernel(plan, "jretime_step_reduce", "f_u_lp1", 1);
    hb_has(plan->source, "const double nv0 = a0;\n");
    hb_has(plan->source, "f_u_lp1[oidx] = nv0;\n");
}

int main(void)
{
    Arena *a = arena_new();
    IrProgram *p = load_example("../tests/programs/reduce_fused.st", a);
    assert(p && p->nreduces == 5);
    Plan *plan = hb_plan(a, p, "");
    check_relax(p, plan);
    check_relax_text(plan);
    StrBuf cu = {0}, h = {0};
    check_files(plan, &cu, &h);

    /* the tile kernels fold at each of a thread's points, the fast path's and the slow path's */
    IrProgram renamed = *p; /* compiled with relax.cu below: other names */
    renamed.c_prefix = "rtile";
    Plan *tile = hb_plan(a, &renamed, "tb=32x8x1,bm=2x1x1,uf=2x1x1,smem=on");
    assert(tile->nfused_reduces == 4 && tile->fused_tile[0] == 64 && tile->fused_extra[0] == 0);
    const KKernel *tk = k_module_kernel(&tile->module, "rtile_step_reduce");
    assert(tk && kir_count_stmts(&tk->body, KS_RETURN) == 0);
    assert(hb_count(tile->source, "acc2 += x;") == 3); /* two fast points, one slow */
    hb_has(tile->source, "const long long part = ((long long)blockIdx.x + (long long)((n0 + 63) / 64) * (long long)blockIdx.y) * 4;");
    hb_has(tile->source, "const int parts = (n0 + 63) / 64 * ((n1 + 7) / 8);");
    StrBuf tcu = {0}, th = {0};
    assert(cg_emit(tile, "rtile", &tcu, &th) == 0);
    hb_has(tcu.data, "rtile_step_reduce<<<grid, dim3(32u, 8u, 1u), 5280, stream>>>(");
    hb_has(tcu.data, "(size_t)(1285 + (long long)((n[0] + 63) / 64) * (long long)((n[1] + 7) / 8) * 4)");
    /* a tile whose staging leaves no room for the trees fuses nothing */
    Plan *big = hb_plan(a, p, "tb=32x32x1,bm=1x8x1,uf=1x8x1,smem=on");
    assert(big->nfused_reduces == 0 && big->nfused == 0);
    hb_has(big->fused_note, "change: separate: the tile's 70176 bytes of shared memory leave no room for the trees of 4 "
                            "fused reductions (32768 bytes; at most 98304 in all).");
    /* a tile's 17952 bytes and the trees' 32768 exceed the 48 KB a block has without opting in:
     * the fused kernel opts in, the step's does not */
    StrBuf ocu = {0}, oh = {0};
    Plan *optin = renamed_plan(a, p, "optin", "tb=32x32x1,bm=1x2x1,smem=on", &ocu, &oh);
    const PlanLaunch *ol = &optin->fused[optin->nfused - 1];
    assert(ol->smem_bytes == 17952 && ol->smem_static == 32768 && plan_launch_opts_in(ol));
    hb_has(ocu.data, "    err = cudaFuncSetAttribute(optin_step_reduce, cudaFuncAttributeMaxDynamicSharedMemorySize, 17952);\n");
    hb_lacks(ocu.data, "cudaFuncSetAttribute(optin_step,");
    /* vec: the tiles start a point before the grid, so the partials' grid is one point wider */
    Plan *vec = hb_plan(a, p, "tb=32x8x1,bm=2x1x1,uf=2x1x1,vec=2");
    assert(vec->nfused_reduces == 4 && vec->fused_extra[0] == 1);
    hb_has(vec->source, "(long long)((n0 + 64) / 64) * (long long)blockIdx.y) * 4;");
    hb_has(vec->source, "const int parts = (n0 + 64) / 64 * ((n1 + 7) / 8);");
    const int n[3] = {66, 61, 1};
    assert(plan_fused_parts(vec, n) == 2 * 8);

    IrProgram *q = load_example("../tests/programs/reduce_stages.st", a);
    assert(q && q->nstages == 2);
    Plan *qp = hb_plan(a, q, "");
    check_stages(q, qp);
    /* a tile step of two stages: the first stage's launch is the step's, tiles and all; the
     * second's the tile's with the fold */
    Plan *qt = hb_plan(a, q, "tb=32x4x2,smem=on,bm=1x1x2");
    assert(qt->nfused_reduces == 1 && qt->nfused == qt->nstep);
    for (int i = 0; i < qt->nstep; i++) {
        const PlanLaunch *f = &qt->fused[i], *l = &qt->step[i];
        int last = strcmp(l->kernel, "stages_stage1") == 0;
        assert(strcmp(f->kernel, last ? "stages_stage1_reduce" : l->kernel) == 0);
        assert(memcmp(f->block, l->block, sizeof f->block) == 0 && memcmp(f->tile, l->tile, sizeof f->tile) == 0);
        assert(memcmp(f->extra, l->extra, sizeof f->extra) == 0 && f->smem_bytes == l->smem_bytes);
        assert(last ? f->nargs == l->nargs + 1 : f->args == l->args);
    }
    assert(qt->fused_tile[2] == 4);

    /* register mode along z: the last stage's kernel folds at each point of its column */
    StrBuf scu = {0}, sh = {0}, rcu = {0}, rh = {0}, jrcu = {0}, jrh = {0};
    check_stream_stages(renamed_plan(a, q, "sstream", "tb=32x4x1,stream=z,sb=16", &scu, &sh));
    hb_has(scu.data, "    for (int s = 0; err == cudaSuccess && s < steps - 1; s++)\n");
    hb_has(scu.data, "sstream_stage1_reduce<<<grid, dim3(32u, 4u, 1u), 0, stream>>>(");
    /* the ring kernel folds on its fast path (at the point's index, no return) and its general
     * loop; retiming folds the sum it stores */
    check_stream_ring(renamed_plan(a, p, "rring", "tb=32x1x1,stream=y,sb=16,smem=on", &rcu, &rh));
    IrProgram *jr = load_example("jacobi_residual.st", a);
    check_stream_retime(renamed_plan(a, jr, "jretime", "tb=32x1x1,stream=y,sb=16,retime=on", &jrcu, &jrh));
    /* planes that leave no room for the trees: every reduction separate, and the header says why */
    Plan *wide = hb_plan(a, load_example("../tests/programs/reduce_wide.st", a), "tb=32x16x1,stream=z,sb=16,smem=on");
    assert(wide->nfused_reduces == 0 && wide->nfused == 0 && wide->step[0].smem_bytes == 221184);
    hb_has(wide->fused_note, "total: separate: the streaming kernel's 221184 bytes of shared memory leave no room for "
                             "the trees of 4 fused reductions (16384 bytes; at most 232448 in all).");
    StrBuf qcu = {0}, qh = {0};
    assert(cg_emit(qp, "stages", &qcu, &qh) == 0);

    /* temporal blocking: the last step is the single step's plain kernel, fused */
    IrProgram *j = load_example("jacobi_residual.st", a);
    Plan *jp = hb_plan(a, j, "tblock=2");
    assert(jp->step_count == 2 && jp->nfused_reduces == 2 && !jp->reduce_fused[0]);
    assert(strcmp(jp->fused[0].kernel, "jacobi_step_reduce") == 0 && jp->fused[0].steps == 1);
    assert(jp->fused_tile[0] == jp->config.v[P_TBX] && jp->fused_tile[1] == jp->config.v[P_TBY]);
    StrBuf jcu = {0}, jh = {0};
    assert(cg_emit(jp, "jacobi", &jcu, &jh) == 0);
    hb_has(jcu.data, "    int left = steps - 1;\n");
    hb_has(jcu.data, "        err = jacobi_single_(&b, p, n, steps - 1 - left, stream);\n");
    /* streaming temporal blocking: its single step, the fused one, is the plain kernel too */
    Plan *js = hb_plan(a, j, "tb=64x1x1,stream=y,sb=16,tblock=2");
    assert(js->step_count == 2 && js->nfused_reduces == 2 && strcmp(js->fused[0].kernel, "jacobi_step_reduce") == 0);
    assert(js->fused[0].steps == 1 && js->fused[0].smem_bytes == 0 && js->fused_tile[0] == 64 && js->fused_tile[1] == 1);

    int status = 0;
    const char *nvcc = hb_find_nvcc();
    if (nvcc) {
        static const char *const names[] = {"relax", "stages", "jacobi", "rtile", "sstream", "rring", "jretime"};
        const StrBuf *const cus[] = {&cu, &qcu, &jcu, &tcu, &scu, &rcu, &jrcu};
        const StrBuf *const hs[] = {&h, &qh, &jh, &th, &sh, &rh, &jrh};
        status = hb_nvcc_compile(nvcc, names, cus, hs, 7);
    }
    StrBuf *const bufs[] = {&scu, &sh, &rcu, &rh, &jrcu, &jrh, &ocu, &oh};
    for (int i = 0; i < 8; i++)
        sb_free(bufs[i]);
    sb_free(&tcu);
    sb_free(&th);
    sb_free(&cu);
    sb_free(&h);
    sb_free(&qcu);
    sb_free(&qh);
    sb_free(&jcu);
    sb_free(&jh);
    arena_free(a);
    return status != 0;
}
