/* The emitted API of the reductions (docs/c-api.md, Reductions): NAME_reductions, one double
 * member per `reduce`, and NAME_reduce, which replays the Plan's reduce launches
 * (emit_reduce.c) on the fields as they are and waits for the values. Nothing is emitted for a
 * stencil without reductions. */
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
    "    @_reductions *out, cudaStream_t stream);\n\n";

static const char HOST_REDUCE_TOP[] =
    "\nextern \"C\" cudaError_t @_reduce(const @_fields *f, const @_params *p, int nx, int ny, int nz,\n"
    "    @_reductions *out, cudaStream_t stream)\n{\n"
    "    if (!f || !p || !out || !@_grid_ok_(nx, ny, nz))\n"
    "        return cudaErrorInvalidValue;\n"
    "    const int n[3] = {nx, ny, nz};\n"
    "    @_bufs_ bufs;\n    memset(&bufs, 0, sizeof bufs);\n    @_bufs_ *const b = &bufs;\n";

static const char HOST_REDUCE_ALLOC[] =
    "    double *scratch = NULL, values[${count}];\n"
    "    cudaError_t err = cudaMallocAsync((void **)&scratch, ${bytes} * sizeof(double), stream);\n"
    "    if (err != cudaSuccess)\n        return err;\n";

static const char HOST_REDUCE_END[] =
    "    const cudaError_t freed = cudaFreeAsync(scratch, stream);\n"
    "    if (err == cudaSuccess)\n        err = freed;\n"
    "    if (err == cudaSuccess)\n        err = cudaStreamSynchronize(stream);\n"
    "    if (err != cudaSuccess)\n        return err;\n";

void api_emit_reduce_header(const Api *api, StrBuf *h)
{
    const IrProgram *p = api->prog;
    if (!p->nreduces)
        return;
    api_put(api, h, "/* The stencil's reductions over the interior, one member each. */\ntypedef struct {\n", NULL);
    for (int i = 0; i < p->nreduces; i++)
        sb_printf(h, "    double %s; /* %s */\n", cg_member_name(api->arena, p->reduces[i].name),
                  ir_reduce_kind_name(p->reduces[i].kind));
    api_put(api, h, "} @_reductions;\n\n", NULL);
    api_put(api, h, HEADER_REDUCE, NULL);
}

/* bufs from *f: every buffer a reduction reads, checked for NULL. */
static void bind_read_buffers(const Api *api, StrBuf *o)
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

/* A reduce launch: its fixed grid (reduce_launch in emit_reduce.c), run while all went well. */
static void reduce_launch(const Api *api, const PlanLaunch *l, StrBuf *o)
{
    sb_printf(o, "    if (err == cudaSuccess) {\n        %s<<<dim3(%du, %du, %du), dim3(%du, %du, %du), 0, stream>>>(",
              l->kernel, 1 + l->extra[0], 1 + l->extra[1], 1 + l->extra[2], l->block[0], l->block[1], l->block[2]);
    for (int i = 0; i < l->nargs; i++) {
        if (i)
            sb_puts(o, ", ");
        api_emit_arg(api, &l->args[i], o);
    }
    sb_puts(o, ");\n        err = cudaGetLastError();\n    }\n");
}

void api_emit_reduce_source(const Api *api, StrBuf *cu)
{
    const IrProgram *p = api->prog;
    const Plan *plan = api->plan;
    if (!p->nreduces)
        return;
    const TplVar vars[] = {{"count", arena_printf(api->arena, "%d", p->nreduces)},
                           {"bytes", arena_printf(api->arena, "%d", PLAN_REDUCE_SLOT(p->nreduces))}, {NULL, NULL}};
    api_put(api, cu, HOST_REDUCE_TOP, vars);
    bind_read_buffers(api, cu);
    api_put(api, cu, "    (void)b;\n    (void)n;\n", NULL);
    api_put(api, cu, HOST_REDUCE_ALLOC, vars);
    for (int l = 0; l < plan->nreduce; l++)
        reduce_launch(api, &plan->reduce[l], cu);
    for (int i = 0; i < p->nreduces; i++)
        sb_printf(cu, "    if (err == cudaSuccess)\n        err = cudaMemcpyAsync(&values[%d], scratch + %d, sizeof(double), "
                  "cudaMemcpyDeviceToHost, stream);\n", i, PLAN_REDUCE_VALUE(i));
    api_put(api, cu, HOST_REDUCE_END, vars);
    for (int i = 0; i < p->nreduces; i++)
        sb_printf(cu, "    out->%s = values[%d];\n", cg_member_name(api->arena, p->reduces[i].name), i);
    sb_puts(cu, "    return cudaSuccess;\n}\n");
}
