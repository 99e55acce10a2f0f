/* The optimization passes. Each lives in its own files: its kernel emitter (opt_*.c) and its
 * part of the tuning space (space_*.c: the values of its parameters and its constraints). The
 * plan builder (plan.c) asks each pass, in order temporal, stream, tile, whether the
 * configuration wants it; the first that does emits the stage kernel, else the plain kernel. */
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

int cg_temporal_wants(const Config *c);  /* opt_temporal.c: temporal blocking (P_TB > 1) */
int cg_emit_stage_temporal(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                           PlanLaunch *l, char *why, int whylen);
int cg_stream_wants(const Config *c);    /* opt_stream.c: 2.5D streaming (P_STREAM == 2) */
int cg_emit_stage_stream(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                         PlanLaunch *l, char *why, int whylen);
int cg_tile_wants(const Config *c);      /* opt_tile.c: smem, cmem, unroll, merging */
int cg_emit_stage_tile(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                       PlanLaunch *l, char *why, int whylen);

/* ---- the space's share of each pass ---- */

typedef int (*SpaceConstraintFn)(const Space *s, const Config *c, char *why, int whylen);
typedef struct {
    const char *name;
    SpaceConstraintFn check;
    const char *reason; /* why the constraint exists (space_print lists it) */
} SpaceConstraint;

typedef struct {
    const char *name;
    void (*init)(Space *s);               /* gives the pass's parameters their values */
    const SpaceConstraint *constraints;   /* checked after the general ones, in order */
    int nconstraints;
} SpacePass;

extern const SpacePass space_pass_tile, space_pass_stream, space_pass_temporal;

#endif
