/* Internal to the tile pass's builder (opt_tile.c, opt_tile_stage.c). */
#ifndef STC_OPT_TILE_BUILD_H
#define STC_OPT_TILE_BUILD_H
#include "opt.h"
#include "opt_tile.h"

/* The thread's rank in its block, x fastest. */
KExpr *tile_thread_rank(Kb *b, const TileGeom *g);
/* The cooperative copy of every staged array into shared memory, then a barrier. */
void tile_staging(CgCtx *ctx, KBlock *out, const TileGeom *g, KExpr *s[3]);
/* With cmem on: prints the stage's __constant__ array of non-trivial constants and returns a copy
 * of p whose stage reads them as parameters p_<name>_c[k] (p itself when there are none). */
const IrProgram *tile_constants_to_cmem(CgCtx *ctx, const IrProgram *p, int stage, const char *name);
/* vec > 1: whether the rows (s1 elements) and every buffer of args start on a vector boundary
 * (the grid and the pointers come from the caller at run time). */
KExpr *tile_vector_check(CgCtx *ctx, const TileGeom *g, const CgArgs *args, KExpr *s[3]);
/* hcol=on: the halo columns of the block's rows stored again (nothing when no field qualifies). */
void tile_halo_columns(CgCtx *ctx, KBlock *out, const TileGeom *g, KExpr *s[3]);

#endif
