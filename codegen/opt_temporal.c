/* The temporal pass: temporal blocking by overlapped (redundant-halo) tiling in shared memory.
 *
 * One launch advances K = tblock time steps. Thread mapping: one thread per point of the
 * extended tile, so the block shape tb is the extended tile E (E[d] = tb on axis d). A block
 * loads its extended tile of every state field (K*R points beyond its output tile on each side,
 * R = the program's halo on that axis) into shared memory, computes K steps there, ping-ponging
 * between two buffers per field, the valid region shrinking by R per step, and writes the
 * output tile O[d] = E[d] - 2*K*R[d] of step K to the level +1 buffer. Consecutive blocks'
 * output tiles abut, their extended tiles overlap (the redundant halo).
 *
 * Boundary semantics are the interpreter's for `boundary fixed` (space_temporal.c refuses the
 * others): only interior points (global coordinates in [0, n)) are computed; a halo point keeps
 * the value loaded, in both buffers, through every fused step. Coef fields are read-only and are
 * read from global memory (through the read-only cache), so they cost no shared memory.
 *
 * The point computation is emit_kernel.c's cg_emit_point: reads go through the read hook below;
 * the write `f_u_lp1[idx] = ...` of an intermediate step lands in shared memory because the step
 * declares a local pointer of that name (the next buffer) in an inner block, shadowing the
 * kernel's argument, and sets the index to the point's place in the tile. */
#include "opt.h"

#include <stdio.h>
#include <string.h>

int cg_temporal_wants(const Config *c) { return c->v[P_TB] > 1; }

/* The tile geometry of a temporal kernel: extended tile E (= the block), halo R, steps K. */
typedef struct {
    int dims, K;
    int E[3], R[3], O[3];
    long long elems; /* points of the extended tile */
} TbGeom;

static void geom_of(const IrProgram *p, const Config *c, TbGeom *g)
{
    g->dims = p->dims;
    g->K = c->v[P_TB];
    g->elems = 1;
    for (int d = 0; d < 3; d++) {
        g->E[d] = c->v[P_TBX + d];
        g->R[d] = d < p->dims ? p->halo[d] : 0;
        g->O[d] = g->E[d] - 2 * g->K * g->R[d];
        g->elems *= g->E[d];
    }
}

/* The emitter's read hook: state fields from the step's input buffer in shared memory, coef
 * fields from global memory at the point's global index. */
static void read_hook(CgCtx *ctx, const IrNode *n, StrBuf *out)
{
    const IrProgram *p = ctx->prog;
    TbGeom g;
    geom_of(p, ctx->cfg, &g);
    if (p->fields[n->field].role == ROLE_STATE) {
        long long off = n->off[0] + (long long)n->off[1] * g.E[0] + (long long)n->off[2] * g.E[0] * g.E[1];
        sb_printf(out, "tb_in%d[lidx", n->field);
        if (off)
            sb_printf(out, " %c %lld", off < 0 ? '-' : '+', off < 0 ? -off : off);
        sb_puts(out, "]");
        return;
    }
    PlanArg a = {ARG_BUF, n->field, n->level, 0};
    char an[160];
    cg_arg_name(p, &a, an, sizeof an);
    sb_printf(out, "%s[idx", an);
    static const char *const stride[3] = {NULL, "s1", "s2"};
    for (int d = 2; d >= 0; d--) {
        int o = n->off[d];
        if (!o)
            continue;
        int m = o < 0 ? -o : o;
        if (!stride[d])
            sb_printf(out, " %c %d", o < 0 ? '-' : '+', m);
        else if (m == 1)
            sb_printf(out, " %c %s", o < 0 ? '-' : '+', stride[d]);
        else
            sb_printf(out, " %c %d * %s", o < 0 ? '-' : '+', m, stride[d]);
    }
    sb_puts(out, "]");
}

/* Whether this thread's point is computed at fused step `step` (an expression or a literal):
 * an interior point inside the step's valid region (step*R from the tile's edges). */
static void emit_valid(StrBuf *o, const TbGeom *g, const char *step)
{
    static const char *const t[3] = {"tx", "ty", "tz"};
    sb_puts(o, "interior");
    for (int d = 0; d < g->dims; d++) {
        if (!g->R[d])
            continue;
        sb_printf(o, " && (unsigned)(%s - %s * %d) < (unsigned)(%d - %s * %d)", t[d], step, g->R[d],
                  g->E[d], step, 2 * g->R[d]);
    }
}

int cg_emit_stage_temporal(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                           char *why, int whylen)
{
    const IrProgram *p = ctx->prog;
    const Config *c = ctx->cfg;
    TbGeom g;
    geom_of(p, c, &g);
    if (p->nstages != 1) {
        snprintf(why, (size_t)whylen, "tblock: temporal blocking needs a single-stage step");
        return -1;
    }
    for (int d = 0; d < p->dims; d++)
        if (g.O[d] < 1) {
            snprintf(why, (size_t)whylen, "tblock=%d: the output tile along %c is empty", g.K, "xyz"[d]);
            return -1;
        }
    int elem = ir_elem_size(p);
    int nstate = 0;
    for (int f = 0; f < p->nfields; f++)
        nstate += p->fields[f].role == ROLE_STATE;
    long long smem = (long long)nstate * 2 * g.elems * elem;

    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    static const char *const tid[3] = {"tx", "ty", "tz"};
    static const char *const thread_idx[3] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
    static const char *const block_idx[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
    static const char axis_var[3] = {'i', 'j', 'k'};
    sb_printf(o, "/* stage %d: temporal blocking, %d steps per launch. Extended tile %dx%dx%d (one "
              "thread per point), output tile %dx%dx%d, two shared buffers per state field. */\n",
              stage, g.K, g.E[0], g.E[1], g.E[2], g.dims > 0 ? g.O[0] : 1, g.dims > 1 ? g.O[1] : 1,
              g.dims > 2 ? g.O[2] : 1);
    cg_emit_signature(ctx, name, g.E, args);
    sb_puts(o, "    extern __shared__ __align__(16) unsigned char tb_smem[];\n");
    for (int d = 0; d < g.dims; d++) {
        sb_printf(o, "    const int %s = (int)%s;\n", tid[d], thread_idx[d]);
        sb_printf(o, "    const int %c = (int)(%s * %du) + %s - %d;\n", axis_var[d], block_idx[d],
                  g.O[d], tid[d], g.K * g.R[d]);
    }
    cg_emit_strides(ctx);
    sb_puts(o, "    const bool interior = ");
    for (int d = 0; d < g.dims; d++)
        sb_printf(o, "%s%c >= 0 && %c < n%d", d ? " && " : "", axis_var[d], axis_var[d], d);
    sb_puts(o, ";\n    const bool in_buffer = ");
    for (int d = 0; d < g.dims; d++)
        sb_printf(o, "%s%c >= %d && %c < n%d + %d", d ? " && " : "", axis_var[d], -g.R[d], axis_var[d],
                  d, g.R[d]);
    sb_puts(o, ";\n    const long long idx = ");
    if (g.dims >= 3)
        sb_printf(o, "(long long)(k + %d) * s2 + ", g.R[2]);
    if (g.dims >= 2)
        sb_printf(o, "(long long)(j + %d) * s1 + ", g.R[1]);
    sb_printf(o, "(i + %d);\n", g.R[0]);
    sb_puts(o, "    const int lidx = ");
    if (g.dims >= 3)
        sb_printf(o, "(tz * %d + ty) * %d + ", g.E[1], g.E[0]);
    else if (g.dims >= 2)
        sb_printf(o, "ty * %d + ", g.E[0]);
    sb_puts(o, "tx;\n");

    /* Shared buffers: field f's pair at tb_buf<f>, buffer b at + b * elems. */
    int slot = 0;
    for (int f = 0; f < p->nfields; f++) {
        if (p->fields[f].role != ROLE_STATE)
            continue;
        PlanArg a = {ARG_BUF, f, 0, 0};
        char an[160];
        cg_arg_name(p, &a, an, sizeof an);
        sb_printf(o, "    %s *const tb_buf%d = (%s *)tb_smem + %lld;\n", T, f, T, (long long)slot * 2 * g.elems);
        sb_printf(o, "    {\n        const %s v = in_buffer ? %s[idx] : (%s)0;\n", T, an, T);
        sb_printf(o, "        tb_buf%d[lidx] = v;\n        tb_buf%d[lidx + %lld] = v;\n    }\n", f, f, g.elems);
        slot++;
    }
    sb_puts(o, "    __syncthreads();\n");

    CgReadHook saved_hook = ctx->read_hook;
    const char *saved_idx = ctx->idx;
    ctx->stage = stage;
    ctx->read_hook = read_hook;

    /* Steps 1 .. K-1 in shared memory: step s reads buffer (s-1)&1 and writes buffer s&1. */
    sb_printf(o, "#pragma unroll\n    for (int step = 1; step < %d; step++) {\n", g.K);
    sb_puts(o, "        if (");
    emit_valid(o, &g, "step");
    sb_puts(o, ") {\n");
    for (int f = 0; f < p->nfields; f++) {
        if (p->fields[f].role != ROLE_STATE)
            continue;
        PlanArg a = {ARG_BUF, f, 1, 0};
        char an[160];
        cg_arg_name(p, &a, an, sizeof an);
        sb_printf(o, "            const %s *const tb_in%d = tb_buf%d + ((step - 1) & 1) * %lld;\n", T, f, f,
                  g.elems);
        sb_printf(o, "            %s *const %s = tb_buf%d + (step & 1) * %lld; /* shadows the output */\n", T,
                  an, f, g.elems);
        sb_printf(o, "            (void)tb_in%d;\n", f);
    }
    ctx->idx = "lidx";
    cg_emit_point(ctx, "            ");
    sb_puts(o, "        }\n        __syncthreads();\n    }\n");

    /* Step K: from buffer (K-1)&1 to the level +1 buffer in global memory. */
    sb_puts(o, "    if (");
    char kstep[16];
    snprintf(kstep, sizeof kstep, "%d", g.K);
    emit_valid(o, &g, kstep);
    sb_puts(o, ") {\n");
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].role == ROLE_STATE)
            sb_printf(o, "        const %s *const tb_in%d = tb_buf%d + %lld;\n        (void)tb_in%d;\n", T,
                      f, f, ((g.K - 1) & 1) * g.elems, f);
    ctx->idx = "idx";
    cg_emit_point(ctx, "        ");
    sb_puts(o, "    }\n}\n\n");
    ctx->read_hook = saved_hook;
    ctx->idx = saved_idx;

    for (int d = 0; d < 3; d++) {
        l->block[d] = g.E[d];
        l->tile[d] = d < g.dims ? g.O[d] : 1;
        l->axis_of[d] = d;
    }
    l->smem_bytes = (int)smem;
    l->steps = g.K;
    return 0;
}
