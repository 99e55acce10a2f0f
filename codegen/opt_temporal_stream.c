/* The temporal pass with streaming (stream=on plus tblock=K): AN5D's high-degree temporal
 * blocking (Matsumura et al., CGO 2020).
 *
 * A block covers an in-plane tile E (x in 2D, x-y in 3D: the thread block, one thread per
 * column) and streams along the streaming axis sd (y in 2D, z in 3D) over its chunk: SB output
 * planes plus K*R planes at each end (R = the halo along sd), recomputed redundantly by the
 * neighbouring chunks. Only the in-plane axes carry a redundant halo: the output tile is
 * E - 2*K*H in-plane.
 *
 * Each of the K fused steps keeps a queue of its input planes (step 0's input is the loaded
 * plane): the thread's own column in registers, the whole in-plane tile in a shared-memory ring
 * (for the in-plane neighbours). When plane p of the input arrives, step 1 computes plane
 * p - L, step 2 plane p - 2L, ..., step K plane p - K*L, which goes to global memory; so the
 * steps form a pipeline down the axis with a lag of L planes per step (TbsGeom.Lag, stream_lag).
 *
 * One __syncthreads per input plane, at the end of the loop's copy, is the only barrier: every
 * shared-memory read is of a plane written in an earlier copy. Step s+1 computes plane
 * P = p - (s+1)L and reads step s's planes P + d, d in [-R, R], which that step wrote L - d
 * copies earlier. The reads from the ring are those with an in-plane offset (the own column is
 * in registers). With L = R + 1 all of them are at least one copy old; a star reads in-plane
 * neighbours only at d < R (its are in the centre plane), so L = R is enough there. A queue
 * holds Q = L + R + 1 planes: the oldest read is L + R copies old, and its slot is written
 * again Q copies after it was, behind the barrier that ends the copy of the last read. (A 3D box
 * keeps L = R and puts a barrier after every plane written to a ring instead, K per input plane,
 * which measured faster there: TbsGeom.step_barriers.)
 *
 * The plane loop is unrolled Q times, so that in copy u every ring position is a constant: the
 * newest plane of every queue lands at position u, the plane written a copies ago at
 * (u - a) mod Q; the registers of a queue are named by position too, so no value moves between
 * registers. The next input plane is loaded one plane ahead (prefetch) to overlap its latency
 * with the K steps' work.
 *
 * Boundary semantics (`boundary fixed`): only interior points are computed at every step; any
 * other point (a halo column, a halo plane, a column at the tile's edge whose neighbours lie
 * outside the tile) passes the previous step's value through unchanged, which for a halo point is
 * the loaded initial value. Columns at the tile's edge are wrong after some steps but lie outside
 * the output tile (E - 2*K*H), as in overlapped tiling; so are the planes a step computes before
 * its inputs have arrived, which no valid plane reads. */
#include "opt_temporal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Where the read hook is: the kernel's geometry (computed once per kernel: the lag looks at every
 * node of the stage), the copy u of the unrolled plane loop, and the step whose input queue
 * reads come from. Plans may be built on several threads at once. */
static _Thread_local struct {
    const TbsGeom *g;
    int u, from;
} tbs_at;

static const char *const thread_var[3] = {"tx", "ty", "tz"};
static const char axis_var[3] = {'i', 'j', 'k'};

static int is_state(const IrProgram *p, int f) { return p->fields[f].role == ROLE_STATE; }

/* The lag between consecutive steps (see the top of the file): R when every state read with an
 * in-plane offset is below +R along the axis, else R + 1. */
static int stream_lag(const IrProgram *p, int sd, int R)
{
    const IrStage *st = &p->stages[0];
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        if (n->op != N_READ || !is_state(p, n->field))
            continue;
        int inplane = 0;
        for (int a = 0; a < p->dims; a++)
            inplane |= a != sd && n->off[a] != 0;
        if (inplane && n->off[sd] >= R)
            return R + 1;
    }
    return R;
}

void cg_temporal_stream_geom(const IrProgram *p, const Config *c, TbsGeom *g)
{
    memset(g, 0, sizeof *g);
    g->dims = p->dims;
    g->K = c->v[P_TB];
    g->sd = p->dims >= 3 ? 2 : 1;
    g->R = p->halo[g->sd];
    int lag = p->nstages >= 1 ? stream_lag(p, g->sd, g->R) : g->R + 1;
    /* A 3D box keeps the lag R and a barrier after every ring write: the extra plane of lag
     * measured 12% slower there (H100, 2026-11-23, tblock=2: box3d1r 201 -> 177 GStencil/s,
     * j3d27pt 200 -> 174), and 2-7% faster in 2D (box2d2r 284 -> 300, j2d9pt-gol 761 -> 782). */
    g->step_barriers = lag > g->R && p->dims >= 3;
    g->Lag = g->step_barriers ? g->R : lag;
    g->Q = g->Lag + g->R + 1;
    g->slots = g->Q;
    if (c->v[P_RETIME] == 2) { /* opt_temporal_retime.c */
        g->retime = 1;
        g->step_barriers = 0;
        g->Lag = g->R + 1;
        g->Q = (g->R + 3) / 2 * 2;
        g->slots = 2;
    }
    g->SB = c->v[P_SB];
    g->plane = 1;
    for (int d = 0; d < 3; d++) {
        g->H[d] = d < p->dims ? p->halo[d] : 0;
        g->B[d] = c->v[P_TBX + d];
        g->E[d] = d < p->dims && d != g->sd ? g->B[d] : 1;
        g->O[d] = d == g->sd ? g->SB : d < p->dims ? g->E[d] - 2 * g->K * g->H[d] : 1;
        g->plane *= g->E[d];
    }
}

long long cg_temporal_stream_smem(const IrProgram *p, const TbsGeom *g)
{
    return (long long)ir_state_fields(p, NULL) * g->K * g->slots * g->plane * ir_elem_size(p);
}

long long cg_tbs_inplane_offset(const TbsGeom *g, const int off[3])
{
    long long o = 0;
    for (int a = 0, stride = 1; a < g->dims; a++) {
        if (a == g->sd)
            continue;
        o += (long long)off[a] * stride;
        stride *= g->E[a];
    }
    return o;
}

/* ---- the kernel ---- */

/* Reads: a state field from the input queue of the step being computed (register for the own
 * column, shared ring otherwise); a coef field from global memory at the plane's index. */
static void stream_read_hook(CgCtx *ctx, const IrNode *n, StrBuf *out)
{
    const IrProgram *p = ctx->prog;
    const TbsGeom g = *tbs_at.g;
    if (is_state(p, n->field)) {
        int d = n->off[g.sd];
        int pos = (tbs_at.u + g.Q - g.Lag + d) % g.Q; /* written Lag - d copies ago */
        long long inplane = cg_tbs_inplane_offset(&g, n->off);
        if (inplane == 0) {
            sb_printf(out, "q%d_%d_%d", n->field, tbs_at.from, pos);
            return;
        }
        long long off = pos * g.plane + inplane;
        sb_printf(out, "tbs%d_%d[lcol %c %lld]", n->field, tbs_at.from, off < 0 ? '-' : '+',
                  off < 0 ? -off : off);
        return;
    }
    cg_emit_global_read(ctx, n, "idx", out);
}

static void arg_name(const IrProgram *p, int f, int level, char *buf, int len)
{
    PlanArg a = {ARG_BUF, f, level, 0};
    cg_arg_name(p, &a, buf, len);
}

/* The column's coordinates and predicates, once per thread. */
void cg_tbs_emit_column(StrBuf *o, const TbsGeom *g)
{
    static const char *const thread_idx[3] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
    static const char *const block_idx[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
    const char *sdn = g->sd == 1 ? "n1" : "n2";
    for (int d = 0; d < g->dims && d < 3; d++) {
        if (d == g->sd)
            continue;
        sb_printf(o, "    const int %s = (int)%s;\n", thread_var[d], thread_idx[d]);
        sb_printf(o, "    const int %c = (int)(%s * %du) + %s - %d;\n", axis_var[d], block_idx[d], g->O[d],
                  thread_var[d], g->K * g->H[d]);
    }
    sb_printf(o, "    const int zfirst = (int)(%s * %du); /* output planes [zfirst, zstop) */\n",
              block_idx[g->sd], g->SB);
    sb_printf(o, "    const int zstop = min(zfirst + %d, %s);\n", g->SB, sdn);
    sb_printf(o, "    const int zload = zfirst - %d; /* first plane loaded */\n", g->K * g->R);
    sb_printf(o, "    const int count = zstop - zload + %d;\n", g->K * g->Lag);
    StrBuf interior = {0}, buffer = {0}, inner = {0}, out = {0};
    sb_puts(&inner, "true");
    sb_puts(&out, "col_interior");
    const char *sep = "";
    for (int d = 0; d < g->dims; d++) {
        if (d == g->sd)
            continue;
        char v = axis_var[d];
        const char *t = thread_var[d];
        sb_printf(&interior, "%s%c >= 0 && %c < n%d", sep, v, v, d);
        sb_printf(&buffer, "%s%c >= %d && %c < n%d + %d", sep, v, -g->H[d], v, d, g->H[d]);
        if (g->H[d]) {
            sb_printf(&inner, " && %s >= %d && %s < %d", t, g->H[d], t, g->E[d] - g->H[d]);
            sb_printf(&out, " && %s >= %d && %s < %d", t, g->K * g->H[d], t, g->E[d] - g->K * g->H[d]);
        }
        sep = " && ";
    }
    sb_printf(o, "    const bool col_interior = %s;\n", interior.data);
    sb_printf(o, "    const bool col_buffer = %s;\n", buffer.data);
    sb_printf(o, "    const bool col_inner = %s; /* in-plane neighbours inside the tile */\n", inner.data);
    sb_printf(o, "    const bool col_out = %s;\n", out.data);
    sb_free(&interior);
    sb_free(&buffer);
    sb_free(&inner);
    sb_free(&out);
    if (g->dims >= 3)
        sb_printf(o, "    const int lcol = ty * %d + tx;\n", g->E[0]);
    else
        sb_puts(o, "    const int lcol = tx;\n");
    sb_puts(o, "    const long long cidx = ");
    if (g->dims >= 3)
        sb_printf(o, "(long long)(j + %d) * s1 + ", g->H[1]);
    sb_printf(o, "(long long)(i + %d);\n", g->H[0]);
    sb_printf(o, "    const long long ssd = %s;\n", g->sd == 1 ? "s1" : "s2");
    sb_puts(o, "    (void)col_inner;\n    (void)lcol;\n");
}

/* Loads input plane `plane` (an expression) of every state field into nx<f>. */
void cg_tbs_emit_load(CgCtx *ctx, const TbsGeom *g, const char *plane, const char *in)
{
    const IrProgram *p = ctx->prog;
    const char *sdn = g->sd == 1 ? "n1" : "n2";
    sb_printf(ctx->src, "%s{\n%s    const int pn = %s;\n", in, in, plane);
    sb_printf(ctx->src, "%s    const bool ld = col_buffer && pn >= %d && pn < %s + %d;\n", in, -g->R, sdn, g->R);
    for (int f = 0; f < p->nfields; f++) {
        if (!is_state(p, f))
            continue;
        char an[160];
        arg_name(p, f, 0, an, sizeof an);
        sb_printf(ctx->src, "%s    nx%d = ld ? %s[cidx + (long long)(pn + %d) * ssd] : (%s)0;\n", in, f, an,
                  g->R, ctx->T);
    }
    sb_printf(ctx->src, "%s}\n", in);
}

/* Step s (1..K) of copy u: computes plane p0 - s*Lag from step s-1's queue, indented by `in`.
 * all_in: every plane the loop computes lies inside the grid along the axis (the loop's fast
 * copy), so only the column decides whether a point is interior. */
static void emit_step(CgCtx *ctx, const IrProgram *recip, const TbsGeom *g, int u, int s, int all_in,
                      const char *in)
{
    const IrProgram *p = ctx->prog;
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    const char *sdn = g->sd == 1 ? "n1" : "n2";
    sb_printf(o, "%s{ /* step %d: plane p0 - %d */\n", in, s, s * g->Lag);
    sb_printf(o, "%s    const int ps = p0 - %d;\n", in, s * g->Lag);
    sb_printf(o, "%s    const long long idx = cidx + (long long)(ps + %d) * ssd;\n%s    (void)idx;\n", in,
              g->R, in);
    tbs_at.u = u;
    tbs_at.from = s - 1;
    const IrProgram *saved = ctx->prog;
    if (s == g->K) {
        sb_printf(o, "%s    if (col_out && ps >= zfirst && ps < zstop) {\n", in);
        ctx->prog = recip;
        ctx->idx = "idx";
        char deeper[80]; /* indents stay far below 64 columns */
        snprintf(deeper, sizeof deeper, "%.64s        ", in);
        cg_emit_point(ctx, deeper);
        ctx->prog = saved;
        sb_printf(o, "%s    }\n%s}\n", in, in);
        return;
    }
    int centre = (u + g->Q - g->Lag) % g->Q;
    if (all_in)
        sb_printf(o, "%s    const bool interior = col_interior;\n", in);
    else
        sb_printf(o, "%s    const bool interior = col_interior && ps >= 0 && ps < %s;\n", in, sdn);
    for (int f = 0; f < p->nfields; f++)
        if (is_state(p, f))
            sb_printf(o, "%s    %s r%d = q%d_%d_%d;\n", in, T, f, f, s - 1, centre);
    sb_printf(o, "%s    if (interior && col_inner) {\n", in);
    for (int f = 0; f < p->nfields; f++) {
        if (!is_state(p, f))
            continue;
        char an[160];
        arg_name(p, f, 1, an, sizeof an);
        sb_printf(o, "%s        %s %s[1]; /* shadows the output: the step's value */\n", in, T, an);
    }
    ctx->prog = recip;
    ctx->idx = "0";
    char deeper[80];
    snprintf(deeper, sizeof deeper, "%.64s        ", in);
    cg_emit_point(ctx, deeper);
    ctx->prog = saved;
    for (int f = 0; f < p->nfields; f++) {
        if (!is_state(p, f))
            continue;
        char an[160];
        arg_name(p, f, 1, an, sizeof an);
        sb_printf(o, "%s        r%d = %s[0];\n", in, f, an);
    }
    sb_printf(o, "%s    }\n", in);
    for (int f = 0; f < p->nfields; f++)
        if (is_state(p, f))
            sb_printf(o, "%s    q%d_%d_%d = r%d;\n%s    tbs%d_%d[lcol + %lld] = r%d;\n", in, f, s, u, f, in, f,
                      s, (long long)u * g->plane, f);
    sb_printf(o, "%s}\n", in);
    if (g->step_barriers)
        sb_printf(o, "%s__syncthreads();\n", in);
}

/* The unrolled plane loop (Q copies), fast (all_in) or checked, indented by `base` more than a
 * kernel body's statements (the 2D kernel has it inside an if/else). */
static void emit_plane_loop(CgCtx *ctx, const IrProgram *recip, const TbsGeom *g, int all_in, const char *base)
{
    const IrProgram *p = ctx->prog;
    StrBuf *o = ctx->src;
    char copy[64], body[64];
    snprintf(copy, sizeof copy, "%s        ", base);
    snprintf(body, sizeof body, "%s            ", base);
    sb_printf(o, "%s    for (int it = 0; it < count; it += %d) {\n", base, g->Q);
    for (int u = 0; u < g->Q; u++) {
        sb_printf(o, "%s{ /* copy %d: the newest plane of every queue at ring position %d */\n", copy, u, u);
        if (u)
            sb_printf(o, "%sif (it + %d >= count)\n%s    break;\n", body, u, body);
        sb_printf(o, "%sconst int p0 = zload + it + %d;\n", body, u);
        for (int f = 0; f < p->nfields; f++)
            if (is_state(p, f))
                sb_printf(o, "%sq%d_0_%d = nx%d;\n%stbs%d_0[lcol + %lld] = nx%d;\n", body, f, u, f, body,
                          f, (long long)u * g->plane, f);
        cg_tbs_emit_load(ctx, g, "p0 + 1", body);
        if (g->step_barriers)
            sb_printf(o, "%s__syncthreads();\n", body);
        for (int s = 1; s <= g->K; s++)
            emit_step(ctx, recip, g, u, s, all_in, body);
        if (!g->step_barriers)
            sb_printf(o, "%s__syncthreads(); /* the copy's only barrier */\n", body);
        sb_printf(o, "%s}\n", copy);
    }
    sb_printf(o, "%s    }\n", base);
}

int cg_emit_stage_temporal_stream(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                                  PlanLaunch *l, char *why, int whylen)
{
    const IrProgram *p = ctx->prog;
    TbsGeom g;
    cg_temporal_stream_geom(p, ctx->cfg, &g);
    if (p->nstages != 1 || p->dims < 2) {
        snprintf(why, (size_t)whylen, "tblock with stream: needs a single-stage step on a 2D or 3D grid");
        return -1;
    }
    for (int d = 0; d < p->dims; d++)
        if (g.O[d] < 1) {
            snprintf(why, (size_t)whylen, "tblock=%d: the output tile along %c is empty", g.K, "xyz"[d]);
            return -1;
        }
    if (g.retime)
        return cg_emit_temporal_retime(ctx, stage, name, args, l, &g, why, whylen);
    const IrProgram *recip = cg_fast_arith(p, stage, ctx->arena);
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    sb_printf(o, "/* stage %d: temporal blocking with streaming along %c, %d steps per launch. In-plane "
              "tile %dx%d, output %dx%d; %d output planes per block plus %d at each end; %d-plane "
              "queues per step (registers + shared ring), a lag of %d plane%s per step. */\n",
              stage, "xyz"[g.sd], g.K, g.E[0], g.dims >= 3 ? g.E[1] : 1, g.O[0], g.dims >= 3 ? g.O[1] : 1,
              g.SB, g.K * g.R, g.Q, g.Lag, g.Lag == 1 ? "" : "s");
    cg_emit_signature(ctx, name, g.B, args);
    sb_puts(o, "    extern __shared__ __align__(16) unsigned char tb_smem[];\n");
    cg_emit_strides(ctx);
    long long slot = 0;
    for (int f = 0; f < p->nfields; f++) {
        if (!is_state(p, f))
            continue;
        for (int s = 0; s < g.K; s++)
            sb_printf(o, "    %s *const tbs%d_%d = (%s *)tb_smem + %lld;\n", T, f, s, T,
                      (slot++) * g.Q * g.plane);
    }
    cg_tbs_emit_column(o, &g);
    /* The queues' registers, by ring position, and the prefetched plane. */
    for (int f = 0; f < p->nfields; f++) {
        if (!is_state(p, f))
            continue;
        for (int s = 0; s < g.K; s++) {
            sb_printf(o, "    %s", T);
            for (int q = 0; q < g.Q; q++)
                sb_printf(o, "%s q%d_%d_%d = (%s)0", q ? "," : "", f, s, q, T);
            sb_puts(o, ";\n");
        }
        sb_printf(o, "    %s nx%d;\n", T, f);
    }
    cg_tbs_emit_load(ctx, &g, "zload", "    ");

    CgReadHook saved_hook = ctx->read_hook;
    const char *saved_idx = ctx->idx;
    ctx->stage = stage;
    ctx->read_hook = stream_read_hook;
    tbs_at.g = &g;
    /* In 2D, two copies of the plane loop: one for a chunk whose every computed plane lies inside
     * the grid along the axis (all but the first and last chunks), without the per-step plane
     * check, and one for the chunks at the ends. H100, 2026-11-23, 1000 steps, same run: j2d5pt
     * 1333 -> 1408 GStencil/s (`tb=256x1,stream=y,sb=256,tblock=12`), star2d2r 748 -> 767,
     * j2d9pt 731 -> 749, star2d1r 1410 -> 1393. In 3D the second copy cost star3d1r 478 -> 379
     * (`tb=32x32x1,stream=z,sb=128,tblock=3`: half its chunks touch an end of a 512 axis, and a
     * 1024-thread block has 64 registers per thread), so 3D keeps the checked loop alone. */
    if (g.dims == 2) {
        int L1 = (g.K - 1) * g.Lag;
        sb_printf(o, "    const bool all_in = zload - %d >= 0 && zstop + %d <= %s; /* no plane check */\n", L1,
                  L1, g.sd == 1 ? "n1" : "n2");
        sb_puts(o, "    if (all_in) {\n");
        emit_plane_loop(ctx, recip, &g, 1, "    ");
        sb_puts(o, "    } else {\n");
        emit_plane_loop(ctx, recip, &g, 0, "    ");
        sb_puts(o, "    }\n}\n\n");
    } else {
        emit_plane_loop(ctx, recip, &g, 0, "");
        sb_puts(o, "}\n\n");
    }
    ctx->read_hook = saved_hook;
    tbs_at.g = NULL;
    ctx->idx = saved_idx;

    cg_temporal_launch(l, g.B, g.O, g.dims, cg_temporal_stream_smem(p, &g), g.K);
    return 0;
}
