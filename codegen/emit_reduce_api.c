/* The emitted API of the reductions (docs/c-api.md, Reductions): NAME_reductions, one double
 * member per `reduce`; NAME_reduce, which replays the Plan's reduce launches (emit_reduce.c) on
 * the fields as they are and waits for the values; NAME_run_reduce, which runs steps, the last
 * one the fused step (emit_reduce_fused.c) where reductions fuse, then the launches after it.
 * Nothing is emitted for a stencil without reductions. */
#include "emit_api.h"

#include <string.h>

static const char HEADER_REDUCE[] =
    "/* Computes the reductions on the fields as they are now (after @_run: the values after its\n"
    " * last step) and waits for them. Sums are accumulated in double, min and max are exact; a\n"
    " * NaN anywhere gives NaN. The order of the sums is fixed: the same fields give the same\n"
    " * values on every GPU and every call. Returns cudaSuccess with *out filled,\n"
    " * cudaErrorInvalidValue for bad arguments (as @_run), or the first allocation, launch\n"
    " * or copy error (*out is then unchanged). */\n"
    "cudaError_t @_reduce(const @_fields *f, const @_params *p, int nx, int ny, int nz,\n"
    "    @_reductions *out, cudaStream_t stream);\n\n"
    "/* Runs `steps` steps (at least 1) as @_run does, then fills *out with the reductions\n"
    " * after the last one, as @_reduce would, and waits for them. The reductions marked fused\n"
    " * below are folded by the last step's kernel over the points it writes: they cost no\n"
    " * pass over the fields of their own; the others run after it. A fused sum adds in another\n"
    " * order than @_reduce (both in double, the order fixed for a grid size). Returns as\n"
    " * @_run; cudaErrorInvalidValue also for out NULL or steps < 1.\n"
    " * Reductions:${note} */\n"
    "cudaError_t @_run_reduce(@_fields *f, const @_params *p, int nx, int ny, int nz, int steps,\n"
    "    void *workspace, @_reductions *out, cudaStream_t stream);\n\n";

static const char HOST_REDUCE_TOP[] =
    "\nextern \"C\" cudaError_t @_reduce(const @_fields *f, const @_params *p, int nx, int ny, int nz,\n"
    "    @_reductions *out, cudaStream_t stream)\n{\n"
    "    if (!f || !p || !out || !@_grid_ok_(nx, ny, nz))\n"
    "        return cudaErrorInvalidValue;\n"
    "    const int n[3] = {nx, ny, nz};\n"
    "    @_bufs_ bufs;\n    memset(&bufs, 0, sizeof bufs);\n";

static const char HOST_REDUCE_ALLOC[] =
    "    double *scratch = NULL, values[${count}];\n"
    "    cudaError_t err = cudaMallocAsync((void **)&scratch, ${bytes} * sizeof(double), stream);\n"
    "    if (err != cudaSuccess)\n        return err;\n";

static const char HOST_REDUCE_END[] =
    "    if (scratch) {\n        const cudaError_t freed = cudaFreeAsync(scratch, stream);\n"
    "        if (err == cudaSuccess)\n            err = freed;\n    }\n"
    "    if (err == cudaSuccess)\n        err = cudaStreamSynchronize(stream);\n"
    "    if (err != cudaSuccess)\n        return err;\n";

static const char HOST_RUN_REDUCE[] =
    "\nextern \"C\" cudaError_t @_run_reduce(@_fields *f, const @_params *p, int nx, int ny, int nz,\n"
    "    int steps, void *workspace, @_reductions *out, cudaStream_t stream)\n{\n"
    "    if (!f || !p || !out || steps < 1 || !@_grid_ok_(nx, ny, nz))\n"
    "        return cudaErrorInvalidValue;\n"
    "    const int n[3] = {nx, ${ny}, ${nz}};\n${void_ny}${void_nz}";

static const char HOST_RUN_REDUCE_SCRATCH[] =
    "    double *scratch = NULL, values[${count}];\n"
    "    if (err == cudaSuccess)\n"
    "        err = cudaMallocAsync((void **)&scratch, (size_t)(${bytes}) * sizeof(double), stream);\n";

void api_emit_reduce_header(const Api *api, StrBuf *h)
{
    const IrProgram *p = api->prog;
    if (!p->nreduces)
        return;
    const TplVar vars[] = {{"note", api->plan->fused_note ? api->plan->fused_note : " none fused."}, {NULL, NULL}};
    api_put(api, h, "/* The stencil's reductions over the interior, one member each. */\ntypedef struct {\n", NULL);
    for (int i = 0; i < p->nreduces; i++)
        sb_printf(h, "    double %s; /* %s */\n", cg_member_name(api->arena, p->reduces[i].name),
                  ir_reduce_kind_name(p->reduces[i].kind));
    api_put(api, h, "} @_reductions;\n\n", NULL);
    api_put(api, h, HEADER_REDUCE, vars);
}

void api_emit_reduce_bind(const Api *api, StrBuf *o)
{
    const Plan *plan = api->plan;
    StrBuf binds = {0};
    for (int l = 0; l < plan->nreduce; l++)
        for (int i = 0; i < plan->reduce[l].nargs; i++) {
            const PlanArg *a = &plan->reduce[l].args[i];
            if (a->kind != ARG_BUF)
                continue;
            StrBuf arg = {0};
            api_emit_arg(api, a, &arg);
            const char *member = arg.data + strlen("b->");
            if (!binds.data || !strstr(binds.data, arena_printf(api->arena, "bufs.%s =", member)))
                sb_printf(&binds, "    if (!f->%s)\n        return cudaErrorInvalidValue;\n    bufs.%s = f->%s;\n",
                          member, member, member);
            sb_free(&arg);
        }
    if (binds.data)
        sb_puts(o, binds.data);
    sb_free(&binds);
}

/* A reduce launch: its fixed grid (reduce_launch in emit_reduce.c), run while all went well.
 * box: the partial kernel's boxed form (cg_build_reduce_boxes), over the rank's owned points
 * of its local buffers; NULL: the launch as it is. */
static void reduce_launch(const Api *api, const PlanLaunch *l, const char *box, StrBuf *o)
{
    sb_printf(o, "    if (err == cudaSuccess) {\n        %s<<<dim3(%du, %du, %du), dim3(%du, %du, %du), 0, stream>>>(",
              box ? box : l->kernel, 1 + l->extra[0], 1 + l->extra[1], 1 + l->extra[2], l->block[0], l->block[1],
              l->block[2]);
    for (int i = 0; i < l->nargs; i++) {
        if (i)
            sb_puts(o, ", ");
        api_emit_arg(api, &l->args[i], o);
    }
    for (int d = 0; box && d < api->prog->dims; d++)
        sb_printf(o, ", dd->ext_lo[%d]", d);
    for (int d = 0; box && d < api->prog->dims; d++)
        sb_printf(o, ", dd->n[%d]", d);
    sb_puts(o, ");\n        err = cudaGetLastError();\n    }\n");
}

void api_emit_reduce_group(const Api *api, const char *name, const PlanLaunch *ls, int nl, int dist, StrBuf *cu)
{
    const char *dd = dist ? arena_printf(api->arena, ", const %s_dist *dd", api->pfx) : "";
    const TplVar vars[] = {{"name", name}, {"dd", dd}, {NULL, NULL}};
    api_put(api, cu, "static cudaError_t @_${name}_(@_bufs_ *b, const @_params *p, const int n[3], double *scratch,\n"
            "    cudaStream_t stream${dd})\n{\n    cudaError_t err = cudaSuccess;\n    (void)b;\n    (void)p;\n"
            "    (void)n;\n", vars);
    api_emit_coords(ls, nl, dist, cu); /* x, y, z: the interior index plus the origin (one GPU: 0) */
    for (int l = 0; l < nl; l++) { /* dist: plan->reduce, each reduction's partial, then its combine */
        const char *box = NULL;
        if (dist && l % 2 == 0)
            box = cg_reduce_box_name(api->arena, api->pfx, &api->prog->reduces[l / 2]);
        reduce_launch(api, &ls[l], box, cu);
    }
    sb_puts(cu, "    return err;\n}\n\n");
}

/* The values copied from the scratch, the scratch freed, the wait, then *out; vars: count. */
static void reduce_values(const Api *api, const TplVar *vars, StrBuf *cu)
{
    const IrProgram *p = api->prog;
    for (int i = 0; i < p->nreduces; i++)
        sb_printf(cu, "    if (err == cudaSuccess)\n        err = cudaMemcpyAsync(&values[%d], scratch + %d, sizeof(double), "
                  "cudaMemcpyDeviceToHost, stream);\n", i, PLAN_REDUCE_VALUE(i));
    api_put(api, cu, HOST_REDUCE_END, vars);
    for (int i = 0; i < p->nreduces; i++)
        sb_printf(cu, "    out->%s = values[%d];\n", cg_member_name(api->arena, p->reduces[i].name), i);
    sb_puts(cu, "    return cudaSuccess;\n}\n\n");
}

/* NAME_run_reduce: the steps before the last, the fused step, the launches after it (where
 * nothing is fused: every step, then all the reduce launches). */
static void emit_run_reduce(const Api *api, StrBuf *cu)
{
    const IrProgram *p = api->prog;
    const Plan *plan = api->plan;
    int nf = plan->nfused_reduces;
    StrBuf parts = {0};
    sb_printf(&parts, "%d", PLAN_REDUCE_SLOT(p->nreduces));
    for (int d = 0; nf && d < p->dims; d++)
        sb_printf(&parts, "%s(long long)((n[%d] + %d) / %d)", d ? " * " : " + ", d,
                  plan->fused_extra[d] + plan->fused_tile[d] - 1, plan->fused_tile[d]);
    if (nf)
        sb_printf(&parts, " * %d", nf);
    const TplVar vars[] = {{"count", arena_printf(api->arena, "%d", p->nreduces)},
                           {"bytes", arena_strdup(api->arena, parts.data)},
                           {"ny", p->dims >= 2 ? "ny" : "1"}, {"nz", p->dims >= 3 ? "nz" : "1"},
                           {"void_ny", p->dims < 2 ? "    (void)ny;\n" : ""},
                           {"void_nz", p->dims < 3 ? "    (void)nz;\n" : ""}, {NULL, NULL}};
    sb_free(&parts);
    if (nf) {
        api_emit_group(api, "fused", plan->fused, plan->nfused, 0, cu);
        api_emit_reduce_group(api, "after", plan->after, plan->nafter, 0, cu);
    }
    api_put(api, cu, HOST_RUN_REDUCE, vars);
    api_emit_bind(api, cu);
    api_emit_steps(api, nf ? "steps - 1" : "steps", cu);
    api_put(api, cu, HOST_RUN_REDUCE_SCRATCH, vars);
    if (nf)
        api_put(api, cu, "    if (err == cudaSuccess)\n        err = @_fused_(&b, p, n, steps - 1, stream, scratch);\n", NULL);
    api_emit_unbind(api, cu);
    api_put(api, cu, nf ? "    if (err == cudaSuccess)\n        err = @_after_(&b, p, n, scratch, stream);\n"
                        : "    if (err == cudaSuccess)\n        err = @_reduce_all_(&b, p, n, scratch, stream);\n", NULL);
    reduce_values(api, vars, cu);
}

void api_emit_reduce_source(const Api *api, StrBuf *cu)
{
    const IrProgram *p = api->prog;
    const Plan *plan = api->plan;
    if (!p->nreduces)
        return;
    const TplVar vars[] = {{"count", arena_printf(api->arena, "%d", p->nreduces)},
                           {"bytes", arena_printf(api->arena, "%d", PLAN_REDUCE_SLOT(p->nreduces))}, {NULL, NULL}};
    api_emit_reduce_group(api, "reduce_all", plan->reduce, plan->nreduce, 0, cu);
    api_put(api, cu, HOST_REDUCE_TOP, vars);
    api_emit_reduce_bind(api, cu);
    api_put(api, cu, HOST_REDUCE_ALLOC, vars);
    api_put(api, cu, "    err = @_reduce_all_(&bufs, p, n, scratch, stream);\n", NULL);
    reduce_values(api, vars, cu);
    emit_run_reduce(api, cu);
}
