/* The temporal pass's tile geometry, shared by its emitter (opt_temporal.c) and its constraints
 * (space_temporal.c), so that what the space accepts is what the kernel builds. */
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

#endif
