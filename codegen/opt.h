/* The builders of the optimization passes: each pass's kernel emitter (opt_*.c). A pass's row
 * (codegen/pass_*.c, listed in passes.c's table) names its builder; plan_build takes the builder
 * of the first pass in the table that applies to the configuration. */
#ifndef STC_OPT_H
#define STC_OPT_H
#include "emit.h"
#include "space.h"

/* ---- kernel emitters ---- */

/* Emits stage `stage` of ctx->prog as kernel `name` with argument list args into ctx->src, and
 * sets the launch geometry of l (block, tile, axis_of, smem_bytes, steps). Returns 0, or -1
 * with a reason in why when this (program, config) cannot be generated: plan_build then fails
 * with that reason (the space's constraints should have excluded it first). */
typedef int (*CgStageEmitter)(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                              PlanLaunch *l, char *why, int whylen);

/* Whether c asks for each pass, which the rows of the table use. cg_tile_wants repeats the
 * precedence (streaming and temporal blocking off); pass_tile.c's row does not need it. */
int cg_temporal_wants(const Config *c);  /* opt_temporal.c: temporal blocking (P_TB > 1) */
int cg_emit_stage_temporal(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                           PlanLaunch *l, char *why, int whylen);
int cg_stream_wants(const Config *c);    /* opt_stream.c: 2.5D streaming (P_STREAM == 2) */
int cg_emit_stage_stream(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                         PlanLaunch *l, char *why, int whylen);
int cg_tile_wants(const Config *c);      /* opt_tile.c: smem, cmem, unroll, merging */
int cg_emit_stage_tile(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                       PlanLaunch *l, char *why, int whylen);

#endif
