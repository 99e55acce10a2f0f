/* The temporal pass's geometry, shared by its builders (opt_temporal*.c, opt_temporal_build.h)
 * and its constraints (pass_temporal.c), so that what the space accepts is what the kernel
 * builds. */
#ifndef STC_OPT_TEMPORAL_H
#define STC_OPT_TEMPORAL_H
#include "opt.h"

typedef struct {
    int dims, K;  /* K = tblock: steps fused per launch */
    int L, M;     /* each thread covers M points along axis L (the last axis), strided by B[L] */
    int B[3];     /* the thread block */
    int E[3];     /* the extended tile: B, times M along L */
    int R[3];     /* the program's halo */
    int O[3];     /* the output tile: E - 2*K*R */
    long long elems; /* points of the extended tile */
} TbGeom;

void cg_temporal_geom(const IrProgram *p, const Config *c, TbGeom *g);

/* How fused steps treat the points outside the grid, by the state fields' boundary condition:
 * TB_HOLD (fixed, constant, in any mix of faces) keeps the loaded halo through every step, as
 * the halo fills between steps would; TB_WRAP (periodic; clamp of radius 1 and mirror where the
 * step is symmetric along every axis) loads the grid's wrapped (reflected) copies and computes
 * them like interior points; TB_MAP (clamp, mirror) computes a halo point as the interior point
 * its condition names. TB_MIXED: state fields of two of these classes, clamp beside mirror, or a
 * field whose faces differ and are not all fixed or constant (no kernel). *kind is the condition
 * of TB_WRAP and TB_MAP, the same on every face. */
typedef enum { TB_HOLD, TB_WRAP, TB_MAP, TB_MIXED } TbEdge;
TbEdge cg_temporal_edge(const IrProgram *p, BoundaryKind *kind);
/* Whether fused steps take clamp or mirror as a reflection of the grid (TB_WRAP with that kind:
 * a symmetric step, opt_temporal_geom.c), which a distributed run's held part cannot take. */
int cg_temporal_reflects(const IrProgram *p);
/* The class of one field's faces (TB_MIXED: they differ and are not all fixed or constant). */
TbEdge cg_temporal_edge_of(const IrField *f);
/* The fewest points along axis d on which c's fused steps are exact, 0 for any: the fast
 * reflections and wraps of opt_temporal_common.c's tb_source reach one grid's length past an
 * edge, and the streaming kernels' planes reach tblock*(halo+1)+1 past it. */
int cg_temporal_min_extent(const IrProgram *p, const Config *c, int d);
/* Dynamic shared memory: two buffers of the extended tile per state field (three for a
 * three-level field). */
long long cg_temporal_smem(const IrProgram *p, const TbGeom *g);

/* Temporal blocking with streaming (stream=on plus tblock=K, opt_temporal_stream.c): a block
 * covers an in-plane tile E (the block: tbx in 2D, tbx x tby in 3D) and walks the streaming axis
 * sd (y in 2D, z in 3D) over SB output planes plus K*R planes on each side; each fused step
 * lags the one before by Lag planes and keeps a queue of Q = Lag+R+1 planes (registers for the
 * thread's own column, a shared-memory ring for the in-plane neighbours). */
typedef struct {
    int dims, K, sd;
    int R;           /* halo along sd */
    int Lag;         /* planes between consecutive steps: R for stars and 3D boxes, R+1 for 2D boxes */
    int step_barriers; /* a barrier after every ring write (3D boxes), else one per input plane */
    int Q;           /* Lag+R+1 planes per queue (retime: R+2 rounded up to even; with a
                        three-level field 2*Lag+R+1: step s reads step s-2's plane too) */
    int retime;      /* retime=on: each step adds its input plane to 2R+1 partial sums */
    int slots;       /* shared-memory planes per ring: Q, or 2 with retime */
    int select;      /* select=on: a step computes every column and selects the passed-through
                        value where the point is not computed (no branch) */
    long long pad;   /* points of shared memory before and after the rings: with select, the
                        farthest in-plane read, so that an edge column's reads stay inside */
    int SB;          /* output planes per block along sd */
    int B[3];        /* the thread block (1 along sd) */
    int C;           /* columns per thread, adjacent along ca (3D: y, bm=1xCx1; 2D: x, bm=Cx1) */
    int ca;          /* the axis of the thread's columns: 1 in 3D, 0 in 2D */
    int map;         /* clamp or mirror (TB_MAP): a halo column is read at its source's place
                        (rc_*), which may be any column of the tile */
    int fixups;      /* 2D with C > 1 under clamp or mirror: the fast loop reads as under a fixed
                        edge, the threads at the x faces compute their halo columns again
                        (halo_fixups in opt_temporal_stream.c), the face blocks numbered first */
    int col;         /* the thread's column 0..C-1 a builder's copy of the geometry is for */
    int E[3];        /* in-plane extended tile (the block, times C along ca), 1 along sd */
    int H[3];        /* the program's halo */
    int O[3];        /* output per block: E - 2*K*H in-plane, SB along sd */
    long long plane; /* points of one in-plane tile */
} TbsGeom;

void cg_temporal_stream_geom(const IrProgram *p, const Config *c, TbsGeom *g);
/* Dynamic shared memory: K rings of `slots` planes per state field (K+1 for a three-level
 * field: the loaded older level's too). */
long long cg_temporal_stream_smem(const IrProgram *p, const TbsGeom *g);
/* Whether c's bm is one a streaming temporal thread can take on p: several columns (TbsGeom.C)
 * adjacent along y in 3D (bm=1xCx1), along x in 2D (bm=Cx1: not retimed). 1, or 0 with a
 * reason. */
int cg_temporal_columns_ok(const IrProgram *p, const Config *c, char *why, int whylen);
/* Whether the retimed streaming temporal kernel can compute stage 0 of p: one state field, a
 * weighted sum of its reads. Returns 1, or 0 with a reason. */
int cg_temporal_retime_ok(const IrProgram *p, char *why, int whylen);

#endif
