/* The temporal pass's geometry: the tiles, queues and shared memory of its kernels, which the
 * space's constraints measure too (pass_temporal.c), so that what the space accepts is what
 * the kernel builds; and their launch. */
#include "opt_temporal_build.h"

#include <stdio.h>
#include <string.h>

static int is_state(const IrProgram *p, int f) { return p->fields[f].role == ROLE_STATE; }

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

TbEdge cg_temporal_edge_of(const IrField *f)
{
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 2; s++)
            if (ir_bc(f, a, s).kind != BC_FIXED && ir_bc(f, a, s).kind != BC_CONSTANT)
                return !ir_bc_uniform(f) ? TB_MIXED : ir_bc(f, 0, 0).kind == BC_PERIODIC ? TB_WRAP : TB_MAP;
    return TB_HOLD;
}

static int holds(const IrField *f) { return cg_temporal_edge_of(f) == TB_HOLD; }

/* Whether fused steps under clamp or mirror take the halo as a reflection of the grid (TB_WRAP
 * with that kind): a step symmetric along every axis keeps a reflected extension reflected, so
 * its points are computed like interior ones. Mirror reflects about the edge point (point -k is
 * k, as its halo), clamp of radius 1 about the edge's middle (point -1-k is k; its one halo
 * point is the edge point's copy, as clamp's). A coef field is read at the point's source plus
 * the offset, which is the reflection's value at offset 0 only, so coef fields must be read
 * there. A reflected point's terms are added in another order, so not with --same-bits. */
static int reflects_as(const IrProgram *p, BoundaryKind bc)
{
    if (p->same_bits || (bc != BC_MIRROR && bc != BC_CLAMP))
        return 0;
    for (int d = 0; d < p->dims; d++) {
        if ((bc == BC_CLAMP && p->halo[d] > 1) || !(p->an.symmetric >> d & 1))
            return 0;
        for (int f = 0; f < p->nfields; f++)
            if (!is_state(p, f) && p->fields[f].read && (p->fields[f].lo[d] || p->fields[f].hi[d]))
                return 0;
    }
    return 1;
}

TbEdge cg_temporal_edge(const IrProgram *p, BoundaryKind *kind)
{
    TbEdge edge = TB_HOLD;
    BoundaryKind seen = BC_FIXED;
    for (int f = 0; f < p->nfields; f++) {
        BoundaryKind bc = ir_bc(&p->fields[f], 0, 0).kind;
        if (!is_state(p, f) || holds(&p->fields[f]))
            continue;
        if ((seen != BC_FIXED && seen != bc) || !ir_bc_uniform(&p->fields[f]))
            return TB_MIXED;
        seen = bc;
        edge = bc == BC_PERIODIC || reflects_as(p, bc) ? TB_WRAP : TB_MAP;
    }
    for (int f = 0; f < p->nfields && edge != TB_HOLD; f++)
        if (is_state(p, f) && holds(&p->fields[f]))
            return TB_MIXED;
    if (kind)
        *kind = seen;
    return edge;
}

int cg_temporal_reflects(const IrProgram *p)
{
    BoundaryKind bc = BC_FIXED;
    return cg_temporal_edge(p, &bc) == TB_WRAP && bc != BC_PERIODIC;
}

int cg_temporal_min_extent(const IrProgram *p, const Config *c, int d)
{
    BoundaryKind bc = BC_FIXED;
    TbEdge edge = cg_temporal_edge(p, &bc);
    if (c->v[P_TB] <= 1 || d >= p->dims || edge == TB_HOLD)
        return 0;
    int stream_axis = c->v[P_STREAM] == 2 && d == (p->dims == 3 ? 2 : 1);
    if (bc == BC_MIRROR || cg_temporal_reflects(p) || stream_axis)
        return c->v[P_TB] * (p->halo[d] + 1) + 2;
    return 0;
}

long long cg_temporal_smem(const IrProgram *p, const TbGeom *g)
{
    long long buffers = 0;
    for (int f = 0; f < p->nfields; f++)
        buffers += is_state(p, f) ? (p->fields[f].levels == 3 ? 3 : 2) : 0;
    return buffers * g->elems * ir_elem_size(p);
}

/* The lag between consecutive steps (opt_temporal_stream.c): R when every state read with an
 * in-plane offset is below +R along the axis (and, under mirror, not below 0), else R + 1. */
static int stream_lag(const IrProgram *p, int sd, int R)
{
    const IrStage *st = &p->stages[0];
    BoundaryKind bc = BC_FIXED;
    int mirror = cg_temporal_edge(p, &bc) == TB_MAP && bc == BC_MIRROR;
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        if (n->op != N_READ || !is_state(p, n->field))
            continue;
        int inplane = 0;
        for (int a = 0; a < p->dims; a++)
            inplane |= a != sd && n->off[a] != 0;
        /* mirror: halo plane -h is right once plane h is computed, in the copy where the next
         * step computes plane h - Lag; a read in-plane at -h from plane 0 needs it a copy before */
        if (inplane && (n->off[sd] >= R || (mirror && n->off[sd] < 0)))
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
    for (int f = 0; f < p->nfields; f++) /* step s reads step s-2's plane, written 2*Lag copies ago */
        if (is_state(p, f) && p->fields[f].levels == 3)
            g->Q = 2 * g->Lag + g->R + 1;
    g->slots = g->Q;
    if (c->v[P_RETIME] == 2) { /* opt_temporal_retime.c */
        g->retime = 1;
        g->step_barriers = 0;
        g->Lag = g->R + 1;
        g->Q = (g->R + 3) / 2 * 2;
        g->slots = 2;
    }
    g->SB = c->v[P_SB];
    g->ca = p->dims == 3 ? 1 : 0;
    g->C = c->v[P_BMX + g->ca];
    g->map = cg_temporal_edge(p, NULL) == TB_MAP;
    g->fixups = g->map && g->dims == 2 && g->C > 1;
    g->plane = 1;
    for (int d = 0; d < 3; d++) {
        g->H[d] = d < p->dims ? p->halo[d] : 0;
        g->B[d] = c->v[P_TBX + d];
        g->E[d] = d < p->dims && d != g->sd ? g->B[d] * (d == g->ca ? g->C : 1) : 1;
        g->O[d] = d == g->sd ? g->SB : d < p->dims ? g->E[d] - 2 * g->K * g->H[d] : 1;
        g->plane *= g->E[d];
    }
    g->select = c->v[P_SELECT] == 2 && !g->retime;
    /* 2D: the farthest read reaches R places before the first slot and past the last (below) */
    if (g->select)
        g->pad = g->dims == 2 ? g->H[0] : tbs_inplane_offset(g, g->H);
}

long long cg_temporal_stream_smem(const IrProgram *p, const TbsGeom *g)
{
    long long rings = 0;
    for (int f = 0; f < p->nfields; f++)
        rings += is_state(p, f) ? g->K + (p->fields[f].levels == 3) : 0;
    return (rings * g->slots * g->plane + 2 * g->pad) * ir_elem_size(p);
}

/* floor(a / n) for n > 0 */
static int floor_div(int a, int n) { return a >= 0 ? a / n : -((-a + n - 1) / n); }

/* 2D with C columns a thread: column c of thread t, point x = t*C + c of the tile, lies at slot
 * c*B + t of a plane, so that a warp's stores of one column, and its reads of a neighbouring
 * thread's, are to consecutive slots (no bank conflict). */
static long long slot_2d(const TbsGeom *g, int c, int t) { return (long long)c * g->B[0] + t; }

long long tbs_column_slot(const TbsGeom *g) { return g->dims == 2 ? slot_2d(g, g->col, 0) : 0; }

KExpr *tbs_place_slot(Kb *b, const TbsGeom *g, KExpr *x)
{
    if (g->dims != 2 || g->C == 1)
        return x;
    return k_add(b, k_mul(b, k_bin(b, KO_MOD, x, k_int(b, g->C)), k_int(b, g->B[0])),
                 k_bin(b, KO_DIV, x, k_int(b, g->C)));
}

/* An offset dx from column c of thread t reaches point x + dx: column (c + dx) mod C of thread
 * t + floor((c + dx) / C). */
static long long transposed_offset(const TbsGeom *g, int dx)
{
    int x = g->col + dx, t = floor_div(x, g->C), c = x - t * g->C;
    return slot_2d(g, c, t) - slot_2d(g, g->col, 0);
}

long long tbs_inplane_offset(const TbsGeom *g, const int off[3])
{
    if (g->dims == 2 && g->C > 1)
        return transposed_offset(g, off[0]);
    long long o = 0;
    for (int a = 0, stride = 1; a < g->dims; a++) {
        if (a == g->sd)
            continue;
        o += (long long)off[a] * stride;
        stride *= g->E[a];
    }
    return o;
}

void tb_launch(PlanLaunch *l, const int B[3], const int O[3], int dims, long long smem, int K)
{
    for (int d = 0; d < 3; d++) {
        l->block[d] = B[d];
        l->tile[d] = d < dims ? O[d] : 1;
        l->axis_of[d] = d;
    }
    l->smem_bytes = (int)smem;
    l->steps = K;
}

int cg_temporal_columns_ok(const IrProgram *p, const Config *c, char *why, int whylen)
{
    int x = c->v[P_BMX], y = c->v[P_BMY], z = c->v[P_BMZ];
    if (x == 1 && y == 1 && z == 1)
        return 1;
    if (!p || p->dims == 3 ? x != 1 || z != 1 : y != 1 || z != 1) {
        snprintf(why, (size_t)whylen, "bm=%dx%dx%d with tblock=%d and stream: a streaming temporal thread holds "
                 "several columns adjacent along y in 3D (bm=1xCx1), along x in 2D (bm=Cx1)", x, y, z, c->v[P_TB]);
        return 0;
    }
    if (!p || p->dims != 2)
        return 1;
    if (c->v[P_RETIME] == 2) {
        snprintf(why, (size_t)whylen, "bm=%dx1 with tblock=%d and retime=on: the retimed 2D kernel holds one "
                 "column a thread", x, c->v[P_TB]);
        return 0;
    }
    return 1;
}
