/* The temporal pass's tile geometry, shared by its emitter (opt_temporal.c) and its constraints
 * (pass_temporal.c), so that what the space accepts is what the kernel builds. */
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
/* Dynamic shared memory: two buffers of the extended tile per state field. */
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
    int Q;           /* Lag+R+1 planes per queue (retime: R+2 rounded up to even) */
    int retime;      /* retime=on: each step adds its input plane to 2R+1 partial sums */
    int slots;       /* shared-memory planes per ring: Q, or 2 with retime */
    int SB;          /* output planes per block along sd */
    int B[3];        /* the thread block (1 along sd) */
    int E[3];        /* in-plane extended tile (the block), 1 along sd */
    int H[3];        /* the program's halo */
    int O[3];        /* output per block: E - 2*K*H in-plane, SB along sd */
    long long plane; /* points of one in-plane tile */
} TbsGeom;

void cg_temporal_stream_geom(const IrProgram *p, const Config *c, TbsGeom *g);
/* Dynamic shared memory: K rings of `slots` planes per state field. */
long long cg_temporal_stream_smem(const IrProgram *p, const TbsGeom *g);
/* Parts of the streaming temporal kernel shared with its retimed form: the column's coordinates
 * and predicates, and the load of input plane `plane` (an expression) into nx<f>. */
void cg_tbs_emit_column(StrBuf *o, const TbsGeom *g);
void cg_tbs_emit_load(CgCtx *ctx, const TbsGeom *g, const char *plane, const char *indent);
/* Where an in-plane offset (off along the axes other than sd) lies in the shared tile, relative
 * to the own column; 0 for the own column (offsets stay within the halo, so no other is 0). */
long long cg_tbs_inplane_offset(const TbsGeom *g, const int off[3]);
/* Whether the retimed streaming temporal kernel can compute stage 0 of p: one state field, a
 * weighted sum of its reads. Returns 1, or 0 with a reason. */
int cg_temporal_retime_ok(const IrProgram *p, char *why, int whylen);
/* The retimed kernel (opt_temporal_retime.c), called by cg_emit_stage_temporal_stream. */
int cg_emit_temporal_retime(CgCtx *ctx, int stage, const char *name, const CgArgs *args, PlanLaunch *l,
                            const TbsGeom *g, char *why, int whylen);
int cg_emit_stage_temporal_stream(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                                  PlanLaunch *l, char *why, int whylen);

/* A temporal kernel's launch: block B, output tile O along the grid's axes, smem bytes, K steps. */
void cg_temporal_launch(PlanLaunch *l, const int B[3], const int O[3], int dims, long long smem, int K);

#endif
