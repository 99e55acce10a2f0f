/* The reductions of a distributed run (docs/distributed.md, Reductions): NAME_dist_reduce and
 * NAME_dist_run_reduce. Each rank refreshes the halo layers the reductions read (an exchange
 * of their reach, with the exchange code of emit_dist.c), runs the one-GPU partial kernels in
 * their boxed form (emit_reduce.c) over its owned points with global coordinates, and the one-GPU
 * combine kernels; one NCCL group all-gathers every rank's value of every reduction, and each
 * rank combines them on the host in rank order, so that every rank gets the same bits. Nothing
 * is emitted for a stencil without reductions. */
#include "emit_api.h"

static const char HEADER[] =
    "/* The reductions over the global interior, on every rank (docs/distributed.md, Reductions):\n"
    " * each rank reduces its owned points (x, y, z global), after an exchange of the halo layers\n"
    " * the reductions read; the ranks' values are combined in rank order (a sum in double, min\n"
    " * and max exact, a NaN anywhere NaN), so every rank gets the same values, and the same\n"
    " * fields on the same process grid give the same values on every call. Collective;\n"
    " * synchronizes the stream. Returns ^_DIST_OK with *out filled, or the status every rank\n"
    " * agrees on (*out unchanged). */\n"
    "int @_dist_reduce(@_dist *d, const @_fields *f, const @_params *p, @_reductions *out,\n"
    "    cudaStream_t stream);\n"
    "/* Runs `steps` steps as @_dist_run does, then fills *out as @_dist_reduce would.\n"
    " * Collective; returns as @_dist_run, and ^_DIST_INVALID (before any step) for out NULL. */\n"
    "int @_dist_run_reduce(@_dist *d, @_fields *f, const @_params *p, int steps, void *workspace,\n"
    "    @_reductions *out, cudaStream_t stream);\n\n";

/* NAME_REDUCTIONS(X): X(member, kind) per reduction, in declaration order. */
static void reductions_macro(const Api *api, StrBuf *h)
{
    const IrProgram *p = api->prog;
    sb_printf(h, "/* The reductions, for code written once for any program: X(member, kind). */\n"
              "#define %s_REDUCTIONS(X)", api->upper);
    for (int i = 0; i < p->nreduces; i++)
        sb_printf(h, " X(%s, %s)", cg_member_name(api->arena, p->reduces[i].name), ir_reduce_kind_name(p->reduces[i].kind));
    sb_puts(h, "\n\n");
}

void api_emit_dist_reduce_header(const Api *api, StrBuf *h)
{
    if (!api->prog->nreduces)
        return;
    reductions_macro(api, h);
    api_put(api, h, HEADER, NULL);
}

static const char COMBINE[] =
    "/* The values of one reduction from every rank (v[r], rank r's) in rank order: a sum in\n"
    " * double, a min or max exact, a NaN anywhere NaN (the fold of the one-GPU kernels). */\n"
    "static double @_dist_combine_(const double *v, int nranks, int kind)\n"
    "{\n"
    "    double acc = kind == 0 ? 0.0 : kind == 1 ? HUGE_VAL : -HUGE_VAL;\n"
    "    for (int r = 0; r < nranks; r++) {\n"
    "        const double x = v[r];\n"
    "        if (kind == 0)\n"
    "            acc += x;\n"
    "        else if (x != x || (kind == 1 ? x < acc : x > acc))\n"
    "            acc = x;\n"
    "    }\n"
    "    return acc;\n"
    "}\n"
    "\n";

/* The part that is the same for every program. Before it: NAME_dist_reduce_bind_,
 * NAME_xset_reduce_, NAME_dreduce_, NAME_dist_reduce_gather_, NAME_dist_reduce_out_ and the
 * constants, which name the reductions. */
static const char *const TEMPLATE[] = {
    "/* This rank's part: the halo layers the reductions read exchanged (their reach on each axis,\n"
    " * not the steps' deep width: after @_dist_run the layers beyond the owned points are stale),\n"
    " * the partials of the owned points, then every rank's values gathered into host[q * nranks +\n"
    " * r]. After a CUDA error the rank still takes part in the all-gather, so that no peer waits. */\n"
    "static int @_dist_reduce_local_(@_dist *d, @_bufs_ *b, const @_params *p, double *scratch,\n"
    "    double *host, cudaStream_t stream)\n"
    "{\n"
    "    @_xfield_ xs[@_DIST_MAXF_ + 1];\n"
    "    int width[3];\n"
    "    for (int a = 0; a < 3; a++) {\n"
    "        width[a] = d->width[a];\n"
    "        d->width[a] = @_DIST_RED_REACH_[a]; /* <= the steps' width: the buffers were sized for it */\n"
    "    }\n"
    "    const int nx = @_xset_reduce_(b, xs);\n"
    "    const int xst = nx ? @_dist_exchange_(d, xs, nx, stream) : ^_DIST_OK;\n"
    "    for (int a = 0; a < 3; a++)\n"
    "        d->width[a] = width[a];\n"
    "    if (xst == ^_DIST_NCCL)\n"
    "        return xst;\n"
    "    cudaError_t ce = @_dreduce_(b, p, d->local, scratch, stream, d);\n"
    "    ncclResult_t ne = @_dist_reduce_gather_(d, scratch, stream);\n"
    "    if (ne == ncclSuccess && ce == cudaSuccess)\n"
    "        ce = cudaMemcpyAsync(host, scratch + @_DIST_RED_SLOTS_, (size_t)@_DIST_NRED_ * d->nranks * sizeof(double),\n"
    "                             cudaMemcpyDeviceToHost, stream);\n"
    "    if (ne == ncclSuccess && ce == cudaSuccess)\n"
    "        ce = cudaStreamSynchronize(stream);\n"
    "    return xst != ^_DIST_OK ? xst : @_dist_status_(d, ce, ne);\n"
    "}\n"
    "\n",
    "extern \"C\" int @_dist_reduce(@_dist *d, const @_fields *f, const @_params *p, @_reductions *out,\n"
    "    cudaStream_t stream)\n"
    "{\n"
    "    if (!d || !d->agree_)\n"
    "        return ^_DIST_INVALID;\n"
    "    d->message[0] = 0;\n"
    "    @_bufs_ b;\n"
    "    double *scratch = NULL, *host = NULL;\n"
    "    int failed = 0;\n"
    "    if (!p || !out || @_dist_reduce_bind_(f, &b) != cudaSuccess) {\n"
    "        @_dist_fail_(d, \"NULL fields, parameters or out\");\n"
    "        failed = ^_DIST_INVALID;\n"
    "    }\n"
    "    const size_t gathered = (size_t)@_DIST_NRED_ * d->nranks;\n"
    "    const cudaError_t ce = failed ? cudaSuccess\n"
    "                                  : cudaMalloc((void **)&scratch, (@_DIST_RED_SLOTS_ + gathered) * sizeof(double));\n"
    "    if (ce != cudaSuccess || (!failed && !(host = (double *)malloc(gathered * sizeof(double))))) {\n"
    "        d->cuda_error = ce != cudaSuccess ? ce : cudaErrorMemoryAllocation;\n"
    "        @_dist_fail_(d, \"cannot allocate the reductions' scratch\");\n"
    "        failed = ^_DIST_CUDA;\n"
    "    }\n"
    "    int st = @_dist_agree_(d, &failed, 0, failed, stream);\n"
    "    if (st == ^_DIST_OK) {\n"
    "        failed = @_dist_reduce_local_(d, &b, p, scratch, host, stream);\n"
    "        if (failed)\n"
    "            @_dist_fail_(d, \"the reductions' exchange, kernels or all-gather failed\");\n"
    "        st = @_dist_agree_(d, &failed, 0, failed, stream);\n"
    "    }\n"
    "    if (st == ^_DIST_OK)\n"
    "        @_dist_reduce_out_(host, d->nranks, out);\n"
    "    if (scratch)\n"
    "        cudaFree(scratch);\n"
    "    free(host);\n"
    "    return st;\n"
    "}\n"
    "\n",
    "extern \"C\" int @_dist_run_reduce(@_dist *d, @_fields *f, const @_params *p, int steps, void *workspace,\n"
    "    @_reductions *out, cudaStream_t stream)\n"
    "{\n"
    "    /* out NULL: this rank's fields count as missing, so that every rank refuses before any step */\n"
    "    const int st = @_dist_run(d, out ? f : NULL, p, steps, workspace, stream);\n"
    "    if (st == ^_DIST_INVALID && d && !out)\n"
    "        snprintf(d->message, sizeof d->message, \"out is NULL\");\n"
    "    return st == ^_DIST_OK ? @_dist_reduce(d, f, p, out, stream) : st;\n"
    "}\n",
    NULL};

/* The reach of the reductions per axis: the layers beyond the owned points they read. */
static void reduce_reach(const IrProgram *p, int reach[3])
{
    for (int a = 0; a < 3; a++) {
        reach[a] = 0;
        for (int i = 0; i < p->nreduces; i++)
            if (p->reduces[i].stage.radius[a] > reach[a])
                reach[a] = p->reduces[i].stage.radius[a];
    }
}

/* Whether some reduction reads (field, level) at an offset. */
static int read_at_offset(const IrProgram *p, int field, int level)
{
    for (int i = 0; i < p->nreduces; i++)
        for (int k = 0; k < p->reduces[i].stage.nnodes; k++) {
            const IrNode *n = &p->reduces[i].stage.nodes[k];
            if (n->op == N_READ && n->field == field && n->level == level && (n->off[0] || n->off[1] || n->off[2]))
                return 1;
        }
    return 0;
}

/* NAME_xset_reduce_: the buffers some reduction reads at an offset, whose halo layers must hold
 * the neighbours' values (and, at a periodic face, the other end's). */
static void emit_xset(const Api *api, StrBuf *o)
{
    const IrProgram *p = api->prog;
    sb_printf(o, "static int %s_xset_reduce_(%s_bufs_ *b, %s_xfield_ *x)\n{\n    int n = 0;\n    (void)b;\n    (void)x;\n",
              api->pfx, api->pfx, api->pfx);
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        int levels = fl->role == ROLE_STATE ? fl->levels : 1;
        for (int l = 0; l > -levels; l--) {
            if (!read_at_offset(p, f, l))
                continue;
            StrBuf buf = {0};
            api_emit_arg(api, &(PlanArg){ARG_BUF, f, l, 0}, &buf);
            sb_printf(o, "    x[n++] = (%s_xfield_){(%s *)%s, %d};\n", api->pfx, api->T, buf.data, api_periodic_axes(p, f));
            sb_free(&buf);
        }
    }
    sb_puts(o, "    return n;\n}\n\n");
}

/* NAME_dist_reduce_bind_: the buffers the reductions read from *f (a NULL one: an error). */
static void emit_bind(const Api *api, StrBuf *o)
{
    api_put(api, o, "static cudaError_t @_dist_reduce_bind_(const @_fields *f, @_bufs_ *b)\n{\n"
            "    @_bufs_ bufs;\n    memset(&bufs, 0, sizeof bufs);\n    *b = bufs;\n"
            "    if (!f)\n        return cudaErrorInvalidValue;\n", NULL);
    api_emit_reduce_bind(api, o);
    sb_puts(o, "    *b = bufs;\n    return cudaSuccess;\n}\n\n");
}

/* NAME_dist_reduce_gather_ (every rank's value of reduction q into scratch[SLOTS + q * nranks
 * + r], one NCCL group) and NAME_dist_reduce_out_ (the values combined into *out). */
static void emit_gather(const Api *api, StrBuf *o)
{
    const IrProgram *p = api->prog;
    api_put(api, o, "static ncclResult_t @_dist_reduce_gather_(@_dist *d, double *scratch, cudaStream_t stream)\n{\n"
            "    double *all = scratch + @_DIST_RED_SLOTS_;\n"
            "    ncclResult_t ne = ncclGroupStart();\n", NULL);
    for (int i = 0; i < p->nreduces; i++)
        sb_printf(o, "    if (ne == ncclSuccess)\n        ne = ncclAllGather(scratch + %d, all + %d * (size_t)d->nranks, 1, "
                  "ncclDouble, d->comm, stream);\n", PLAN_REDUCE_VALUE(i), i);
    sb_puts(o, "    const ncclResult_t end = ncclGroupEnd();\n    return ne == ncclSuccess ? end : ne;\n}\n\n");
    api_put(api, o, "static void @_dist_reduce_out_(const double *host, int nranks, @_reductions *out)\n{\n", NULL);
    for (int i = 0; i < p->nreduces; i++)
        sb_printf(o, "    out->%s = %s_dist_combine_(host + %d * (size_t)nranks, nranks, %d); /* %s */\n",
                  cg_member_name(api->arena, p->reduces[i].name), api->pfx, i, (int)p->reduces[i].kind,
                  ir_reduce_kind_name(p->reduces[i].kind));
    sb_puts(o, "}\n\n");
}

void api_emit_dist_reduce_source(const Api *api, StrBuf *cu)
{
    const IrProgram *p = api->prog;
    if (!p->nreduces)
        return;
    int reach[3];
    reduce_reach(p, reach);
    sb_printf(cu, "\n/* ------------------------------------------------------- distributed reductions */\n\n"
              "#include <math.h>\n#include <stdlib.h>\n\n"
              "#define %s_DIST_NRED_ %d\n#define %s_DIST_RED_SLOTS_ %d /* the one-GPU scratch, then the gathered values */\n"
              "/* the layers beyond a point the reductions read (at most the step's halo) */\n"
              "static const int %s_DIST_RED_REACH_[3] = {%d, %d, %d};\n\n",
              api->pfx, p->nreduces, api->pfx, PLAN_REDUCE_SLOT(p->nreduces), api->pfx, reach[0], reach[1], reach[2]);
    CgCtx ctx;
    api_kernel_ctx(api, cu, &ctx);
    cg_build_reduce_boxes(&ctx);
    emit_xset(api, cu);
    emit_bind(api, cu);
    api_emit_reduce_group(api, "dreduce", api->plan->reduce, api->plan->nreduce, 1, cu);
    api_put(api, cu, COMBINE, NULL);
    emit_gather(api, cu);
    for (const char *const *part = TEMPLATE; *part; part++)
        api_put(api, cu, *part, NULL);
}
