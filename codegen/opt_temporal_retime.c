/* The streaming temporal kernel with retiming (stream=on, tblock=K, retime=on), for a step that
 * is a weighted sum of reads of its one state field (a box stencil, most of all).
 *
 * The plain streaming temporal kernel (opt_temporal_stream.c) has each step read the whole
 * (2R+1)^d neighbourhood of a point from its input queue: a 5x5 box reads 20 in-plane neighbours
 * from shared memory per point and step. Here each step s reads only the newest plane of its
 * input (step s-1's output) once: the thread's own column from a register, its in-plane
 * neighbours from shared memory, (2R+1)^(d-1) values, and adds every term to the partial sum of
 * the output plane that needs it (accumulators a<s>_0..a<s>_2R: a term at offset dp along the
 * axis goes to the plane dp below the one read). When the plane R past an output plane has
 * been added, that output is complete: a<s>_0. A 5x5 box reads 4 values from shared memory per
 * point and step instead of 20; a 3x3x3 box 8 instead of 24 (as opt_stream_retime.c does for
 * one step). The sum is re-associated, so results match the plain kernel to rounding.
 *
 * Pipeline: in copy c of the plane loop, step s reads the plane step s-1 wrote in copy c-1 (one
 * copy old, behind the copy's only barrier) and completes plane R below it, so each step lags
 * the one before by Lag = R+1 planes. A step's shared ring needs 2 slots (written in copy c,
 * read in c+1, written again in c+2 behind the barrier of c+1); its register queue holds the
 * own column's last R+2 planes, since a point outside the interior passes through the value of
 * step s-1 at its plane, written R+1 copies ago. The loop is unrolled Q times (R+2 rounded up to
 * even) so that slots and queue positions are constants.
 *
 * Boundary semantics as in opt_temporal_stream.c: interior points are computed, any other point
 * (halo, tile edge) passes its input through; partial sums of planes or columns that are not
 * valid are never used by a valid output. */
#include "opt_stream.h"
#include "opt_temporal.h"

#include <stdio.h>
#include <string.h>

/* One stage updating one state field and reading nothing else; the field, or -1 with a reason. */
static int retime_shape(const IrProgram *p, char *why, int whylen)
{
    int f;
    int nstate = ir_state_fields(p, &f);
    if (p->nstages != 1 || nstate != 1) {
        snprintf(why, (size_t)whylen, "retime with tblock: the retimed temporal kernel fuses steps of one "
                 "stage updating one state field (here %d stage%s, %d state field%s)", p->nstages,
                 p->nstages == 1 ? "" : "s", nstate, nstate == 1 ? "" : "s");
        return -1;
    }
    const IrStage *st = &p->stages[0];
    for (int i = 0; i < st->nnodes; i++)
        if (st->nodes[i].op == N_READ && st->nodes[i].field != f) {
            snprintf(why, (size_t)whylen, "retime with tblock: the step reads %s; the retimed temporal kernel "
                     "accumulates reads of the state field %s only", p->fields[st->nodes[i].field].name,
                     p->fields[f].name);
            return -1;
        }
    return f;
}

int cg_temporal_retime_ok(const IrProgram *p, char *why, int whylen)
{
    return retime_shape(p, why, whylen) >= 0 && cg_stream_linear(p, 0, why, whylen);
}

static int same_inplane(const TbsGeom *g, const int a[3], const int b[3])
{
    for (int d = 0; d < g->dims; d++)
        if (d != g->sd && a[d] != b[d])
            return 0;
    return 1;
}

/* Step s of copy u: adds the plane step s-1 wrote in the previous copy to a<s>_*, completes
 * plane p0 - s*Lag, stores it (queue and ring, or global memory at the last step) and shifts. */
static void emit_step(CgCtx *ctx, const TbsGeom *g, const CgLinTerm *t, int nt, int f, const char *out,
                      int u, int s)
{
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    const char *sdn = g->sd == 1 ? "n1" : "n2";
    const char *in = "            ";
    int R = g->R, Q = g->Q;
    int prev = (u + Q - 1) % Q, pass = (u + Q - 1 - R) % Q;
    sb_printf(o, "%s{ /* step %d: adds plane p0 - %d of step %d, completes plane p0 - %d */\n", in, s,
              (s - 1) * g->Lag + 1, s - 1, s * g->Lag);
    sb_printf(o, "%s    const int ps = p0 - %d;\n", in, s * g->Lag);
    sb_printf(o, "%s    if (col_inner) {\n", in);
    sb_printf(o, "%s        const %s *const rd = tbs%d_%d + %lld + lcol;\n", in, T, f, s - 1,
              (long long)((u + 1) % 2) * g->plane);
    unsigned char done[4096] = {0};
    for (int i = 0; i < nt; i++) {
        if (done[i] || t[i].c == 0)
            continue;
        long long off = cg_tbs_inplane_offset(g, t[i].off);
        if (off == 0)
            sb_printf(o, "%s        {\n%s            const %s r = q%d_%d_%d;\n", in, in, T, f, s - 1, prev);
        else
            sb_printf(o, "%s        {\n%s            const %s r = rd[%lld];\n", in, in, T, off);
        for (int j = i; j < nt; j++) {
            if (done[j] || t[j].c == 0 || !same_inplane(g, t[i].off, t[j].off))
                continue;
            done[j] = 1;
            sb_printf(o, "%s            a%d_%d += ", in, s, R - t[j].off[g->sd]);
            cg_emit_const(o, t[j].c, ctx->prog->type);
            sb_puts(o, " * r;\n");
        }
        sb_printf(o, "%s        }\n", in);
    }
    sb_printf(o, "%s    }\n", in);
    if (s == g->K) {
        sb_printf(o, "%s    if (col_out && ps >= zfirst && ps < zstop)\n", in);
        sb_printf(o, "%s        %s[cidx + (long long)(ps + %d) * ssd] = a%d_0;\n", in, out, R, s);
    } else {
        sb_printf(o, "%s    const bool interior = col_interior && col_inner && ps >= 0 && ps < %s;\n", in, sdn);
        sb_printf(o, "%s    const %s v = interior ? a%d_0 : q%d_%d_%d;\n", in, T, s, f, s - 1, pass);
        sb_printf(o, "%s    q%d_%d_%d = v;\n%s    tbs%d_%d[lcol + %lld] = v;\n", in, f, s, u, in, f, s,
                  (long long)(u % 2) * g->plane);
    }
    for (int j = 0; j < 2 * R; j++)
        sb_printf(o, "%s    a%d_%d = a%d_%d;\n", in, s, j, s, j + 1);
    sb_printf(o, "%s    a%d_%d = (%s)0;\n%s}\n", in, s, 2 * R, T, in);
}

int cg_emit_temporal_retime(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                            const TbsGeom *g, char *why, int whylen)
{
    const IrProgram *p = ctx->prog;
    int f = retime_shape(p, why, whylen);
    const CgLinTerm *t = NULL;
    int nt = 0;
    if (f < 0 || !cg_linear_terms(p, stage, ctx->arena, &t, &nt, why, whylen))
        return -1;
    if (nt > 4096) {
        snprintf(why, (size_t)whylen, "retime with tblock: %d terms (at most 4096)", nt);
        return -1;
    }
    char out[160];
    PlanArg oa = {ARG_BUF, f, 1, 0};
    cg_arg_name(p, &oa, out, sizeof out);
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    sb_printf(o, "/* stage %d: temporal blocking with streaming along %c and retiming, %d steps per launch. "
              "In-plane tile %dx%d, output %dx%d; %d output planes per block plus %d at each end; each "
              "step adds its newest input plane to %d partial sums, a lag of %d planes per step, 2 "
              "shared planes per step. */\n",
              stage, "xyz"[g->sd], g->K, g->E[0], g->dims >= 3 ? g->E[1] : 1, g->O[0],
              g->dims >= 3 ? g->O[1] : 1, g->SB, g->K * g->R, 2 * g->R + 1, g->Lag);
    cg_emit_signature(ctx, name, g->B, args);
    sb_puts(o, "    extern __shared__ __align__(16) unsigned char tb_smem[];\n");
    cg_emit_strides(ctx);
    for (int s = 0; s < g->K; s++)
        sb_printf(o, "    %s *const tbs%d_%d = (%s *)tb_smem + %lld;\n", T, f, s, T,
                  (long long)s * g->slots * g->plane);
    cg_tbs_emit_column(o, g);
    for (int s = 0; s < g->K; s++) {
        sb_printf(o, "    %s", T);
        for (int q = 0; q < g->Q; q++)
            sb_printf(o, "%s q%d_%d_%d = (%s)0", q ? "," : "", f, s, q, T);
        sb_puts(o, ";\n");
    }
    for (int s = 1; s <= g->K; s++) {
        sb_printf(o, "    %s", T);
        for (int j = 0; j <= 2 * g->R; j++)
            sb_printf(o, "%s a%d_%d = (%s)0", j ? "," : "", s, j, T);
        sb_puts(o, ";\n");
    }
    sb_printf(o, "    %s nx%d;\n", T, f);
    cg_tbs_emit_load(ctx, g, "zload", "    ");
    sb_printf(o, "    for (int it = 0; it < count; it += %d) {\n", g->Q);
    for (int u = 0; u < g->Q; u++) {
        sb_printf(o, "        { /* copy %d */\n", u);
        if (u)
            sb_printf(o, "            if (it + %d >= count)\n                break;\n", u);
        sb_printf(o, "            const int p0 = zload + it + %d;\n", u);
        sb_printf(o, "            q%d_0_%d = nx%d;\n            tbs%d_0[lcol + %lld] = nx%d;\n", f, u, f, f,
                  (long long)(u % 2) * g->plane, f);
        cg_tbs_emit_load(ctx, g, "p0 + 1", "            ");
        for (int s = 1; s <= g->K; s++)
            emit_step(ctx, g, t, nt, f, out, u, s);
        sb_puts(o, "            __syncthreads(); /* the copy's only barrier */\n        }\n");
    }
    sb_puts(o, "    }\n}\n\n");
    cg_temporal_launch(l, g->B, g->O, g->dims, cg_temporal_stream_smem(p, g), g->K);
    return 0;
}
