/* Internal to codegen: what the reductions' separate pass (emit_reduce.c) and the fused step
 * (emit_reduce_fused.c) share: the fold, its neutral start and the tree over a block. */
#ifndef STC_CG_EMIT_REDUCE_H
#define STC_CG_EMIT_REDUCE_H
#include "emit.h"

/* The fold's neutral start: 0, +Inf for min, -Inf for max. */
KExpr *cg_red_neutral(Kb *b, IrReduceKind kind);
/* acc = acc (kind) x: a sum, or x where x is NaN or beyond acc (a NaN acc stays). */
KStmt *cg_red_fold(Kb *b, IrReduceKind kind, KExpr *acc, KExpr *x);

/* n reductions folded over one block at once: shared arrays names[q] of `threads` doubles
 * (a power of two), thread t's accs[q] at [t], then one tree for all (a barrier a level), so
 * that names[q][0] holds the block's value of reduction q. Every thread of the block must
 * reach it. */
typedef struct {
    int n;
    const char *const *names;
    const IrReduceKind *kinds;
    KExpr *const *accs;
    int threads;
    KExpr *t;
} CgRedTree;
void cg_red_tree(Kb *b, KBlock *body, const CgRedTree *tr);
/* if (t == 0) out[at] = red[0]; */
void cg_red_store_first(Kb *b, KBlock *body, KExpr *t, const char *red, const char *out, KExpr *at);

/* NAME_fused_R (emit_reduce_fused.c): the fused step's partials of reduction r, the q-th fused,
 * into its value in the scratch; returns the kernel's arguments. */
CgArgs cg_build_fused_combine(CgCtx *ctx, const Plan *plan, int r, int q, const char *name);

#endif
