/* Clamp and mirror (TB_MAP) along the streaming axis of the streaming temporal kernel's checked
 * plane loop (opt_temporal_stream.c): every step computes the halo planes too, and the planes a
 * halo plane takes its value from overwrite it.
 *
 * What this costs in registers depends on how the per-step tests are shaped, not on their number
 * (docs/performance.md, "Fused steps under every boundary condition"). A test of ps in every step
 * that guards a write of the step's own queue register or a read of its ring kept the checked
 * loop at 79-80 registers (3 blocks of 256 threads an SM); one chain of tests of p0 per copy,
 * and per step a compare of a copy-wide value with a constant that selects a copy-wide value,
 * keeps it near the fast loop's. So a copy first finds the one step, if any, whose plane lies
 * past the end (tbs_edge_high_sources), and overwrites the planes before the start once all its
 * steps are done (tbs_edge_low_late). */
#include "opt_temporal_build.h"

/* Copies between a halo plane and its source: plane n-1+h is plane n-1 (clamp) or n-1-h
 * (mirror); plane -h is plane 0 (clamp) or h (mirror). */
static int source_distance(BoundaryKind bc, int h) { return bc == BC_MIRROR ? 2 * h : h; }

/* Position in a queue of the plane `back` copies older than copy u's newest. */
static int position_back(const TbsGeom *g, int u, int back) { return (u + g->Q - back) % g->Q; }

/* A link of a chain of tests: `if (cond) {...}` at *at, the next link going to its else. */
static KBlock *chain_link(Kb *b, KBlock **at, KExpr *cond)
{
    KStmt *when = k_if(b, cond);
    k_push(b, *at, when);
    *at = &when->els;
    return &when->body;
}

static KExpr *high_value(CgCtx *ctx, const TbsGeom *g, int f)
{
    return tbs_var(ctx, g, arena_printf(ctx->arena, "hv%d", f));
}

/* Copy u: hs = p0 - n, and hv<f> the value step s takes where its plane ps = n-1+h (h <= R)
 * lies past the end, that is where hs == s*Lag + h - 1. The planes of a copy's steps lie Lag >=
 * R apart, so at most one step of a copy meets such a plane; its source was computed copies
 * ago, so reading it before the steps run reads what the step would. */
void tbs_edge_high_sources(CgCtx *ctx, KBlock *copy, const TbsGeom *g, int u, BoundaryKind bc)
{
    Kb *b = &ctx->kb;
    TbsGeom *cols = tbs_columns(ctx, g);
    KExpr *hs = k_let(b, copy, "int", "hs", k_sub(b, k_var(b, "p0"), k_var(b, g->sd == 1 ? "n1" : "n2")));
    for (int c = 0; c < g->C; c++)
        for (int f = 0; f < ctx->prog->nfields; f++)
            if (tb_loads(ctx, f))
                k_push(b, copy, k_decl(b, 0, ctx->T, high_value(ctx, &cols[c], f)->name, tb_zero(ctx)));
    KBlock *at = copy;
    for (int s = 1; s < g->K; s++) {
        for (int h = 1; h <= g->R; h++) {
            KBlock *then = chain_link(b, &at, k_bin(b, KO_EQ, hs, k_int(b, s * g->Lag + h - 1)));
            int pos = position_back(g, u, source_distance(bc, h));
            for (int c = 0; c < g->C; c++)
                for (int f = 0; f < ctx->prog->nfields; f++)
                    if (tb_loads(ctx, f))
                        k_push(b, then, k_assign(b, high_value(ctx, &cols[c], f), tbs_queue(ctx, &cols[c], f, s, pos)));
        }
    }
}

/* Step s (column g->col): r<f> = hv<f> where the copy's hs names one of its planes past the end. */
void tbs_edge_high(CgCtx *ctx, KBlock *out, const TbsGeom *g, int s)
{
    Kb *b = &ctx->kb;
    KExpr *hs = k_var(b, "hs");
    int first = s * g->Lag;
    KExpr *at = g->R == 1 ? k_bin(b, KO_EQ, hs, k_int(b, first))
                          : k_and(b, k_bin(b, KO_GE, hs, k_int(b, first)), k_bin(b, KO_LT, hs, k_int(b, first + g->R)));
    KStmt *here = k_if(b, at);
    for (int f = 0; f < ctx->prog->nfields; f++)
        if (tb_loads(ctx, f))
            k_push(b, &here->body, k_assign(b, k_varf(b, "r%d", f), high_value(ctx, g, f)));
    k_push(b, out, here);
}

/* Whether plane -h can wait for the end of the copy that computes its source: the next step
 * computes plane src - Lag in that copy, a halo plane (overwritten in its turn) unless mirror's
 * src = h = Lag, whose plane 0 reads plane -h there. */
static int low_waits(const TbsGeom *g, BoundaryKind bc, int h) { return bc != BC_MIRROR || h < g->Lag; }

/* Queue s's plane `back` copies old := its newest (copy u's), register and ring, every column. */
static void copy_newest(CgCtx *ctx, KBlock *out, const TbsGeom *g, int u, int s, int back)
{
    Kb *b = &ctx->kb;
    TbsGeom *cols = tbs_columns(ctx, g);
    int pos = position_back(g, u, back);
    for (int c = 0; c < g->C; c++) {
        for (int f = 0; f < ctx->prog->nfields; f++) {
            if (!tb_loads(ctx, f))
                continue;
            KExpr *newest = tbs_queue(ctx, &cols[c], f, s, u);
            k_push(b, out, k_assign(b, tbs_queue(ctx, &cols[c], f, s, pos), newest));
            k_push(b, out, k_assign(b, tbs_ring_at(ctx, &cols[c], f, s, (long long)(pos % g->slots) * g->plane), newest));
        }
    }
}

/* End of copy u (before its barrier): the planes -h of the step that computed their source
 * plane in this copy (ps = 0, clamp; ps = h, mirror), one chain of tests of p0 for the copy. */
void tbs_edge_low_late(CgCtx *ctx, KBlock *copy, const TbsGeom *g, int u, BoundaryKind bc)
{
    Kb *b = &ctx->kb;
    KExpr *p0 = k_var(b, "p0");
    KBlock *at = copy;
    for (int s = 1; s < g->K; s++) {
        if (bc != BC_MIRROR) {
            KBlock *then = chain_link(b, &at, k_bin(b, KO_EQ, p0, k_int(b, s * g->Lag)));
            for (int h = 1; h <= g->R; h++)
                copy_newest(ctx, then, g, u, s, h);
            continue;
        }
        for (int h = 1; h <= g->R && low_waits(g, bc, h); h++)
            copy_newest(ctx, chain_link(b, &at, k_bin(b, KO_EQ, p0, k_int(b, s * g->Lag + h))), g, u, s, 2 * h);
    }
}

/* Step s of copy u (column g->col), after its value went to the queue and ring: mirror's plane
 * -Lag (low_waits) from plane Lag, at once. */
void tbs_edge_low_now(CgCtx *ctx, KBlock *out, const TbsGeom *g, int u, int s, BoundaryKind bc)
{
    Kb *b = &ctx->kb;
    for (int h = 1; h <= g->R; h++) {
        if (low_waits(g, bc, h))
            continue;
        int pos = position_back(g, u, source_distance(bc, h));
        KStmt *at = k_if(b, k_bin(b, KO_EQ, k_var(b, "ps"), k_int(b, h)));
        for (int f = 0; f < ctx->prog->nfields; f++) {
            if (!tb_loads(ctx, f))
                continue;
            KExpr *r = k_varf(b, "r%d", f);
            k_push(b, &at->body, k_assign(b, tbs_queue(ctx, g, f, s, pos), r));
            k_push(b, &at->body, k_assign(b, tbs_ring_at(ctx, g, f, s, (long long)(pos % g->slots) * g->plane), r));
        }
        k_push(b, out, at);
    }
}
