/* The temporal pass: temporal blocking by overlapped (redundant-halo) tiling in shared memory.
 *
 * One launch advances K = tblock time steps. A block loads the extended tile E of every state
 * field (its output tile plus K*R points on each side, R = the program's halo on that axis)
 * into shared memory, computes K steps there, ping-ponging between two buffers per field, the
 * valid region shrinking by R per step, and writes the output tile O = E - 2*K*R of step K to
 * the level +1 buffer. Consecutive blocks' output tiles abut; their extended tiles overlap (the
 * redundant halo).
 *
 * Thread mapping (opt_temporal.h): one thread per point of the extended tile along every axis
 * but the last, where each thread covers M points strided by the block (M = tbx/tby in 2D,
 * tby/tbz in 3D, at least 1: a square tile, or a square y-z cross-section), so E = tb with the
 * last axis times M. Several points per thread keep several loads in flight per thread; with
 * one point per thread an SM holds too few bytes in flight to approach the memory bandwidth.
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
#include "opt_temporal.h"

#include <stdio.h>
#include <string.h>

int cg_temporal_wants(const Config *c) { return c->v[P_TB] > 1; }

/* The emitter's read hook: state fields from the step's input buffer in shared memory, coef
 * fields from global memory at the point's global index. */
static void read_hook(CgCtx *ctx, const IrNode *n, StrBuf *out)
{
    const IrProgram *p = ctx->prog;
    TbGeom g;
    cg_temporal_geom(p, ctx->cfg, &g);
    if (p->fields[n->field].role == ROLE_STATE) {
        long long off = n->off[0] + (long long)n->off[1] * g.E[0] + (long long)n->off[2] * g.E[0] * g.E[1];
        sb_printf(out, "tb_in%d[lidx", n->field);
        if (off)
            sb_printf(out, " %c %lld", off < 0 ? '-' : '+', off < 0 ? -off : off);
        sb_puts(out, "]");
        return;
    }
    cg_emit_global_read(ctx, n, "idx", out);
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

/* The coordinates of the thread's point number m (of M along the last axis): tx.., i.., the
 * tile-local index lidx and the global index idx, and whether the point is interior. */
static void emit_point_vars(StrBuf *o, const TbGeom *g, const char *in, int with_buffer)
{
    static const char *const tid[3] = {"tx", "ty", "tz"};
    static const char *const thread_idx[3] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
    static const char *const block_idx[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
    static const char axis_var[3] = {'i', 'j', 'k'};
    for (int d = 0; d < g->dims; d++) {
        if (d == g->L && g->M > 1)
            sb_printf(o, "%sconst int %s = (int)%s + m * %d;\n", in, tid[d], thread_idx[d], g->B[d]);
        else
            sb_printf(o, "%sconst int %s = (int)%s;\n", in, tid[d], thread_idx[d]);
        sb_printf(o, "%sconst int %c = (int)(%s * %du) + %s - %d;\n", in, axis_var[d], block_idx[d],
                  g->O[d], tid[d], g->K * g->R[d]);
    }
    sb_printf(o, "%sconst bool interior = ", in);
    for (int d = 0; d < g->dims; d++)
        sb_printf(o, "%s%c >= 0 && %c < n%d", d ? " && " : "", axis_var[d], axis_var[d], d);
    sb_puts(o, ";\n");
    if (with_buffer) {
        sb_printf(o, "%sconst bool in_buffer = ", in);
        for (int d = 0; d < g->dims; d++)
            sb_printf(o, "%s%c >= %d && %c < n%d + %d", d ? " && " : "", axis_var[d], -g->R[d],
                      axis_var[d], d, g->R[d]);
        sb_puts(o, ";\n");
    }
    sb_printf(o, "%sconst long long idx = ", in);
    if (g->dims >= 3)
        sb_printf(o, "(long long)(k + %d) * s2 + ", g->R[2]);
    if (g->dims >= 2)
        sb_printf(o, "(long long)(j + %d) * s1 + ", g->R[1]);
    sb_printf(o, "(i + %d);\n", g->R[0]);
    sb_printf(o, "%sconst int lidx = ", in);
    if (g->dims >= 3)
        sb_printf(o, "(tz * %d + ty) * %d + ", g->E[1], g->E[0]);
    else if (g->dims >= 2)
        sb_printf(o, "ty * %d + ", g->E[0]);
    sb_printf(o, "tx;\n%s(void)idx;\n%s(void)interior;\n", in, in);
}

static void open_points(StrBuf *o, const TbGeom *g, const char *in)
{
    sb_printf(o, "%s#pragma unroll\n%sfor (int m = 0; m < %d; m++) {\n", in, in, g->M);
}

int cg_emit_stage_temporal(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                           char *why, int whylen)
{
    const IrProgram *p = ctx->prog;
    const Config *c = ctx->cfg;
    if (c->v[P_STREAM] == 2)
        return cg_emit_stage_temporal_stream(ctx, stage, name, args, l, why, whylen);
    TbGeom g;
    cg_temporal_geom(p, c, &g);
    if (p->nstages != 1) {
        snprintf(why, (size_t)whylen, "tblock: temporal blocking needs a single-stage step");
        return -1;
    }
    for (int d = 0; d < p->dims; d++)
        if (g.O[d] < 1) {
            snprintf(why, (size_t)whylen, "tblock=%d: the output tile along %c is empty", g.K, "xyz"[d]);
            return -1;
        }
    long long smem = cg_temporal_smem(p, &g);

    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    sb_printf(o, "/* stage %d: temporal blocking, %d steps per launch. Extended tile %dx%dx%d (%d point%s "
              "per thread along %c), output tile %dx%dx%d, two shared buffers per state field. */\n",
              stage, g.K, g.E[0], g.E[1], g.E[2], g.M, g.M > 1 ? "s" : "", "xyz"[g.L],
              g.dims > 0 ? g.O[0] : 1, g.dims > 1 ? g.O[1] : 1, g.dims > 2 ? g.O[2] : 1);
    cg_emit_signature(ctx, name, g.B, args);
    sb_puts(o, "    extern __shared__ __align__(16) unsigned char tb_smem[];\n");
    cg_emit_strides(ctx);
    /* Shared buffers: field f's pair at tb_buf<f>, buffer b at + b * elems. */
    int slot = 0;
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].role == ROLE_STATE)
            sb_printf(o, "    %s *const tb_buf%d = (%s *)tb_smem + %lld;\n", T, f, T,
                      (long long)slot++ * 2 * g.elems);
    /* Load every state field's extended tile into both buffers (the halo stays in both). */
    open_points(o, &g, "    ");
    emit_point_vars(o, &g, "        ", 1);
    for (int f = 0; f < p->nfields; f++) {
        if (p->fields[f].role != ROLE_STATE)
            continue;
        PlanArg a = {ARG_BUF, f, 0, 0};
        char an[160];
        cg_arg_name(p, &a, an, sizeof an);
        sb_printf(o, "        {\n            const %s v = in_buffer ? %s[idx] : (%s)0;\n", T, an, T);
        sb_printf(o, "            tb_buf%d[lidx] = v;\n            tb_buf%d[lidx + %lld] = v;\n        }\n", f,
                  f, g.elems);
    }
    sb_puts(o, "    }\n    __syncthreads();\n");

    CgReadHook saved_hook = ctx->read_hook;
    const char *saved_idx = ctx->idx;
    ctx->stage = stage;
    ctx->read_hook = read_hook;

    /* Steps 1 .. K-1 in shared memory: step s reads buffer (s-1)&1 and writes buffer s&1. */
    sb_printf(o, "#pragma unroll 1\n    for (int step = 1; step < %d; step++) {\n", g.K);
    open_points(o, &g, "        ");
    emit_point_vars(o, &g, "            ", 0);
    sb_puts(o, "            if (");
    emit_valid(o, &g, "step");
    sb_puts(o, ") {\n");
    for (int f = 0; f < p->nfields; f++) {
        if (p->fields[f].role != ROLE_STATE)
            continue;
        PlanArg a = {ARG_BUF, f, 1, 0};
        char an[160];
        cg_arg_name(p, &a, an, sizeof an);
        sb_printf(o, "                const %s *const tb_in%d = tb_buf%d + ((step - 1) & 1) * %lld;\n", T, f,
                  f, g.elems);
        sb_printf(o, "                %s *const %s = tb_buf%d + (step & 1) * %lld; /* shadows the output */\n",
                  T, an, f, g.elems);
        sb_printf(o, "                (void)tb_in%d;\n", f);
    }
    ctx->idx = "lidx";
    const IrProgram *recip = cg_fast_arith(p, stage, ctx->arena);
    ctx->prog = recip;
    cg_emit_point(ctx, "                ");
    ctx->prog = p;
    sb_puts(o, "            }\n        }\n        __syncthreads();\n    }\n");

    /* Step K: from buffer (K-1)&1 to the level +1 buffer in global memory. */
    open_points(o, &g, "    ");
    emit_point_vars(o, &g, "        ", 0);
    sb_puts(o, "        if (");
    char kstep[16];
    snprintf(kstep, sizeof kstep, "%d", g.K);
    emit_valid(o, &g, kstep);
    sb_puts(o, ") {\n");
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].role == ROLE_STATE)
            sb_printf(o, "            const %s *const tb_in%d = tb_buf%d + %lld;\n            (void)tb_in%d;\n",
                      T, f, f, ((g.K - 1) & 1) * g.elems, f);
    ctx->idx = "idx";
    ctx->prog = recip;
    cg_emit_point(ctx, "            ");
    ctx->prog = p;
    sb_puts(o, "        }\n    }\n}\n\n");
    ctx->read_hook = saved_hook;
    ctx->idx = saved_idx;

    cg_temporal_launch(l, g.B, g.O, g.dims, smem, g.K);
    return 0;
}

/* ---- geometry, shared with space_temporal.c ---- */

void cg_temporal_geom(const IrProgram *p, const Config *c, TbGeom *g)
{
    g->dims = p->dims;
    g->K = c->v[P_TB];
    g->L = p->dims >= 2 ? p->dims - 1 : 0;
    /* Points per thread along the last axis: a square tile in 2D (E_y = E_x), a square y-z
     * cross-section in 3D, so a narrow block still gets a deep tile and every thread keeps
     * several loads in flight. */
    g->M = 1;
    if (p->dims >= 2 && c->v[P_TBX + g->L - 1] > c->v[P_TBX + g->L])
        g->M = c->v[P_TBX + g->L - 1] / c->v[P_TBX + g->L];
    g->elems = 1;
    for (int d = 0; d < 3; d++) {
        g->B[d] = c->v[P_TBX + d];
        g->E[d] = g->B[d] * (d == g->L ? g->M : 1);
        g->R[d] = d < p->dims ? p->halo[d] : 0;
        g->O[d] = g->E[d] - 2 * g->K * g->R[d];
        g->elems *= g->E[d];
    }
}

long long cg_temporal_smem(const IrProgram *p, const TbGeom *g)
{
    return (long long)ir_state_fields(p, NULL) * 2 * g->elems * ir_elem_size(p);
}

void cg_temporal_launch(PlanLaunch *l, const int B[3], const int O[3], int dims, long long smem, int K)
{
    for (int d = 0; d < 3; d++) {
        l->block[d] = B[d];
        l->tile[d] = d < dims ? O[d] : 1;
        l->axis_of[d] = d;
    }
    l->smem_bytes = (int)smem;
    l->steps = K;
}
