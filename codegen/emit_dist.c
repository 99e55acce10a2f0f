/* The distributed API (stencilc --distributed, docs/distributed.md): the one-GPU launch sequence
 * run on each rank's sub-domain of a Cartesian process grid, with NCCL halo exchanges.
 *
 * Deep halos. With exchange depth K, a rank's buffers hold its owned points plus W = K * S
 * layers on every face that is exchanged (S: how far one step reads, the sum of its stages'
 * radii). The one-GPU kernels, unchanged, run on a "virtual" interior of the owned points plus
 * W - halo of those layers: step j of K leaves the points at least j * S inside the exchanged
 * layers correct, so after K steps the owned points are, and the next exchange refreshes the
 * rest. Any kernel family, fused steps (tblock) included, runs as it does on one GPU; a
 * two-stage step needs no exchange between its stages. Faces of the global grid keep their
 * boundary condition through the sided fill kernels (the one-GPU fills, restricted to the
 * global faces); the global faces of a field's periodic axes are exchanged with the rank at the
 * other end (with itself when the axis is not split), axis by axis. Where fused steps reflect
 * clamp or mirror faces (api_dist_reflects), the global faces have deep layers too, which a
 * copy within the buffer fills with the reflection of the owned points before each launch.
 *
 * The exchange goes axis by axis, x then y then z, each over the full padded extent of the
 * other axes, as the one-GPU fills do: edges and corners (box stencils) come from the diagonal
 * neighbours through the axis exchanged before. Every collective check that decides an error
 * (sizes, process grid, a rank's bad arguments) is agreed on by all ranks, so every rank
 * returns the same error and none waits for a peer that gave up.
 *
 * Most of the host code is the same for every program: it is printed from DIST_TEMPLATE with
 * '@' replaced by the prefix; what depends on the program is printed around it. */
#include "emit_api.h"
#include "opt_temporal.h"

#include <stdio.h>
#include <string.h>

/* Layers one step reads beyond a point, per axis: the sum of the stages' radii. */
static int step_reach(const IrProgram *p, int axis)
{
    int s = 0;
    for (int i = 0; i < p->nstages; i++)
        s += p->stages[i].radius[axis];
    return s;
}

static int field_read_at(const IrProgram *p, int f, int level, int offset_only)
{
    for (int s = 0; s < p->nstages; s++)
        for (int i = 0; i < p->stages[s].nnodes; i++) {
            const IrNode *n = &p->stages[s].nodes[i];
            if (n->op != N_READ || n->field != f || n->level != level)
                continue;
            if (!offset_only || n->off[0] || n->off[1] || n->off[2])
                return 1;
        }
    return 0;
}

int api_periodic_axes(const IrProgram *p, int f)
{
    int m = 0;
    for (int a = 0; a < p->dims; a++)
        m |= ir_bc(&p->fields[f], a, 0).kind == BC_PERIODIC ? 1 << a : 0;
    return m;
}

int api_dist_held_wraps(const Plan *plan) { return plan->held && plan->config.v[P_HWRAP] == 2; }

int api_dist_reflects(const Plan *plan)
{
    BoundaryKind bc = BC_FIXED;
    return plan->held && cg_temporal_reflects(plan->prog) && cg_temporal_edge(plan->prog, &bc) == TB_WRAP ? (int)bc : 0;
}

/* The axes on which some field is periodic: they are exchanged though not split. */
static int any_periodic(const IrProgram *p)
{
    int m = 0;
    for (int f = 0; f < p->nfields; f++)
        m |= api_periodic_axes(p, f);
    return m;
}

/* Whether the program's runs need depth 1 and one stage: on one axis, periodic fields beside
 * filled ones (fields that differ), where the layers computed again beyond the periodic face
 * overwrite the filled field's halo. Periodic faces beside filled ones on other axes (`boundary
 * periodic, fixed`) take deep halos: tests/dist/faces.st, checked on GPUs after the first
 * exchange sent every buffer (emit_xset; issue 31). */
static int depth1_only(const IrProgram *p)
{
    int all = (1 << p->dims) - 1, per = 0, filled = 0;
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if ((fl->role == ROLE_TEMP && !cg_field_stored(p, f)) || (fl->role == ROLE_COEF && !api_coef_needed(p, f)))
            continue;
        per |= api_periodic_axes(p, f);
        filled |= ~api_periodic_axes(p, f) & all;
    }
    return (per & filled) != 0;
}

/* Prints the parts of a template (template.h: '@' the prefix, '^' in capitals). */
static void put_template(const Api *api, const char *const *parts, StrBuf *o)
{
    for (; *parts; parts++)
        api_put(api, o, *parts, NULL);
}

static const char *const DIST_HEADER[] = {
    "/* ---- Distributed runs over NCCL (docs/distributed.md) ---------------------------------\n"
    " * Rank r of a px x py x pz process grid has coordinates (r % px, r / px % py, r / (px py)).\n"
    " * Axis d of the global interior (N points) is cut into p pieces of N / p points, the first\n"
    " * N % p one point longer. A rank's buffers are padded buffers of interior @_dist.local (its\n"
    " * owned points plus the exchanged layers of the faces it shares): @_buffer_elems(local[0],\n"
    " * local[1], local[2]) elements each; owned point (i, j, k) is at @_index(i + ext_lo[0], j +\n"
    " * ext_lo[1], k + ext_lo[2], local[0], local[1]) and is global point offset + (i, j, k). */\n"
    "\n"
    "typedef enum {\n"
    "    ^_DIST_OK = 0,\n"
    "    ^_DIST_INVALID,   /* a bad argument (message says which) */\n"
    "    ^_DIST_MISMATCH,  /* ranks disagree (sizes, process grid, depth, steps, program), or the\n"
    "                         process grid does not match the communicator */\n"
    "    ^_DIST_TOO_THIN,  /* a sub-domain is thinner than the layers it must send */\n"
    "    ^_DIST_CUDA,      /* a CUDA error on this rank (cuda_error) */\n"
    "    ^_DIST_NCCL,      /* an NCCL error on this rank (nccl_error) */\n"
    "    ^_DIST_PEER       /* another rank failed; this one stopped with it */\n"
    "} @_dist_status;\n"
    "\n"
    "/* A rank's part of a distributed run. Set by @_dist_init; read only for the caller. */\n"
    "typedef struct {\n"
    "    int global[3], procs[3], coords[3]; /* global interior, process grid, this rank */\n"
    "    int rank, nranks, depth;    /* depth: steps between exchanges (deep halos) */\n"
    "    int n[3], offset[3];        /* owned interior points and the global index of the first */\n"
    "    int local[3];               /* interior size of the local buffers */\n"
    "    int ext_lo[3], ext_hi[3];   /* layers of the local interior beyond the owned points */\n"
    "    int width[3];               /* layers exchanged per face, per axis (0: none) */\n"
    "    int peer_lo[3], peer_hi[3]; /* neighbour ranks; -1 at a global face not exchanged */\n"
    "    cudaError_t cuda_error;     /* with ^_DIST_CUDA */\n"
    "    ncclResult_t nccl_error;    /* with ^_DIST_NCCL */\n"
    "    char message[192];          /* what went wrong, for a person */\n"
    "    ncclComm_t comm;\n"
    "    void *xbuf_;                /* exchange buffers (device), owned */\n"
    "    size_t xcount_;             /* elements of one of its four parts */\n"
    "    int *agree_;                /* device scratch of the collective checks */\n"
    "    int overlap;                /* 1: the layers it sends are computed first and the rest\n"
    "                                   while they travel (see @_dist_set_overlap) */\n"
    "    cudaStream_t xstream_;      /* the exchange's stream and events, owned */\n"
    "    cudaEvent_t xevent_[2];\n"
    "} @_dist;\n"
    "\n",
    "/* Splits the global interior over the process grid for this rank (coords must be its\n"
    " * coordinates in the order above), checks on every rank that all agree, and allocates\n"
    " * the exchange buffers. depth >= 1: steps between halo exchanges (layers exchanged:\n"
    " * depth times the step's reach); 0: ^_DIST_DEPTH, and overlap where ^_DIST_OVERLAP\n"
    " * recommends it and this split allows it. Collective: every rank of comm calls it. */\n"
    "int @_dist_init(@_dist *d, const int global[3], const int procs[3], const int coords[3],\n"
    "    int depth, ncclComm_t comm, cudaStream_t stream);\n"
    "/* Frees what @_dist_init allocated (not collective). */\n"
    "void @_dist_free(@_dist *d);\n"
    "/* Elements of one local buffer. */\n"
    "size_t @_dist_buffer_elems(const @_dist *d);\n"
    "/* Advances the fields `steps` steps: the local buffers (owned points and their halos, as\n"
    " * @_dist_scatter leaves them) with exchanges between ranks. Collective; synchronizes the\n"
    " * stream at its start and end. Returns ^_DIST_OK or the status every rank agrees on.\n"
    " * workspace: NULL (allocated and freed on the stream) or @_workspace_bytes(d->local[0],\n"
    " * d->local[1], d->local[2]) bytes, as @_run's on the local buffers. */\n"
    "int @_dist_run(@_dist *d, @_fields *f, const @_params *p, int steps, void *workspace,\n"
    "    cudaStream_t stream);\n"
    "/* Copies the part of a global padded host array (the one-GPU layout for d->global) that\n"
    " * lies in each rank's local buffer from rank root to the ranks. global: on root only. */\n"
    "int @_dist_scatter(@_dist *d, const @_real *global, @_real *local, int root,\n"
    "    cudaStream_t stream);\n"
    "/* Copies every rank's owned points (and the halo of global faces) into the global padded\n"
    " * host array on rank root. global: on root only. Collective; synchronous. */\n"
    "int @_dist_gather(@_dist *d, const @_real *local, @_real *global, int root,\n"
    "    cudaStream_t stream);\n"
    "/* Overlap (off unless depth 0 and ^_DIST_OVERLAP turn it on; docs/distributed.md has the\n"
    " * measurements): the layers that go to the neighbours are computed first on the exchange's\n"
    " * own stream, of the highest priority, and sent from there while the caller's stream\n"
    " * computes the rest. Applies to one-stage steps of one kernel at depth 1, or of a kernel of\n"
    " * T fused steps at depths that are multiples of T (once a group, its last launch), on any\n"
    " * split whose part holds, along each exchanged axis, the kernel's blocks of the two sent\n"
    " * edges and some between them. Returns ^_DIST_OK, or ^_DIST_INVALID where it cannot apply\n"
    " * (turning it off always works). Not collective: ranks may differ. */\n"
    "int @_dist_set_overlap(@_dist *d, int on);\n"
    "/* A status as text. */\n"
    "const char *@_dist_status_string(int status);\n\n",
    NULL};

/* NAME_DIST_DEPTH and NAME_DIST_OVERLAP: the exchange depth and overlap that stencilc recommends
 * (NAME_dist_init's depth 0), with the model's prediction for each depth it weighed. */
static void emit_recommendation(const Api *api, StrBuf *h)
{
    const CgDistChoice *c = api->dist;
    if (!c || c->chosen < 0) {
        sb_printf(h, "/* The exchange depth and overlap of %s_dist_init's depth 0: none was chosen for a\n"
                  " * process grid (stencilc --distributed --procs PXxPYxPZ chooses them, docs/distributed.md). */\n",
                  api->pfx);
        sb_printf(h, "#define %s_DIST_DEPTH 1\n#define %s_DIST_OVERLAP 0\n\n", api->upper, api->upper);
        return;
    }
    const CgDistCand *k = &c->cand[c->chosen];
    sb_printf(h, "/* The exchange depth and overlap of %s_dist_init's depth 0, %s for %ldx%ldx%ld over\n"
              " * %ldx%ldx%ld on %s by the exchange-cost model of docs/distributed.md (per step: the\n"
              " * local kernel on the part with deep halos, %s, plus the exchange):\n",
              api->pfx, c->given ? "given by --depth" : "chosen", c->global[0], c->global[1], c->global[2],
              c->procs[0], c->procs[1], c->procs[2], c->link,
              c->measured ? arena_printf(api->arena, "timed on %s", c->device) : "scaled from its volume");
    cg_dist_table(c, " *   ", h);
    sb_puts(h, " */\n");
    sb_printf(h, "#define %s_DIST_DEPTH %d\n#define %s_DIST_OVERLAP %d\n\n", api->upper, k->depth, api->upper,
              k->overlap);
}

void api_emit_dist_header(const Api *api, StrBuf *h)
{
    const IrProgram *p = api->prog;
    sb_printf(h, "/* The fields, for code written once for any program: X(member, levels). */\n"
              "#define %s_STATE_FIELDS(X)", api->upper);
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].role == ROLE_STATE)
            sb_printf(h, " X(%s, %d)", api->member[f], p->fields[f].levels);
    sb_printf(h, "\n#define %s_COEF_FIELDS(X)", api->upper);
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].role == ROLE_COEF)
            sb_printf(h, " X(%s, 1)", api->member[f]);
    sb_puts(h, "\n\n");
    emit_recommendation(api, h);
    put_template(api, DIST_HEADER, h);
    api_emit_dist_reduce_header(api, h);
}

/* ------------------------------------------------------------------ device code */

static void emit_sided_fills(const Api *api, StrBuf *cu)
{
    const IrProgram *p = api->prog;
    const Plan *plan = api->plan;
    if (api_dist_reflects(plan))
        return; /* every global face is reflected by a copy: no fill runs (api_emit_group) */
    CgCtx ctx;
    api_kernel_ctx(api, cu, &ctx);
    const PlanLaunch *groups[3] = {plan->prologue, plan->step, plan->single};
    const int counts[3] = {plan->nprologue, plan->nstep, plan->nsingle};
    const char **done = arena_alloc(api->arena, sizeof(char *) * 256);
    int ndone = 0;
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < counts[g]; i++) {
            const PlanLaunch *l = &groups[g][i];
            if (!l->fill)
                continue;
            const char *name = api_sided_fill_name(api, l);
            int seen = 0;
            for (int k = 0; k < ndone; k++)
                seen |= !strcmp(done[k], name);
            if (seen || ndone == 256)
                continue;
            done[ndone++] = name;
            CgArgs args = {0};
            int field = l->args[0].field;
            cg_args_add(&ctx, &args, (PlanArg){ARG_BUF, field, 0, 0}, 1);
            for (int d = 0; d < p->dims; d++)
                cg_args_add(&ctx, &args, (PlanArg){ARG_DIM, 0, 0, d}, 0);
            cg_args_add(&ctx, &args, (PlanArg){ARG_SIDE, field, 0, 2 * l->fill_axis}, 0);
            cg_args_add(&ctx, &args, (PlanArg){ARG_SIDE, field, 0, 2 * l->fill_axis + 1}, 0);
            cg_emit_fill(&ctx, field, l->fill_axis, name, &args);
        }
}

void api_kernel_ctx(const Api *api, StrBuf *cu, CgCtx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->prog = api->prog;
    ctx->cfg = &api->plan->config;
    ctx->arena = api->arena;
    ctx->prefix = api->pfx;
    ctx->T = api->T;
    ctx->kb = (Kb){api->arena, api->prog->type};
    ctx->src = cu;
    ctx->idx = "idx";
}

const char *api_sided_fill_name(const Api *api, const PlanLaunch *l)
{
    return arena_printf(api->arena, "%s_sided", l->kernel);
}

/* ------------------------------------------------------------------ host code */

/* The part that is the same for every program. Before it: @_DIST_DIMS_, @_DIST_HALO_[3],
 * @_DIST_RING_[3], @_DIST_REACH_[3], @_DIST_PERIODIC_(a), @_DIST_PERIODIC_AXES_, @_DIST_MIXED_,
 * @_DIST_STAGES_, @_DIST_NCCL_REAL_, @_DIST_MAXF_ (most buffers exchanged at once) and
 * @_DIST_DIGEST_ (the program and configuration, compared between ranks). After it: the
 * exchange sets and @_dist_run. */
static const char *const DIST_TEMPLATE[] = {
    "static void @_dist_fail_(@_dist *d, const char *msg)\n"
    "{\n"
    "    if (!d->message[0])\n"
    "        snprintf(d->message, sizeof d->message, \"%s\", msg);\n"
    "}\n"
    "\n"
    "/* The piece of n points that coordinate c of p gets: its size and first index. */\n"
    "static void @_dist_piece_(int n, int p, int c, int *size, int *first)\n"
    "{\n"
    "    const int base = n / p, rest = n % p;\n"
    "    *size = base + (c < rest ? 1 : 0);\n"
    "    *first = c * base + (c < rest ? c : rest);\n"
    "}\n"
    "\n"
    "static int @_dist_rank_of_(const int procs[3], int c0, int c1, int c2)\n"
    "{\n"
    "    return c0 + procs[0] * (c1 + procs[1] * c2);\n"
    "}\n"
    "\n"
    "/* Whether axis a exchanges: split, or periodic (a rank exchanges with itself when p = 1), or\n"
    " * its global faces reflect (a copy within the buffer). */\n"
    "static int @_dist_exchanges_(const @_dist *d, int a)\n"
    "{\n"
    "    return d->width[a] > 0 && (d->procs[a] > 1 || @_DIST_PERIODIC_(a) || @_DIST_REFLECT_);\n"
    "}\n"
    "\n"
    "/* The layout of rank r's buffers: owned size, offset, extension per face (the layers it\n"
    " * receives beyond the kernels' halo ring, or all of them with hwrap=on, are computed again\n"
    " * locally). */\n"
    "static void @_dist_layout_(const @_dist *d, int r, int n[3], int off[3], int lo[3], int hi[3])\n"
    "{\n"
    "    const int c[3] = {r % d->procs[0], r / d->procs[0] % d->procs[1], r / (d->procs[0] * d->procs[1])};\n"
    "    for (int a = 0; a < 3; a++) {\n"
    "        @_dist_piece_(d->global[a], d->procs[a], c[a], &n[a], &off[a]);\n"
    "        const int ext = @_dist_exchanges_(d, a) ? d->width[a] - @_DIST_RING_[a] : 0;\n"
    "        lo[a] = ext > 0 && (c[a] > 0 || @_DIST_PERIODIC_(a) || @_DIST_REFLECT_) ? ext : 0;\n"
    "        hi[a] = ext > 0 && (c[a] < d->procs[a] - 1 || @_DIST_PERIODIC_(a) || @_DIST_REFLECT_) ? ext : 0;\n"
    "    }\n"
    "}\n"
    "\n",
    "/* The collective check: every rank contributes vals[0..nv) and its own failure (0 = none);\n"
    " * all learn whether every value agrees and whether any rank failed. Synchronizes. */\n"
    "static int @_dist_agree_(@_dist *d, const int *vals, int nv, int failed, cudaStream_t stream)\n"
    "{\n"
    "    int host[2 * 16 + 2];\n"
    "    host[0] = failed;\n"
    "    host[1] = -failed;\n"
    "    for (int i = 0; i < nv; i++) {\n"
    "        host[2 + 2 * i] = vals[i];\n"
    "        host[3 + 2 * i] = -vals[i];\n"
    "    }\n"
    "    const size_t count = (size_t)(2 + 2 * nv);\n"
    "    cudaError_t ce = cudaMemcpyAsync(d->agree_, host, count * sizeof(int), cudaMemcpyHostToDevice, stream);\n"
    "    ncclResult_t ne = ncclSuccess;\n"
    "    if (ce == cudaSuccess)\n"
    "        ne = ncclAllReduce(d->agree_, d->agree_, count, ncclInt, ncclMax, d->comm, stream);\n"
    "    if (ce == cudaSuccess && ne == ncclSuccess)\n"
    "        ce = cudaMemcpyAsync(host, d->agree_, count * sizeof(int), cudaMemcpyDeviceToHost, stream);\n"
    "    if (ce == cudaSuccess && ne == ncclSuccess)\n"
    "        ce = cudaStreamSynchronize(stream);\n"
    "    if (ne != ncclSuccess) {\n"
    "        d->nccl_error = ne;\n"
    "        @_dist_fail_(d, \"an NCCL call of the collective check failed\");\n"
    "        return ^_DIST_NCCL;\n"
    "    }\n"
    "    if (ce != cudaSuccess) {\n"
    "        d->cuda_error = ce;\n"
    "        @_dist_fail_(d, \"a CUDA call of the collective check failed\");\n"
    "        return ^_DIST_CUDA;\n"
    "    }\n"
    "    if (host[0] > 0)\n"
    "        return failed ? failed : (@_dist_fail_(d, \"another rank failed\"), ^_DIST_PEER);\n"
    "    for (int i = 0; i < nv; i++)\n"
    "        if (host[2 + 2 * i] != -host[3 + 2 * i]) {\n"
    "            @_dist_fail_(d, \"the ranks disagree on the global size, process grid, depth, steps or program\");\n"
    "            return ^_DIST_MISMATCH;\n"
    "        }\n"
    "    return ^_DIST_OK;\n"
    "}\n"
    "\n",
    "/* This rank's own checks of @_dist_init's arguments: 0, or the status. */\n"
    "static int @_dist_check_args_(@_dist *d, const int global[3], const int procs[3],\n"
    "    const int coords[3], int depth)\n"
    "{\n"
    "    if (depth < 1 || depth > 1024)\n"
    "        return @_dist_fail_(d, \"depth must be 1 to 1024\"), ^_DIST_INVALID;\n"
    "    for (int a = 0; a < 3; a++) {\n"
    "        const int used = a < @_DIST_DIMS_;\n"
    "        if (!global || !procs || !coords || global[a] < 1 || procs[a] < 1 || (!used && (global[a] != 1 || procs[a] != 1)))\n"
    "            return @_dist_fail_(d, \"sizes and process counts must be >= 1 (and 1 on axes the grid does not have)\"),\n"
    "                   ^_DIST_INVALID;\n"
    "        if (coords[a] < 0 || coords[a] >= procs[a])\n"
    "            return @_dist_fail_(d, \"coordinates outside the process grid\"), ^_DIST_INVALID;\n"
    "    }\n"
    "    if (!@_grid_ok_(global[0], global[1], global[2]))\n"
    "        return @_dist_fail_(d, \"the global size is beyond the index range (docs/c-api.md)\"), ^_DIST_INVALID;\n"
    "    if ((long long)procs[0] * procs[1] * procs[2] != d->nranks)\n"
    "        return @_dist_fail_(d, \"the process grid does not have as many ranks as the communicator\"),\n"
    "               ^_DIST_MISMATCH;\n"
    "    if (@_dist_rank_of_(procs, coords[0], coords[1], coords[2]) != d->rank)\n"
    "        return @_dist_fail_(d, \"coords are not this rank's: rank = x + px * (y + py * z)\"), ^_DIST_MISMATCH;\n"
    "    if (@_DIST_MIXED_ && depth * @_DIST_STAGES_ > 1)\n"
    "        return @_dist_fail_(d, \"periodic and other boundaries on one axis need depth 1 and one stage\"),\n"
    "               ^_DIST_INVALID;\n"
    "    if (@_DIST_PERIODIC_AXES_ && @_DIST_COORDS_ && depth * @_DIST_STAGES_ > 1)\n"
    "        return @_dist_fail_(d, \"a periodic program that reads x, y or z needs depth 1 and one stage\"),\n"
    "               ^_DIST_INVALID;\n"
    "    for (int a = 0; a < @_DIST_DIMS_; a++) {\n"
    "        const int width = depth * @_DIST_REACH_[a], need = width + (@_DIST_REFLECT_ == 1);\n"
    "        if (width > 0 && (procs[a] > 1 || @_DIST_PERIODIC_(a) || @_DIST_REFLECT_) && global[a] / procs[a] < need) {\n"
    "            snprintf(d->message, sizeof d->message, \"a sub-domain of %d points along %c is thinner than \"\n"
    "                     \"the %d layers it must send or reflect (depth %d x reach %d%s)\", global[a] / procs[a],\n"
    "                     \"xyz\"[a], need, depth, @_DIST_REACH_[a], need > width ? \", and the mirror's edge point\" : \"\");\n"
    "            return ^_DIST_TOO_THIN;\n"
    "        }\n"
    "    }\n"
    "    return 0;\n"
    "}\n"
    "\n",
    "extern \"C\" int @_dist_set_overlap(@_dist *d, int on)\n"
    "{\n"
    "    if (!d)\n"
    "        return ^_DIST_INVALID;\n"
    "    d->overlap = 0;\n"
    "    if (!on)\n"
    "        return ^_DIST_OK;\n"
    "    /* (one-step kernels of slabs run on planes of the outermost axis through pointers moved\n"
    "     * by whole planes; vector kernels check their pointers' alignment and take their scalar\n"
    "     * path otherwise) */\n"
    "    const int ok = @_DIST_OVERLAP_ && d->xstream_ && @_dist_overlap_fits_(d);\n"
    "    d->overlap = ok;\n"
    "    return ok ? ^_DIST_OK : ^_DIST_INVALID;\n"
    "}\n"
    "\n",
    "extern \"C\" int @_dist_init(@_dist *d, const int global[3], const int procs[3], const int coords[3],\n"
    "    int depth, ncclComm_t comm, cudaStream_t stream)\n"
    "{\n"
    "    if (!d)\n"
    "        return ^_DIST_INVALID;\n"
    "    memset(d, 0, sizeof *d);\n"
    "    const int recommended = depth == 0;\n"
    "    if (recommended)\n"
    "        depth = ^_DIST_DEPTH;\n"
    "    d->comm = comm;\n"
    "    ncclResult_t ne = comm ? ncclCommCount(comm, &d->nranks) : ncclInvalidArgument;\n"
    "    if (ne == ncclSuccess)\n"
    "        ne = ncclCommUserRank(comm, &d->rank);\n"
    "    if (ne != ncclSuccess) {\n"
    "        d->nccl_error = ne;\n"
    "        @_dist_fail_(d, \"no usable NCCL communicator\");\n"
    "        return ^_DIST_NCCL;\n"
    "    }\n"
    "    int low = 0, high = 0;\n"
    "    cudaError_t ce = cudaMalloc((void **)&d->agree_, (2 * 16 + 2) * sizeof(int));\n"
    "    if (ce != cudaSuccess) {\n"
    "        d->cuda_error = ce;\n"
    "        d->agree_ = NULL;\n"
    "    }\n"
    "    int failed = ce != cudaSuccess ? ^_DIST_CUDA : @_dist_check_args_(d, global, procs, coords, depth);\n"
    "    int vals[8] = {0, 0, 0, 0, 0, 0, depth, @_DIST_DIGEST_};\n"
    "    for (int a = 0; a < 3 && global && procs; a++) {\n"
    "        vals[a] = global[a];\n"
    "        vals[3 + a] = procs[a];\n"
    "    }\n"
    "    int st = d->agree_ ? @_dist_agree_(d, vals, 8, failed, stream) : failed;\n"
    "    if (st != ^_DIST_OK) {\n"
    "        @_dist_free(d);\n"
    "        return st;\n"
    "    }\n"
    "    d->depth = depth;\n"
    "    for (int a = 0; a < 3; a++) {\n"
    "        d->global[a] = global[a];\n"
    "        d->procs[a] = procs[a];\n"
    "        d->coords[a] = coords[a];\n"
    "        d->width[a] = depth * @_DIST_REACH_[a];\n"
    "    }\n"
    "    @_dist_layout_(d, d->rank, d->n, d->offset, d->ext_lo, d->ext_hi);\n"
    "    size_t most = 0;\n"
    "    for (int a = 0; a < 3; a++) {\n"
    "        d->local[a] = d->n[a] + d->ext_lo[a] + d->ext_hi[a];\n"
    "        const int c[3] = {coords[0], coords[1], coords[2]};\n"
    "        int lo[3] = {c[0], c[1], c[2]}, hi[3] = {c[0], c[1], c[2]};\n"
    "        lo[a] = (c[a] + procs[a] - 1) % procs[a];\n"
    "        hi[a] = (c[a] + 1) % procs[a];\n"
    "        const int ex = @_dist_exchanges_(d, a);\n"
    "        d->peer_lo[a] = ex && (c[a] > 0 || @_DIST_PERIODIC_(a)) ? @_dist_rank_of_(procs, lo[0], lo[1], lo[2]) : -1;\n"
    "        d->peer_hi[a] = ex && (c[a] < procs[a] - 1 || @_DIST_PERIODIC_(a)) ? @_dist_rank_of_(procs, hi[0], hi[1], hi[2]) : -1;\n"
    "    }\n"
    "    for (int a = 0; a < @_DIST_DIMS_; a++) {\n"
    "        size_t face = (size_t)d->width[a];\n"
    "        for (int o = 0; o < @_DIST_DIMS_; o++)\n"
    "            if (o != a)\n"
    "                face *= (size_t)d->local[o] + 2 * @_DIST_HALO_[o];\n"
    "        if (@_dist_exchanges_(d, a) && face > most)\n"
    "            most = face;\n"
    "    }\n"
    "    d->xcount_ = most * @_DIST_MAXF_;\n"
    "    ce = d->xcount_ ? cudaMalloc(&d->xbuf_, 4 * d->xcount_ * sizeof(@_real)) : cudaSuccess;\n"
    "    if (ce == cudaSuccess)\n"
    "        ce = cudaDeviceGetStreamPriorityRange(&low, &high);\n"
    "    if (ce == cudaSuccess) /* the exchange's stream goes first (NAME_dstep_overlap_) */\n"
    "        ce = cudaStreamCreateWithPriority(&d->xstream_, cudaStreamNonBlocking, high);\n"
    "    if (ce == cudaSuccess)\n"
    "        ce = cudaEventCreateWithFlags(&d->xevent_[0], cudaEventDisableTiming);\n"
    "    if (ce == cudaSuccess)\n"
    "        ce = cudaEventCreateWithFlags(&d->xevent_[1], cudaEventDisableTiming);\n"

    "    failed = ce != cudaSuccess ? ^_DIST_CUDA : 0;\n"
    "    if (ce != cudaSuccess) {\n"
    "        d->cuda_error = ce;\n"
    "        d->xbuf_ = NULL;\n"
    "        @_dist_fail_(d, \"cannot allocate the exchange buffers\");\n"
    "    }\n"
    "    st = @_dist_agree_(d, vals, 0, failed, stream);\n"
    "    if (st != ^_DIST_OK)\n"
    "        @_dist_free(d);\n"
    "    else if (recommended && ^_DIST_OVERLAP)\n"
    "        @_dist_set_overlap(d, 1); /* stays off where this split cannot overlap */\n"
    "    return st;\n"
    "}\n"
    "\n",
    "extern \"C\" void @_dist_free(@_dist *d)\n"
    "{\n"
    "    if (!d)\n"
    "        return;\n"
    "    if (d->xbuf_)\n"
    "        cudaFree(d->xbuf_);\n"
    "    if (d->agree_)\n"
    "        cudaFree(d->agree_);\n"
    "    if (d->xstream_) {\n"
    "        cudaEventDestroy(d->xevent_[0]);\n"
    "        cudaEventDestroy(d->xevent_[1]);\n"
    "        cudaStreamDestroy(d->xstream_);\n"
    "    }\n"
    "    d->xbuf_ = NULL;\n"
    "    d->agree_ = NULL;\n"
    "    d->xstream_ = NULL;\n"
    "}\n"
    "\n"
    "extern \"C\" size_t @_dist_buffer_elems(const @_dist *d)\n"
    "{\n"
    "    return d ? @_buffer_elems(d->local[0], d->local[1], d->local[2]) : 0;\n"
    "}\n"
    "\n"
    "extern \"C\" const char *@_dist_status_string(int status)\n"
    "{\n"
    "    static const char *const text[] = {\"ok\", \"invalid argument\", \"ranks disagree\",\n"
    "        \"sub-domain thinner than the exchanged halo\", \"CUDA error\", \"NCCL error\", \"another rank failed\"};\n"
    "    return status >= 0 && status <= ^_DIST_PEER ? text[status] : \"unknown status\";\n"
    "}\n"
    "\n"
    "/* Copies a box between a padded buffer (extents P0 x P1, box at x0, y0, z0) and a packed one. */\n"
    "__global__ void @_dist_box_(@_real *packed, @_real *padded, int to_packed, long long P0, long long P1,\n"
    "    int x0, int y0, int z0, int bx, int by, long long total)\n"
    "{\n"
    "    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;\n"
    "         t += (long long)gridDim.x * blockDim.x) {\n"
    "        const long long i = t % bx, j = t / bx % by, k = t / ((long long)bx * by);\n"
    "        const long long g = ((z0 + k) * P1 + (y0 + j)) * P0 + (x0 + i);\n"
    "        if (to_packed)\n"
    "            packed[t] = padded[g];\n"
    "        else\n"
    "            padded[g] = packed[t];\n"
    "    }\n"
    "}\n"
    "\n"
    "/* The exchanged slab of axis a in a local buffer: layers [first, first + width) along a, the\n"
    " * full padded extent of the other axes. */\n"
    "static cudaError_t @_dist_slab_(const @_dist *d, @_real *packed, @_real *buf, int to_packed, int a,\n"
    "    int first, cudaStream_t stream)\n"
    "{\n"
    "    long long P[3];\n"
    "    int org[3] = {0, 0, 0}, ext[3];\n"
    "    for (int o = 0; o < 3; o++) {\n"
    "        P[o] = (long long)d->local[o] + 2 * @_DIST_HALO_[o];\n"
    "        ext[o] = (int)P[o];\n"
    "    }\n"
    "    org[a] = first;\n"
    "    ext[a] = d->width[a];\n"
    "    const long long total = (long long)ext[0] * ext[1] * ext[2];\n"
    "    const long long blocks = (total + 255) / 256 < 65535 * 16 ? (total + 255) / 256 : 65535 * 16;\n"
    "    @_dist_box_<<<(unsigned)(blocks > 0 ? blocks : 1), 256, 0, stream>>>(packed, buf, to_packed, P[0], P[1],\n"
    "        org[0], org[1], org[2], ext[0], ext[1], total);\n"
    "    return cudaGetLastError();\n"
    "}\n"
    "\n",
    "/* A rank alone along axis a (periodic): the owned layers next to each face fill the halo\n"
    " * beyond the other face in one pass within the buffer, as the exchange between ranks would.\n"
    " * Slab element (i, j, k): i < e0 along array axis 0, j < e1 along axis 1, k along axis 2. */\n"
    "__global__ void @_dist_wrap_(@_real *buf, unsigned e0, unsigned e1, long long e2, long long P0, long long P01,\n"
    "    long long from0, long long to0, long long from1, long long to1)\n"
    "{\n"
    "    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= e0 * e1)\n"
    "        return;\n"
    "    const long long from = blockIdx.z ? from1 : from0, to = blockIdx.z ? to1 : to0;\n"
    "    for (long long k = blockIdx.y; k < e2; k += gridDim.y) {\n"
    "        const long long at = (long long)(t % e0) + (long long)(t / e0) * P0 + k * P01;\n"
    "        buf[to + at] = buf[from + at];\n"
    "    }\n"
    "}\n"
    "\n"
    "/* The slab of axis a in a local buffer: its extents e (layers [0, width) along a, the full\n"
    " * padded extent of the others), the buffer's padded extents P and strides st. */\n"
    "static void @_dist_slab_shape_(const @_dist *d, int a, long long P[3], long long e[3], long long st[3])\n"
    "{\n"
    "    for (int o = 0; o < 3; o++) {\n"
    "        P[o] = (long long)d->local[o] + 2 * @_DIST_HALO_[o];\n"
    "        e[o] = o == a ? d->width[a] : P[o];\n"
    "    }\n"
    "    st[0] = 1;\n"
    "    st[1] = P[0];\n"
    "    st[2] = P[0] * P[1];\n"
    "}\n"
    "\n"
    "static cudaError_t @_dist_wrap_axis_(const @_dist *d, @_real *buf, int a, const int send_first[2],\n"
    "    const int recv_first[2], cudaStream_t stream)\n"
    "{\n"
    "    long long P[3], e[3], st[3];\n"
    "    @_dist_slab_shape_(d, a, P, e, st);\n"
    "    const unsigned plane = (unsigned)(e[0] * e[1]);\n"
    "    const dim3 grid((plane + 255) / 256, (unsigned)(e[2] < 65535 ? e[2] : 65535), 2);\n"
    "    @_dist_wrap_<<<grid, 256, 0, stream>>>(buf, (unsigned)e[0], (unsigned)e[1], e[2], P[0], P[0] * P[1],\n"
    "        send_first[0] * st[a], recv_first[1] * st[a], send_first[1] * st[a], recv_first[0] * st[a]);\n"
    "    return cudaGetLastError();\n"
    "}\n"
    "\n"
    "/* Records a failed CUDA or NCCL call's code and gives the status. */\n"
    "static int @_dist_status_(@_dist *d, cudaError_t ce, ncclResult_t ne)\n"
    "{\n"
    "    if (ne != ncclSuccess) {\n"
    "        d->nccl_error = ne;\n"
    "        return ^_DIST_NCCL;\n"
    "    }\n"
    "    if (ce != cudaSuccess) {\n"
    "        d->cuda_error = ce;\n"
    "        return ^_DIST_CUDA;\n"
    "    }\n"
    "    return ^_DIST_OK;\n"
    "}\n"
    "\n"
    "/* The two faces of axis a in the local buffers: the first layer sent and received on each\n"
    " * side (low, high), the peer there, and whether it is a face of the global grid. */\n"
    "typedef struct {\n"
    "    int send_first[2], recv_first[2], peer[2], at_global[2];\n"
    "} @_faces_;\n"
    "\n"
    "static void @_dist_faces_(const @_dist *d, int a, @_faces_ *f)\n"
    "{\n"
    "    const int own = @_DIST_HALO_[a] + d->ext_lo[a], w = d->width[a];\n"
    "    f->send_first[0] = own;\n"
    "    f->send_first[1] = own + d->n[a] - w;\n"
    "    f->recv_first[0] = own - w;\n"
    "    f->recv_first[1] = own + d->n[a];\n"
    "    f->peer[0] = d->peer_lo[a];\n"
    "    f->peer[1] = d->peer_hi[a];\n"
    "    f->at_global[0] = d->coords[a] == 0;\n"
    "    f->at_global[1] = d->coords[a] == d->procs[a] - 1;\n"
    "}\n"
    "\n",
    "typedef struct {\n"
    "    @_real *buf;\n"
    "    int periodic; /* the axes (bit a) on which its global faces are exchanged */\n"
    "} @_xfield_;\n"
    "\n",
    "/* Exchanges the slabs of axis a of the buffers x[0..nx): the owned layers next to each face\n"
    " * go to the neighbour, whose layers fill the halo beyond it. Messages to one peer are posted\n"
    " * in one order on both sides (down, then up), so two messages to the same rank (a periodic\n"
    " * axis of two ranks) match. A rank that is its own neighbour copies within each buffer. */\n"
    "static int @_dist_axis_(@_dist *d, const @_xfield_ *x, int nx, int a, cudaStream_t stream)\n"
    "{\n"
    "    @_faces_ fc;\n"
    "    @_dist_faces_(d, a, &fc);\n"
    "    const int *send_first = fc.send_first, *recv_first = fc.recv_first, *peer = fc.peer, *at_global = fc.at_global;\n"
    "    cudaError_t ce = cudaSuccess;\n"
    "    if (peer[0] == d->rank && peer[1] == d->rank) { /* both faces global: periodic fields only */\n"
    "        for (int i = 0; i < nx && ce == cudaSuccess; i++)\n"
    "            if (x[i].periodic >> a & 1)\n"
    "                ce = @_dist_wrap_axis_(d, x[i].buf, a, send_first, recv_first, stream);\n"
    "        return @_dist_status_(d, ce, ncclSuccess);\n"
    "    }\n"
    "    const int w = d->width[a];\n"
    "    @_real *sendb[2] = {(@_real *)d->xbuf_, (@_real *)d->xbuf_ + d->xcount_};\n"
    "    @_real *recvb[2] = {(@_real *)d->xbuf_ + 2 * d->xcount_, (@_real *)d->xbuf_ + 3 * d->xcount_};\n"
    "    size_t slab = (size_t)w, count[2] = {0, 0};\n"
    "    for (int o = 0; o < 3; o++)\n"
    "        if (o != a)\n"
    "            slab *= (size_t)d->local[o] + 2 * @_DIST_HALO_[o];\n"
    "    for (int s = 0; s < 2; s++)\n"
    "        for (int i = 0; i < nx && peer[s] >= 0 && ce == cudaSuccess; i++)\n"
    "            if (!at_global[s] || (x[i].periodic >> a & 1)) {\n"
    "                ce = @_dist_slab_(d, sendb[s] + count[s], x[i].buf, 1, a, send_first[s], stream);\n"
    "                count[s] += slab;\n"
    "            }\n"
    "    ncclResult_t ne = ncclSuccess;\n"
    "    if (ce == cudaSuccess && (count[0] || count[1])) {\n"
    "        ne = ncclGroupStart();\n"
    "        for (int s = 0; s < 2 && ne == ncclSuccess; s++)\n"
    "            if (count[s])\n"
    "                ne = ncclSend(sendb[s], count[s], @_DIST_NCCL_REAL_, peer[s], d->comm, stream);\n"
    "        for (int s = 1; s >= 0 && ne == ncclSuccess; s--)\n"
    "            if (count[s])\n"
    "                ne = ncclRecv(recvb[s], count[s], @_DIST_NCCL_REAL_, peer[s], d->comm, stream);\n"
    "        const ncclResult_t end = ncclGroupEnd();\n"
    "        if (ne == ncclSuccess)\n"
    "            ne = end;\n"
    "    }\n"
    "    for (int s = 0; s < 2 && ce == cudaSuccess && ne == ncclSuccess; s++) {\n"
    "        size_t at = 0;\n"
    "        for (int i = 0; i < nx && peer[s] >= 0 && ce == cudaSuccess; i++)\n"
    "            if (!at_global[s] || (x[i].periodic >> a & 1)) {\n"
    "                ce = @_dist_slab_(d, recvb[s] + at, x[i].buf, 0, a, recv_first[s], stream);\n"
    "                at += slab;\n"
    "            }\n"
    "    }\n"
    "    return @_dist_status_(d, ce, ne);\n"
    "}\n"
    "\n",
    "/* The outermost axis: every slab is contiguous, so it goes from the buffer to the neighbour's\n"
    " * buffer with no packing (the same order of messages as @_dist_axis_). */\n"
    "static int @_dist_axis_direct_(@_dist *d, const @_xfield_ *x, int nx, int a, cudaStream_t stream)\n"
    "{\n"
    "    @_faces_ fc;\n"
    "    @_dist_faces_(d, a, &fc);\n"
    "    const int *send_first = fc.send_first, *recv_first = fc.recv_first, *peer = fc.peer, *at_global = fc.at_global;\n"
    "    const int w = d->width[a];\n"
    "    size_t layer = 1;\n"
    "    for (int o = 0; o < a; o++)\n"
    "        layer *= (size_t)d->local[o] + 2 * @_DIST_HALO_[o];\n"
    "    const size_t count = layer * (size_t)w;\n"
    "    cudaError_t ce = cudaSuccess;\n"
    "    ncclResult_t ne = ncclSuccess;\n"
    "    const int self = peer[0] == d->rank && peer[1] == d->rank, group = !self && (peer[0] >= 0 || peer[1] >= 0);\n"
    "    if (group)\n"
    "        ne = ncclGroupStart();\n"
    "    for (int s = 0; s < 2 && ne == ncclSuccess && ce == cudaSuccess; s++)\n"
    "        for (int i = 0; i < nx && peer[s] >= 0 && ne == ncclSuccess && ce == cudaSuccess; i++)\n"
    "            if (!at_global[s] || (x[i].periodic >> a & 1)) {\n"
    "                @_real *from = x[i].buf + layer * (size_t)send_first[s];\n"
    "                if (self)\n"
    "                    ce = cudaMemcpyAsync(x[i].buf + layer * (size_t)recv_first[1 - s], from, count * sizeof(@_real),\n"
    "                                         cudaMemcpyDeviceToDevice, stream);\n"
    "                else\n"
    "                    ne = ncclSend(from, count, @_DIST_NCCL_REAL_, peer[s], d->comm, stream);\n"
    "            }\n"
    "    for (int s = 1; s >= 0 && group && ne == ncclSuccess; s--)\n"
    "        for (int i = 0; i < nx && peer[s] >= 0 && ne == ncclSuccess; i++)\n"
    "            if (!at_global[s] || (x[i].periodic >> a & 1))\n"
    "                ne = ncclRecv(x[i].buf + layer * (size_t)recv_first[s], count, @_DIST_NCCL_REAL_, peer[s],\n"
    "                              d->comm, stream);\n"
    "    if (group) {\n"
    "        const ncclResult_t end = ncclGroupEnd();\n"
    "        if (ne == ncclSuccess)\n"
    "            ne = end;\n"
    "    }\n"
    "    return @_dist_status_(d, ce, ne);\n"
    "}\n"
    "\n",
    "static int @_dist_exchange_(@_dist *d, const @_xfield_ *x, int nx, cudaStream_t stream)\n"
    "{\n"
    "    for (int a = 0; a < @_DIST_DIMS_; a++)\n"
    "        if (@_dist_exchanges_(d, a)) {\n"
    "            const int st = a == @_DIST_DIMS_ - 1 ? @_dist_axis_direct_(d, x, nx, a, stream)\n"
    "                                                 : @_dist_axis_(d, x, nx, a, stream);\n"
    "            if (st != ^_DIST_OK)\n"
    "                return st;\n"
    "        }\n"
    "    return ^_DIST_OK;\n"
    "}\n"
    "\n"
    "/* Rank r's box in the global padded array (origin and extent per axis): for a scatter, the\n"
    " * part of its local buffer inside the global padded array; for a gather, its owned points\n"
    " * and the halo of the global faces it has. */\n"
    "static long long @_dist_box_of_(const @_dist *d, int r, int gather, int org[3], int ext[3], int lorg[3])\n"
    "{\n"
    "    int n[3], off[3], lo[3], hi[3];\n"
    "    @_dist_layout_(d, r, n, off, lo, hi);\n"
    "    long long total = 1;\n"
    "    for (int a = 0; a < 3; a++) {\n"
    "        const int h = @_DIST_HALO_[a], G = d->global[a] + 2 * h;\n"
    "        int first = off[a] + h, last = off[a] + h + n[a];\n"
    "        if (gather) {\n"
    "            if (off[a] == 0)\n"
    "                first -= h;\n"
    "            if (off[a] + n[a] == d->global[a])\n"
    "                last += h;\n"
    "        } else {\n"
    "            first -= lo[a] + h;\n"
    "            last += hi[a] + h;\n"
    "        }\n"
    "        first = first < 0 ? 0 : first;\n"
    "        last = last > G ? G : last;\n"
    "        org[a] = first;\n"
    "        ext[a] = last - first;\n"
    "        lorg[a] = first - (off[a] + h - lo[a] - h); /* in the local padded buffer */\n"
    "        total *= ext[a];\n"
    "    }\n"
    "    return total;\n"
    "}\n"
    "\n"
    "/* A box copy between a pitched array (extents P, box at org) and a packed one. */\n"
    "static cudaError_t @_dist_copy3d_(void *pitched, const long long P[3], const int org[3], void *packed,\n"
    "    const int ext[3], int to_packed, cudaMemcpyKind kind, cudaStream_t stream)\n"
    "{\n"
    "    cudaMemcpy3DParms m;\n"
    "    memset(&m, 0, sizeof m);\n"
    "    const size_t es = sizeof(@_real);\n"
    "    cudaPitchedPtr wide = make_cudaPitchedPtr(pitched, (size_t)P[0] * es, (size_t)P[0], (size_t)P[1]);\n"
    "    cudaPitchedPtr tight = make_cudaPitchedPtr(packed, (size_t)ext[0] * es, (size_t)ext[0], (size_t)ext[1]);\n"
    "    if (to_packed) {\n"
    "        m.srcPtr = wide;\n"
    "        m.srcPos = make_cudaPos((size_t)org[0] * es, (size_t)org[1], (size_t)org[2]);\n"
    "        m.dstPtr = tight;\n"
    "    } else {\n"
    "        m.srcPtr = tight;\n"
    "        m.dstPtr = wide;\n"
    "        m.dstPos = make_cudaPos((size_t)org[0] * es, (size_t)org[1], (size_t)org[2]);\n"
    "    }\n"
    "    m.extent = make_cudaExtent((size_t)ext[0] * es, (size_t)ext[1], (size_t)ext[2]);\n"
    "    m.kind = kind;\n"
    "    return cudaMemcpy3DAsync(&m, stream);\n"
    "}\n"
    "\n",
    "/* Scatter (gather = 0) or gather through one staging buffer, rank by rank from or to root. */\n"
    "static int @_dist_move_(@_dist *d, @_real *host, @_real *local, int root, int gather, cudaStream_t stream)\n"
    "{\n"
    "    int failed = !d || !d->agree_ || !local || root < 0 || (d && root >= d->nranks) ||\n"
    "                 (d && d->rank == root && !host) ? ^_DIST_INVALID : 0;\n"
    "    if (!d || !d->agree_)\n"
    "        return ^_DIST_INVALID;\n"
    "    int st = @_dist_agree_(d, &root, 1, failed, stream);\n"
    "    if (st != ^_DIST_OK)\n"
    "        return st;\n"
    "    long long G[3], L[3], most = 0;\n"
    "    for (int a = 0; a < 3; a++) {\n"
    "        G[a] = (long long)d->global[a] + 2 * @_DIST_HALO_[a];\n"
    "        L[a] = (long long)d->local[a] + 2 * @_DIST_HALO_[a];\n"
    "    }\n"
    "    int org[3], ext[3], lorg[3];\n"
    "    for (int r = 0; r < d->nranks; r++) {\n"
    "        const long long t = @_dist_box_of_(d, r, gather, org, ext, lorg);\n"
    "        most = t > most ? t : most;\n"
    "    }\n"
    "    @_real *stage = NULL;\n"
    "    cudaError_t ce = cudaMalloc((void **)&stage, (size_t)(most > 0 ? most : 1) * sizeof(@_real));\n"
    "    ncclResult_t ne = ncclSuccess;\n"
    "    const cudaMemcpyKind h2d = cudaMemcpyHostToDevice, d2h = cudaMemcpyDeviceToHost;\n"
    "    for (int r = 0; r < d->nranks && ce == cudaSuccess && ne == ncclSuccess; r++) {\n"
    "        const size_t count = (size_t)@_dist_box_of_(d, r, gather, org, ext, lorg);\n"
    "        const int mine = r == d->rank, at_root = d->rank == root;\n"
    "        if (!mine && !at_root)\n"
    "            continue;\n"
    "        if (gather && mine)\n"
    "            ce = @_dist_copy3d_(local, L, lorg, stage, ext, 1, cudaMemcpyDeviceToDevice, stream);\n"
    "        if (!gather && at_root && ce == cudaSuccess)\n"
    "            ce = @_dist_copy3d_(host, G, org, stage, ext, 1, h2d, stream);\n"
    "        if (r != root && ce == cudaSuccess) {\n"
    "            const int from_me = gather ? mine : at_root;\n"
    "            ne = from_me ? ncclSend(stage, count, @_DIST_NCCL_REAL_, gather ? root : r, d->comm, stream)\n"
    "                         : ncclRecv(stage, count, @_DIST_NCCL_REAL_, gather ? r : root, d->comm, stream);\n"
    "        }\n"
    "        if (gather && at_root && ce == cudaSuccess && ne == ncclSuccess)\n"
    "            ce = @_dist_copy3d_(host, G, org, stage, ext, 0, d2h, stream);\n"
    "        if (!gather && mine && ce == cudaSuccess && ne == ncclSuccess)\n"
    "            ce = @_dist_copy3d_(local, L, lorg, stage, ext, 0, cudaMemcpyDeviceToDevice, stream);\n"
    "        if (ce == cudaSuccess && ne == ncclSuccess)\n"
    "            ce = cudaStreamSynchronize(stream);\n"
    "    }\n"
    "    if (stage)\n"
    "        cudaFree(stage);\n"
    "    failed = ne != ncclSuccess ? ^_DIST_NCCL : ce != cudaSuccess ? ^_DIST_CUDA : 0;\n"
    "    if (ne != ncclSuccess)\n"
    "        d->nccl_error = ne;\n"
    "    else if (ce != cudaSuccess)\n"
    "        d->cuda_error = ce;\n"
    "    return @_dist_agree_(d, &root, 1, failed, stream);\n"
    "}\n"
    "\n",
    "extern \"C\" int @_dist_scatter(@_dist *d, const @_real *global, @_real *local, int root,\n"
    "    cudaStream_t stream)\n"
    "{\n"
    "    return @_dist_move_(d, (@_real *)global, local, root, 0, stream);\n"
    "}\n"
    "\n"
    "extern \"C\" int @_dist_gather(@_dist *d, const @_real *local, @_real *global, int root,\n"
    "    cudaStream_t stream)\n"
    "{\n"
    "    return @_dist_move_(d, global, (@_real *)local, root, 1, stream);\n"
    "}\n"
    "\n",
    NULL};

/* The reflection's copies (a run whose fused steps reflect: api_dist_reflects), printed after
 * DIST_TEMPLATE. */
static const char *const DIST_REFLECT[] = {
    "/* The reflecting global faces of axis a (@_DIST_REFLECT_), face side0 and, with gridDim.z = 2,\n"
    " * the high one too: the layers beyond face s, [first_s, first_s + width) along axis a over the\n"
    " * full padded extent of the others, take the points at padded index m2_s - l along a (l their\n"
    " * own): mirror images about m2_s / 2. Slab element (i, j, k) as in @_dist_wrap_; sa: the\n"
    " * stride of axis a. */\n"
    "__global__ void @_dist_reflect_(@_real *buf, unsigned e0, unsigned e1, long long e2, long long P0,\n"
    "    long long P01, int a, int side0, long long first0, long long m20, long long first1, long long m21,\n"
    "    long long sa)\n"
    "{\n"
    "    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t >= e0 * e1)\n"
    "        return;\n"
    "    const int side = blockIdx.z ? 1 : side0;\n"
    "    const long long first = side ? first1 : first0, m2 = side ? m21 : m20;\n"
    "    for (long long k = blockIdx.y; k < e2; k += gridDim.y) {\n"
    "        const long long c[3] = {t % e0, t / e0, k}, l = first + c[a];\n"
    "        const long long at = c[0] + c[1] * P0 + k * P01 + first * sa;\n"
    "        buf[at] = buf[at + (m2 - 2 * l) * sa];\n"
    "    }\n"
    "}\n"
    "\n"
    "/* The global faces of the buffers x[0..nx), a reflecting boundary's, axis by axis as the\n"
    " * exchange goes: mirror reflects about the edge point (point -k is k), clamp of radius 1 about\n"
    " * the edge's middle (point -1-k is k), as one GPU's fused steps do (opt_temporal_geom.c). */\n"
    "static cudaError_t @_dist_reflect_all_(const @_dist *d, const @_xfield_ *x, int nx, cudaStream_t stream)\n"
    "{\n"
    "    cudaError_t ce = cudaSuccess;\n"
    "    for (int a = 0; a < @_DIST_DIMS_ && @_DIST_REFLECT_ && ce == cudaSuccess; a++) {\n"
    "        @_faces_ f;\n"
    "        @_dist_faces_(d, a, &f);\n"
    "        const int faces = f.at_global[0] + f.at_global[1];\n"
    "        long long P[3], e[3], st[3];\n"
    "        @_dist_slab_shape_(d, a, P, e, st);\n"
    "        const long long own = f.send_first[0], last = f.send_first[1] + d->width[a] - 1;\n"
    "        const long long half = @_DIST_REFLECT_ == 2, m2[2] = {2 * own - half, 2 * last + half};\n"
    "        const unsigned plane = (unsigned)(e[0] * e[1]);\n"
    "        const dim3 grid((plane + 255) / 256, (unsigned)(e[2] < 65535 ? e[2] : 65535), (unsigned)faces);\n"
    "        for (int i = 0; i < nx && faces > 0 && ce == cudaSuccess; i++) {\n"
    "            @_dist_reflect_<<<grid, 256, 0, stream>>>(x[i].buf, (unsigned)e[0], (unsigned)e[1], e[2], P[0],\n"
    "                P[0] * P[1], a, f.at_global[0] ? 0 : 1, f.recv_first[0], m2[0], f.recv_first[1], m2[1], st[a]);\n"
    "            ce = cudaGetLastError();\n"
    "        }\n"
    "    }\n"
    "    return ce;\n"
    "}\n"
    "\n",
    NULL};

/* A short digest of the program and its configuration, so that ranks running different code
 * are told so. */
static unsigned digest(const Api *api)
{
    char cfg[256];
    config_format(&api->plan->config, cfg, sizeof cfg);
    unsigned hsh = 2166136261u;
    const char *parts[3] = {api->prog->name, cfg, api->T};
    for (int i = 0; i < 3; i++)
        for (const char *c = parts[i]; *c; c++)
            hsh = (hsh ^ (unsigned char)*c) * 16777619u;
    return hsh & 0x7fffffff;
}

static void emit_constants(const Api *api, StrBuf *o)
{
    const IrProgram *p = api->prog;
    const char *x = api->pfx;
    int maxf = 0;
    for (int f = 0; f < p->nfields; f++)
        maxf += p->fields[f].role == ROLE_STATE ? p->fields[f].levels : p->fields[f].role == ROLE_COEF;
    sb_printf(o, "/* ---------------------------------------------------------------- distributed runs */\n\n");
    sb_printf(o, "#include <stdio.h>\n\n");
    sb_printf(o, "#define %s_DIST_DIMS_ %d\n", x, p->dims);
    sb_printf(o, "static const int %s_DIST_HALO_[3] = {%d, %d, %d};\n", x, p->halo[0], p->halo[1], p->halo[2]);
    /* (as cg_dist_local_size counts the part) */
    const int *ring = api_dist_held_wraps(api->plan) ? (const int[3]){0, 0, 0} : p->halo;
    sb_printf(o, "/* of the layers received, those in the kernels' halo ring, not in the local interior: none\n"
              " * where the held fused steps wrap the interior (hwrap=on), as they never read the ring */\n"
              "static const int %s_DIST_RING_[3] = {%d, %d, %d};\n", x, ring[0], ring[1], ring[2]);
    sb_printf(o, "/* layers one step reads beyond a point (the sum of its stages' radii) */\n");
    sb_printf(o, "static const int %s_DIST_REACH_[3] = {%d, %d, %d};\n", x, step_reach(p, 0), step_reach(p, 1),
              step_reach(p, 2));
    sb_printf(o, "/* the global faces' layers reflected by a copy before each launch (api_dist_reflects): 0 none,\n"
              " * 1 mirror (about the edge point), 2 clamp (about the edge's middle) */\n"
              "#define %s_DIST_REFLECT_ %d\n", x, api_dist_reflects(api->plan) == BC_MIRROR ? 1
                                                 : api_dist_reflects(api->plan) == BC_CLAMP ? 2 : 0);
    sb_printf(o, "/* the axes (bit a) where a field is periodic, and where periodic and filled ones mix */\n"
              "#define %s_DIST_PERIODIC_AXES_ %d\n", x, any_periodic(p));
    sb_printf(o, "#define %s_DIST_PERIODIC_(a) (%s_DIST_PERIODIC_AXES_ >> (a) & 1)\n", x, x);
    sb_printf(o, "#define %s_DIST_MIXED_ %d\n#define %s_DIST_STAGES_ %d\n", x, depth1_only(p), x, p->nstages);
    sb_printf(o, "/* the step reads x, y or z: beyond a periodic face the layers' coordinates do not wrap */\n"
              "#define %s_DIST_COORDS_ %d\n", x, (ir_program_builtins(p) & IR_USES_COORDS) != 0);
    sb_printf(o, "#define %s_DIST_NCCL_REAL_ %s\n", x, p->type == ELEM_DOUBLE ? "ncclDouble" : "ncclFloat");
    sb_printf(o, "#define %s_DIST_MAXF_ %d\n#define %s_DIST_DIGEST_ %u\n", x, maxf > 0 ? maxf : 1, x, digest(api));
    sb_printf(o, "/* the overlapped step: 0 none, 1 planes of a one-step kernel, 2 chunks of a fused one */\n"
              "#define %s_DIST_OVERLAP_ %d\n\n", x, api_dist_overlap_kind(api->plan));
}

/* The buffers exchanged before the first step (every state buffer and the coefs) or at the
 * start of each later group of steps (the newest buffer of written state fields, and the
 * level before it where a step reads it at an offset or more steps than one are fused).
 * Every buffer, the one a step overwrites too: its interior is written, but its fixed faces'
 * halo is not, and beyond a periodic face (the deep-halo layers and the global halo there)
 * that halo must hold the other end's values, which only the exchange brings; the second step
 * of a group reads it (tests/dist/faces_model.py). */
static void emit_xset(const Api *api, const char *name, int all, StrBuf *o)
{
    const IrProgram *p = api->prog;
    sb_printf(o, "static int %s_xset_%s_(%s_bufs_ *b, %s_xfield_ *x, int depth)\n{\n    int n = 0;\n"
              "    (void)b;\n    (void)x;\n    (void)depth;\n", api->pfx, name, api->pfx, api->pfx);
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        const char *m = api->member[f];
        int per = api_periodic_axes(p, f);
        if (fl->role == ROLE_COEF && all && api_coef_needed(p, f))
            sb_printf(o, "    x[n++] = (%s_xfield_){(%s *)b->%s, %d};\n", api->pfx, api->T, m, per);
        if (fl->role != ROLE_STATE)
            continue;
        if (all || cg_writing_stage(p, f) >= 0)
            sb_printf(o, "    x[n++] = (%s_xfield_){b->%s[0], %d};\n", api->pfx, m, per);
        if (fl->levels > 1 && all)
            sb_printf(o, "    x[n++] = (%s_xfield_){b->%s[1], %d};\n", api->pfx, m, per);
        else if (fl->levels > 2 && cg_writing_stage(p, f) >= 0 && field_read_at(p, f, -1, 0))
            sb_printf(o, "    %sx[n++] = (%s_xfield_){b->%s[1], %d};\n",
                      field_read_at(p, f, -1, 1) ? "" : "if (depth > 1)\n        ", api->pfx, m, per);
        if (fl->levels > 2 && all)
            sb_printf(o, "    x[n++] = (%s_xfield_){b->%s[2], %d};\n", api->pfx, m, per);
    }
    sb_puts(o, "    return n;\n}\n\n");
}

/* NAME_dreflect_ (a run whose fused steps reflect): the reflecting global faces of the buffers
 * a step group reads, axis by axis, before each launch of it (the exchange does not reflect:
 * this pass, after it, also rewrites the layers beyond a reflecting face of the slabs received
 * along a later axis). Without it a launch would read the layers the launch before computed
 * beyond the face, the reflection's values but summed in the mirrored order, where one GPU's
 * launch reads the owned points' own bits (docs/distributed.md). */
static void emit_reflect_now(const Api *api, StrBuf *o)
{
    const char *x = api->pfx;
    put_template(api, DIST_REFLECT, o);
    sb_printf(o, "static cudaError_t %s_dreflect_(%s_bufs_ *b, const %s_dist *dd, cudaStream_t stream)\n{\n"
              "    %s_xfield_ xs[%s_DIST_MAXF_ + 1];\n"
              "    return %s_dist_reflect_all_(dd, xs, %s_xset_group_(b, xs, dd->depth), stream);\n}\n\n",
              x, x, x, x, x, x, x);
}

static void emit_null_checks(const Api *api, StrBuf *o)
{
    const IrProgram *p = api->prog;
    sb_printf(o, "static int %s_dist_fields_ok_(const %s_fields *f)\n{\n    if (!f)\n        return 0;\n",
              api->pfx, api->pfx);
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if (fl->role == ROLE_STATE)
            for (int l = 0; l < fl->levels; l++)
                sb_printf(o, "    if (!f->%s[%d])\n        return 0;\n", api->member[f], l);
        else if (fl->role == ROLE_COEF && api_coef_needed(p, f))
            sb_printf(o, "    if (!f->%s)\n        return 0;\n", api->member[f]);
    }
    sb_puts(o, "    return 1;\n}\n\n");
}

/* The local run: the prologue, the first exchange, then groups of `depth` steps, each after an
 * exchange. After a local error the rank goes on exchanging (with no more steps), so that its
 * peers finish too and the check at the end tells every rank. */
static void emit_local_run(const Api *api, StrBuf *o)
{
    const Plan *plan = api->plan;
    const char *x = api->pfx;
    int separate = plan->single != plan->step && plan->nsingle > 0;
    sb_printf(o, "static cudaError_t %s_dist_local_(%s_dist *dd, %s_fields *f, const %s_params *p, int steps,\n"
              "    void *workspace, cudaStream_t stream, int *xst)\n{\n", x, x, x, x);
    sb_puts(o, "    const int nx = dd->local[0], ny = dd->local[1], nz = dd->local[2];\n"
           "    const int n[3] = {nx, ny, nz};\n    (void)ny;\n    (void)nz;\n");
    api_emit_bind(api, o);
    sb_printf(o, "    %s_xfield_ xs[%s_DIST_MAXF_ + 1];\n", x, x);
    sb_printf(o, "    err = %s_dprologue_(&b, p, n, 0, stream, dd);\n", x);
    sb_printf(o, "    const int nall = %s_xset_all_(&b, xs, dd->depth);\n"
              "    *xst = %s_dist_exchange_(dd, xs, nall, stream);\n", x, x);
    if (api_dist_reflects(plan)) /* the coefs and every buffer, once; the steps' before each launch */
        sb_printf(o, "    if (*xst == 0 && err == cudaSuccess)\n        err = %s_dist_reflect_all_(dd, xs, nall, stream);\n", x);
    /* sent: the halos the next group reads are on their way (the first exchange, or the one of
     * the overlapped launch before) */
    sb_printf(o, "    for (int left = steps, sent = 1; left > 0 && *xst == 0;) {\n"
              "        int group = left < dd->depth ? left : dd->depth;\n"
              "        left -= group;\n"
              "        if (!sent)\n"
              "            *xst = %s_dist_exchange_(dd, xs, %s_xset_group_(&b, xs, dd->depth), stream);\n"
              "        sent = 0;\n", x, x);
    api_emit_dist_overlap_loop(api, o);
    if (plan->step_count > 1)
        sb_printf(o, "        for (; err == cudaSuccess && group >= %d%s; group -= %d)\n"
                  "            err = %s_dstep_(&b, p, n, steps - left - group, stream, dd);\n", plan->step_count,
                  api_fused_fits(api), plan->step_count, x);
    sb_printf(o, "        for (; err == cudaSuccess && group > 0; group--)\n"
              "            err = %s_%s_(&b, p, n, steps - left - group, stream, dd);\n    }\n", x, separate ? "dsingle" : "dstep");
    if (api_dist_reflects(plan)) /* the global faces' halo as one GPU's fills leave it (the gather's) */
        sb_printf(o, "    if (err == cudaSuccess && *xst == 0 && steps > 0)\n        err = %s_dreflect_(&b, dd, stream);\n", x);
    api_emit_unbind(api, o);
    sb_puts(o, "    return err;\n}\n\n");
}

static const char *const DIST_RUN[] = {
    "extern \"C\" int @_dist_run(@_dist *d, @_fields *f, const @_params *p, int steps, void *workspace,\n"
    "    cudaStream_t stream)\n"
    "{\n"
    "    if (!d || !d->agree_)\n"
    "        return ^_DIST_INVALID;\n"
    "    d->message[0] = 0;\n"
    "    int failed = 0;\n"
    "    if (!p || steps < 0 || !@_dist_fields_ok_(f)) {\n"
    "        @_dist_fail_(d, \"NULL fields or parameters, or steps < 0\");\n"
    "        failed = ^_DIST_INVALID;\n"
    "    }\n"
    "    int st = @_dist_agree_(d, &steps, 1, failed, stream);\n"
    "    if (st != ^_DIST_OK)\n"
    "        return st;\n"
    "    int xst = ^_DIST_OK;\n"
    "    const cudaError_t ce = @_dist_local_(d, f, p, steps, workspace, stream, &xst);\n"
    "    failed = xst;\n"
    "    if (!failed && ce != cudaSuccess) {\n"
    "        d->cuda_error = ce;\n"
    "        failed = ^_DIST_CUDA;\n"
    "    }\n"
    "    return @_dist_agree_(d, &steps, 1, failed, stream);\n"
    "}\n",
    NULL};

void api_emit_dist_source(const Api *api, StrBuf *cu)
{
    const Plan *plan = api->plan;
    emit_constants(api, cu);
    emit_sided_fills(api, cu);
    api_emit_dist_overlap_fits(api, cu);
    put_template(api, DIST_TEMPLATE, cu);
    emit_xset(api, "all", 1, cu);
    emit_xset(api, "group", 0, cu);
    emit_null_checks(api, cu);
    api_emit_group(api, "dprologue", plan->prologue, plan->nprologue, 1, cu);
    const int reflects = api_dist_reflects(plan) ? 2 : 1;
    if (reflects == 2)
        emit_reflect_now(api, cu);
    api_emit_group(api, "dstep", plan->step, plan->nstep, reflects, cu);
    if (plan->single != plan->step && plan->nsingle > 0)
        api_emit_group(api, "dsingle", plan->single, plan->nsingle, reflects, cu);
    api_emit_dist_overlap(api, cu);
    emit_local_run(api, cu);
    put_template(api, DIST_RUN, cu);
    api_emit_dist_reduce_source(api, cu);
}

int cg_dist_local_size(const IrProgram *p, const long global[3], const long procs[3], int depth, int reflects,
                       int held_wraps, long local[3], char *why, int whylen)
{
    for (int a = 0; a < 3; a++) {
        local[a] = global[a];
        if (a >= p->dims) {
            if (procs[a] != 1) {
                snprintf(why, (size_t)whylen, "the process grid splits axis %c, which the %dD grid does not have",
                         "xyz"[a], p->dims);
                return -1;
            }
            continue;
        }
        const long width = (long)depth * step_reach(p, a);
        const int wraps = (any_periodic(p) >> a & 1) || reflects; /* both global faces have layers */
        const int exchanges = width > 0 && (procs[a] > 1 || wraps);
        const long need = width + (reflects == BC_MIRROR); /* as NAME_dist_check_args_ */
        if (exchanges && global[a] / procs[a] < need) {
            snprintf(why, (size_t)whylen, "a part of %ld points along %c is thinner than the %ld layers it must "
                     "send or reflect (depth %d x reach %d)", global[a] / procs[a], "xyz"[a], need, depth,
                     step_reach(p, a));
            return -1;
        }
        /* the largest part, with the most faces that compute layers again (NAME_dist_layout_;
         * the layers in the kernels' halo ring, NAME_DIST_RING_, are not computed) */
        const long ext = exchanges ? width - (held_wraps ? 0 : p->halo[a]) : 0;
        const long faces = wraps ? 2 : procs[a] - 1 < 2 ? procs[a] - 1 : 2;
        local[a] = (global[a] + procs[a] - 1) / procs[a] + faces * ext;
    }
    return 0;
}

/* Whether the step kernel's threads each compute CG_DIST_LONG_POINTS points or more: a tile's
 * points over its threads, times the steps the launch fuses. */
static int long_blocks(const Plan *plan)
{
    if (plan->nstep < 1)
        return 0;
    const PlanLaunch *l = &plan->step[0];
    double points = l->steps > 1 ? l->steps : 1;
    for (int d = 0; d < 3; d++)
        points *= (l->tile[d] > 0 ? l->tile[d] : 1) / (double)(l->block[d] > 0 ? l->block[d] : 1);
    return points >= CG_DIST_LONG_POINTS;
}

void cg_dist_traits(const Plan *plan, CgDistTraits *t)
{
    const IrProgram *p = plan->prog;
    for (int a = 0; a < 3; a++)
        t->reach[a] = step_reach(p, a);
    t->periodic = any_periodic(p);
    t->reflects = api_dist_reflects(plan);
    t->held_wraps = api_dist_held_wraps(plan);
    t->depth1_only = depth1_only(p);
    t->overlap_able = api_dist_overlap_kind(plan);
    for (int a = 0; a < 3; a++)
        t->block_tile[a] = t->overlap_able != CG_OVERLAP_NONE ? api_dist_overlap_tile(plan, a) : 0;
    t->tblock = plan->step_count > 1 ? plan->step_count : 1;
    t->long_blocks = long_blocks(plan);
}

/* As emit_xset's group set counts them. */
int cg_dist_group_buffers(const IrProgram *p, int depth)
{
    int n = 0;
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if (fl->role != ROLE_STATE || cg_writing_stage(p, f) < 0)
            continue;
        n++;
        if (fl->levels > 2 && field_read_at(p, f, -1, 0) && (depth > 1 || field_read_at(p, f, -1, 1)))
            n++;
    }
    return n > 0 ? n : 1;
}
