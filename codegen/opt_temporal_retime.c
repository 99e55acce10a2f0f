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
#include "opt_temporal_build.h"

#include <stdio.h>

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

/* The builder's view of the kernel: the state field, its weighted sum, copy u, step s. */
typedef struct {
    CgCtx *ctx;
    const TbsGeom *g;
    const CgLinTerm *t;
    int nt, f, u, s;
} Retime;

/* The column's partial sum a<s>_<j> of step s. */
static KExpr *partial(Retime *rt, int s, int j)
{
    return tbs_var(rt->ctx, rt->g, arena_printf(rt->ctx->arena, "a%d_%d", s, j));
}

/* a<s>_<j> += weight * r */
static KStmt *accumulate(Retime *rt, int j, const CgLinTerm *t)
{
    Kb *b = &rt->ctx->kb;
    return k_assign_add(b, partial(rt, rt->s, j), k_mul(b, cg_lin_weight(rt->ctx, t), k_var(b, "r")));
}

/* The value at in-plane offset off of the plane step s-1 wrote in the previous copy (queue
 * position prev): the column's own register, another column's of the same thread (written with
 * its ring slot), else the ring through rd. */
static KExpr *newest(Retime *rt, const int off[3], int prev)
{
    Kb *b = &rt->ctx->kb;
    KExpr *own = tbs_own_register(rt->ctx, rt->g, off, rt->f, rt->s - 1, prev);
    return own ? own : k_index(b, k_var(b, "rd"), k_int(b, tbs_inplane_offset(rt->g, off)));
}

/* Where the column's in-plane neighbours are in the tile: the plane step s-1 wrote in the
 * previous copy, the own column and the thread's other columns from their queue registers
 * (newest), the rest through rd (that plane of step s-1's ring at the column). Each distinct in-plane offset is read once, as r, and added
 * to the partial sum of every plane its terms feed. */
static void add_plane(Retime *rt, KBlock *out)
{
    CgCtx *ctx = rt->ctx;
    const TbsGeom *g = rt->g;
    Kb *b = &ctx->kb;
    int s = rt->s, prev = (rt->u + g->Q - 1) % g->Q;
    KStmt *inner = k_if(b, tbs_var(ctx, g, "col_inner"));
    KExpr *ring = k_add(b, k_varf(b, "tbs%d_%d", rt->f, s - 1), k_int(b, (long long)((rt->u + 1) % 2) * g->plane));
    tb_pointer(ctx, &inner->body, KQ_CONST, "rd", k_add(b, ring, tbs_var(ctx, g, "lcol")));
    char *done = arena_alloc(ctx->arena, (size_t)rt->nt + 1);
    int neighbours = 0;
    for (int i = 0; i < rt->nt; i++) {
        if (done[i] || rt->t[i].c == 0)
            continue;
        KExpr *r = newest(rt, rt->t[i].off, prev);
        neighbours += r->kind == KE_INDEX;
        KStmt *term = k_scope(b);
        k_let(b, &term->body, ctx->T, "r", r);
        for (int j = i; j < rt->nt; j++) {
            if (done[j] || rt->t[j].c == 0 || !same_inplane(g, rt->t[i].off, rt->t[j].off))
                continue;
            done[j] = 1;
            k_push(b, &term->body, accumulate(rt, g->R - rt->t[j].off[g->sd], &rt->t[j]));
        }
        k_push(b, &inner->body, term);
    }
    if (!neighbours) /* a step that reads along the axis only */
        tb_may_go_unused(ctx, &inner->body, "rd");
    k_push(b, out, inner);
}

/* The completed plane: to the level +1 buffer at the last step, else (or step s-1's value where
 * the point is not interior) into step s's queue and ring. Then the partial sums shift. */
static void complete_plane(Retime *rt, KBlock *out)
{
    CgCtx *ctx = rt->ctx;
    const TbsGeom *g = rt->g;
    Kb *b = &ctx->kb;
    int s = rt->s, R = g->R, pass = (rt->u + g->Q - 1 - R) % g->Q;
    KExpr *done = partial(rt, s, 0);
    if (s == g->K) {
        KStmt *store = k_if(b, tbs_output_plane(ctx, g));
        k_push(b, &store->body, k_assign(b, k_index(b, cg_buf(ctx, rt->f, 1), tbs_plane_index(ctx, g, s, 0)), done));
        k_push(b, out, store);
    } else {
        KExpr *interior = tbs_var(ctx, g, "col_inner");
        if (tbs_wraps(ctx)) {
            tb_may_go_unused(ctx, out, "ps"); /* every plane is computed */
        } else {
            interior = k_and(b, tbs_var(ctx, g, "col_interior"), interior);
            interior = k_and(b, interior, tbs_plane_inside(ctx, g));
        }
        interior = k_let(b, out, "bool", "interior", interior);
        KExpr *passed = tbs_queue(ctx, g, rt->f, s - 1, pass);
        KExpr *v = k_let(b, out, ctx->T, "v", k_select(b, interior, done, passed));
        k_push(b, out, k_assign(b, tbs_queue(ctx, g, rt->f, s, rt->u), v));
        k_push(b, out, k_assign(b, tbs_ring_at(ctx, g, rt->f, s, (long long)(rt->u % 2) * g->plane), v));
    }
    for (int j = 0; j < 2 * R; j++)
        k_push(b, out, k_assign(b, partial(rt, s, j), partial(rt, s, j + 1)));
    k_push(b, out, k_assign(b, partial(rt, s, 2 * R), tb_zero(ctx)));
}

/* Step s of copy u: adds the plane step s-1 wrote in the previous copy to a<s>_*, completes
 * plane p0 - s*Lag, stores it (queue and ring, or global memory at the last step) and shifts. */
static void step(Retime *rt, KBlock *out)
{
    CgCtx *ctx = rt->ctx;
    const TbsGeom *g = rt->g;
    Kb *b = &ctx->kb;
    KStmt *scope = k_scope(b);
    const char *what = arena_printf(ctx->arena, "step %d: adds plane p0 - %d of step %d, completes plane p0 - %d",
                                    rt->s, (rt->s - 1) * g->Lag + 1, rt->s - 1, rt->s * g->Lag);
    k_push(b, &scope->body, k_comment(b, what));
    k_let(b, &scope->body, "int", "ps", k_sub(b, k_var(b, "p0"), k_int(b, rt->s * g->Lag)));
    add_plane(rt, &scope->body);
    complete_plane(rt, &scope->body);
    k_push(b, out, scope);
}

static const char *describe(CgCtx *ctx, int stage, const TbsGeom *g)
{
    return arena_printf(ctx->arena,
                        "stage %d: temporal blocking with streaming along %c and retiming, %d steps per launch. "
                        "In-plane tile %dx%d, output %dx%d; %d output planes per block plus %d at each end; each "
                        "step adds its newest input plane to %d partial sums, a lag of %d planes per step, 2 "
                        "shared planes per step.%s",
                        stage, "xyz"[g->sd], g->K, g->E[0], g->dims >= 3 ? g->E[1] : 1, g->O[0],
                        g->dims >= 3 ? g->O[1] : 1, g->SB, g->K * g->R, 2 * g->R + 1, g->Lag,
                        g->C > 1 ? arena_printf(ctx->arena, " %d columns per thread, adjacent along y.", g->C) : "");
}

/* Column g->col's registers: step s's queue q<f>_<s>_*, its partial sums a<s>_0..a<s>_2R, and
 * the prefetched plane nx<f>. */
static void registers(CgCtx *ctx, KBlock *out, const TbsGeom *g, int f)
{
    Kb *b = &ctx->kb;
    tbs_queue_registers(ctx, out, g, f);
    for (int s = 1; s <= g->K; s++)
        for (int j = 0; j <= 2 * g->R; j++)
            k_push(b, out, k_decl(b, 0, ctx->T, tbs_name(ctx, g, arena_printf(ctx->arena, "a%d_%d", s, j)), tb_zero(ctx)));
    k_push(b, out, k_decl(b, 0, ctx->T, tbs_name(ctx, g, arena_printf(ctx->arena, "nx%d", f)), NULL));
}

KKernel *tbs_build_retime(CgCtx *ctx, int stage, const char *name, const CgArgs *args, const TbsGeom *g,
                          char *why, int whylen)
{
    const IrProgram *p = ctx->prog;
    Retime rt = {ctx, g, NULL, 0, retime_shape(p, why, whylen), 0, 0};
    if (rt.f < 0 || !cg_linear_terms(p, stage, ctx->arena, &rt.t, &rt.nt, why, whylen))
        return NULL;
    KKernel *k = tbs_kernel(ctx, name, args, g, describe(ctx, stage, g));
    KBlock *out = &k->body;
    TbsGeom *cols = tbs_columns(ctx, g);
    for (int c = 0; c < g->C; c++)
        registers(ctx, out, &cols[c], rt.f);
    tbs_load(ctx, out, g, k_var(&ctx->kb, "zload"), 0);
    KStmt *loop = tbs_plane_loop(ctx, out, g);
    for (rt.u = 0; rt.u < g->Q; rt.u++) {
        KBlock *copy = tbs_copy(ctx, loop, g, rt.u, 0);
        tbs_plane_offsets(ctx, copy, g);
        for (rt.s = 1; rt.s <= g->K; rt.s++)
            for (int c = 0; c < g->C; c++) { /* each column's step in a scope of its own */
                rt.g = &cols[c];
                step(&rt, copy);
            }
        rt.g = g;
        k_push(&ctx->kb, copy, k_barrier(&ctx->kb)); /* the copy's only barrier */
    }
    return k;
}
