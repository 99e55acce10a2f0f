/* Internal to the tile pass: the geometry of a stage kernel under a configuration, shared by the
 * emitter (opt_tile.c) and the space's constraints (pass_tile.c), so that what the constraints
 * measure (shared memory bytes, cached registers, constants) is exactly what is emitted. */
#ifndef STC_OPT_TILE_H
#define STC_OPT_TILE_H
#include "../ir/ir.h"
#include "config.h"

enum { TILE_MAX_ARRAYS = 64 };

/* A (field, level) read by the stage: its offsets span [lo, hi] per axis. Staged in shared
 * memory (with smem on) when some read has a non-zero offset. */
typedef struct {
    int field, level;
    int lo[3], hi[3];
    int staged;       /* lives in shared memory */
    int ext[3];       /* staged: extent of its shared array per axis (tile + hi - lo; 1 beyond dims) */
    int base;         /* staged: first element of its array in the shared memory block */
} TileArray;

typedef struct {
    int dims;
    int tb[3];        /* threads per block */
    int m[3];         /* points per thread (bm x cm; 1 beyond dims) */
    int bm[3];        /* block merge factor: runs of bm adjacent points */
    int step[3];      /* distance between a thread's runs: 1 (block merging only), or tb x bm
                         (cyclic merging, of single points or, along x with vec, of vectors) */
    int uf[3];        /* unroll factor */
    int unrolled[3];  /* the axis' points are enumerated by the generator (uf == m) */
    int tile[3];      /* points per block: tb * m */
    int smem;         /* shared-memory staging on */
    int vec;          /* x points a vector access moves (1: scalar accesses) */
    int shift;        /* the x tiling starts this many points before the grid (halo x mod vec),
                         so that a thread's first point sits on a vector boundary of the row */
    TileArray arr[TILE_MAX_ARRAYS];
    int narr;
    long smem_elems;  /* elements of all staged arrays */
} TileGeom;

/* Whether the tile pass emits a configuration's stage kernels: some tile parameter is on and
 * neither streaming nor temporal blocking is (those passes own their kernels). */
int tile_config_on(const Config *c);
/* The geometry of stage `stage` under c. Returns -1 when the stage reads more than
 * TILE_MAX_ARRAYS (field, level) pairs. */
int tile_geometry(const IrProgram *p, int stage, const Config *c, TileGeom *g);
/* Offset along axis d of a thread's point m (0 <= m < g->m[d]) from its first point: the
 * point's run (m / bm) times step, plus its place in the run (m % bm). */
int tile_point_offset(const TileGeom *g, int d, int m);
/* Shared memory bytes of the stage kernel. */
long tile_smem_bytes(const IrProgram *p, const TileGeom *g);
/* Distinct values a thread of the fast path holds in registers per pass of its point loop:
 * every read of the stage shifted by every generator-unrolled point, deduplicated. */
long tile_cached_values(const IrProgram *p, int stage, const TileGeom *g);
/* Whether a constant goes to constant memory with cmem on (not 0, 1 or -1, and finite: a
 * __constant__ initializer cannot hold the intrinsics that print NaN or infinity). */
int tile_const_nontrivial(double v);
/* Distinct non-trivial constants of the stage (what its __constant__ array holds). */
int tile_const_count(const IrProgram *p, int stage);
/* hcol: whether write w of stage `stage` has its halo columns stored (a 2D or 3D state field
 * with a fixed boundary that the stage also reads at step t, so its newest buffer is at hand). */
int tile_halo_column_field(const IrProgram *p, int stage, int w);
/* Whether the read node n is the value written earlier in the same stage (no load). */
int tile_read_is_alias(const IrProgram *p, const IrStage *st, const IrNode *n);

#endif
