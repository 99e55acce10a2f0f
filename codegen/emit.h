/* Internal to codegen: the pieces that the kernel families build their kernels from
 * (docs/architecture.md). A kernel is a tree (kir.h): its parameters from its argument list
 * (cg_kernel), the mapping of threads to points (the family's own business: the plain kernel
 * maps one thread per point), and the point update (cg_point), which loads reads through
 * cg_read. A family that stages reads through shared memory or registers gives the load
 * (ctx->kread) and, where it stores differently, the store (ctx->kstore). */
#ifndef STC_CG_EMIT_H
#define STC_CG_EMIT_H
#include "../util/arena.h"
#include "../util/strbuf.h"
#include "codegen.h" /* cg_version */
#include "kir.h"
#include "plan.h"

typedef struct CgCtx CgCtx;

/* The kernel representation's hooks (kir.h): the load of read node n, and the point's w-th
 * stored write of value to array (pushed onto out). */
typedef KExpr *(*CgReadFn)(CgCtx *ctx, const IrNode *n);
typedef void (*CgStoreFn)(CgCtx *ctx, KBlock *out, int w, KExpr *array, KExpr *value);
/* The point's coordinates for the built-ins (docs/language.md, "Coordinates"): axis 0..2, the
 * point's interior index on that axis (the kernel's own, without the rank's origin);
 * CG_FUSED_STEP, how many steps the launch computed before the point's (an int expression, or
 * NULL where the launch computes one step). */
typedef KExpr *(*CgCoordFn)(CgCtx *ctx, int axis);
enum { CG_FUSED_STEP = 3 };

struct CgCtx {
    const IrProgram *prog;
    const Config *cfg;
    Arena *arena;
    const char *prefix;  /* the stencil's name as a C identifier */
    const char *T;       /* element type: "float" or "double" */
    StrBuf *src;         /* device source being built */
    int stage;           /* stage being emitted */
    const char *idx;     /* name of the point's linear index variable (default "idx") */
    Kb kb;               /* the kernel representation's builder (ctx->arena, the element type) */
    CgReadFn kread;      /* NULL: the plain global-memory load */
    CgStoreFn kstore;    /* NULL: array[index] = value; */
    KExpr *kidx;         /* the point's linear index (NULL: a variable named ctx->idx or idx) */
    CgCoordFn kcoord;    /* NULL: the variables i, j, k of the plain kernel, and step 0 */
    const Plan *fold;    /* building the fused step's last stage (emit_reduce_fused.c): each
                            point also folds this plan's fused reductions; NULL: none */
    KModule *module;     /* where built kernels go (the plan's), or NULL */
};

/* One stored write of a point: array[index] = value. */
typedef struct {
    KExpr *array, *value;
} CgPointStore;
typedef struct {
    CgPointStore *items;
    int n, cap;
} CgPointStores;

/* A kernel's argument list, with which buffers it writes (those are not const). */
typedef struct {
    PlanArg *args;
    unsigned char *writes;
    int nargs, cap, cap_w;
} CgArgs;

void cg_args_add(CgCtx *ctx, CgArgs *a, PlanArg arg, int writes);
/* Index of the argument, or -1. */
int cg_args_find(const CgArgs *a, ArgKind kind, int field, int level, int index);
/* C name of an argument inside a kernel: f_u_l0, f_u_lp1, f_u_lm1, p_alpha, n0. */
void cg_arg_name(const IrProgram *prog, const PlanArg *arg, char *buf, int len);

/* Constants printed exactly in the element type (a float constant as the float it rounds to). */
void cg_emit_const(StrBuf *out, double v, ElemType t);
/* Adds the arguments of stage `stage` (written buffers, read buffers, used params) to a. */
void cg_stage_args(CgCtx *ctx, int stage, CgArgs *a);
/* Adds the ARG_COORD arguments that a stage reading the built-ins `uses` (ir_stage_builtins)
 * needs; cg_stage_args calls it. */
void cg_coord_args(CgCtx *ctx, int uses, CgArgs *a);
/* The plain kernel of a stage: one thread per interior point. */
void cg_emit_stage_plain(CgCtx *ctx, int stage, const char *name, const CgArgs *args);

/* Boundary and bookkeeping kernels (emit_bc.c). All take (buffer..., n0[, n1[, n2]]). */
/* Fills the halo of `field` (buffer level 0) along `axis` by its boundary condition, over the
 * full padded extent of the other axes. */
void cg_emit_fill(CgCtx *ctx, int field, int axis, const char *name, const CgArgs *args);
/* A whole padded buffer copied, level 0 -> +1 (unwritten state fields). */
void cg_emit_copy(CgCtx *ctx, int field, const char *name, const CgArgs *args);
/* The halo's layers along `axis`, over the padded extent of the other axes, at the start: copied
 * from level 0 into the levels the launch writes (fixed state fields), or zeroed (temps). */
void cg_emit_halo_copy(CgCtx *ctx, int field, int axis, const char *name, const CgArgs *args);
void cg_emit_halo_zero(CgCtx *ctx, int field, int axis, const char *name, const CgArgs *args);
/* The reductions' kernels (emit_reduce.c) into the plan's module and source, and their launches
 * into plan->reduce; where some are fused (after the fused step is built), their combine
 * kernels and plan->after. Nothing without reductions. */
void cg_build_reductions(CgCtx *ctx, Plan *plan);
/* Each reduction's partial kernel over a box of the interior (cg_reduce_box_name: after the
 * buffers, sizes, coordinates and scratch of the plain one, int box_lo<d> then box_n<d> per
 * axis), printed to ctx->src: a rank's owned points (emit_dist_reduce.c). */
void cg_build_reduce_boxes(CgCtx *ctx);
const char *cg_reduce_box_name(Arena *arena, const char *prefix, const IrReduce *r);
/* Reduction r can be folded by the step kernel that writes the last stage: every field the step
 * writes that it reads at level 0 (the new values) is written by the last stage and read at
 * offset 0 (emit_reduce_fused.c). Else 0 with the reason in why (may be NULL). */
int cg_reduce_fusable(const IrProgram *p, int r, char *why, int whylen);
/* Chooses the reductions the fused step, whose kernels are built under cfg, folds
 * (plan->reduce_fused, nfused_reduces, fused_note): the fusable ones where cfg's kernel family
 * has a fused form (plain, tile, stream), else none. */
void cg_choose_fused(CgCtx *ctx, Plan *plan, const Config *cfg);
/* Adds to a the arguments that the fused form of the last stage needs beyond its own: the
 * fused reductions' reads, params and coordinates, and the scratch. */
void cg_fused_args(CgCtx *ctx, const Plan *plan, CgArgs *a);
/* A kernel family's fused form (ctx->fold set): cg_fold_begin declares the accumulators at the
 * top of the kernel's body, cg_point then folds each point it stores, and cg_fold_end, at the
 * end of the body (which every thread of the block must reach: no return before it), leaves
 * the block's partials in the scratch. The launch covers n[d] + extra[d] points in tiles of
 * tile[d] with blocks of block[d] threads. */
void cg_fold_begin(CgCtx *ctx, KBlock *body);
void cg_fold_end(CgCtx *ctx, KBlock *body, const int block[3], const int tile[3], const int extra[3]);
/* cg_point's fused form: the stored values named, stored, then folded. */
void cg_fold_point(CgCtx *ctx, KBlock *out, const CgPointStores *stores);
/* Threads per block of the whole-buffer and fill kernels. */
enum { CG_UTIL_BLOCK = 128 };
/* The two axes a kernel over `axis`'s faces runs its threads over, x first: o[0] across the
 * block's threads, o[1] across blocks (the kernels of emit_bc.c and their launches, plan.c). */
static inline void cg_face_axes(int axis, int o[2])
{
    o[0] = axis == 0 ? 1 : 0;
    o[1] = axis == 2 ? 1 : 2;
}

/* Whether field f has device buffers: state and coef fields always; a temp when it is
 * materialized (a later stage reads it) and some stage writes it. Writes of other temps are
 * register values only and are not stored. */
int cg_field_stored(const IrProgram *p, int f);
/* The stage that writes field f, or -1 (the IR records it: a field is written once a step). */
static inline int cg_writing_stage(const IrProgram *p, int f) { return p->fields[f].write_stage; }

/* A field or param name as a C identifier that is not a C or C++ keyword. */
const char *cg_member_name(Arena *arena, const char *name);
/* Stage `stage` as the optimized kernels emit it (codegen/fast_arith.c): every division by a
 * constant replaced by a multiplication by the constant's reciprocal; with prog->fast_math (float
 * programs), a / sqrt(x) as a * rsqrt(x) and the copy marked fast_ops (approximate intrinsics).
 * Returns p itself when nothing changes. */
const IrProgram *cg_fast_arith(const IrProgram *p, int stage, Arena *arena);
/* Whether node n of st divides by a constant whose reciprocal is a normal number of type t (then
 * *recip, when not NULL, is 1/c in double; a float literal rounds it): the division the
 * optimized kernels, and with --same-bits every kernel, write as a product. */
int cg_recip_const(const IrStage *st, const IrNode *n, ElemType t, double *recip);
/* What the emitted files' Configuration line adds for a --fast-math program (the tolerance it
 * was verified at is rt_tolerance's, and grows with the steps: not repeated here). */
#define FAST_MATH_NOTE " (fast math: approximate float arithmetic, docs/config.md)"
/* ... and for a --same-bits program. */
#define SAME_BITS_NOTE " (same bits: explicitly rounded arithmetic, docs/config.md)"
static inline const char *cg_arith_note(const IrProgram *p)
{
    return p->fast_math ? FAST_MATH_NOTE : p->same_bits ? SAME_BITS_NOTE : "";
}

/* ---- the kernel representation's shared pieces (kir_point.c, emit_kernel.c) ---- */

/* The point computation of ctx->stage: shared nodes declared onto out, the stored writes'
 * values into stores (in order). */
void cg_build_point(CgCtx *ctx, KBlock *out, CgPointStores *stores);
/* The value of node of st (a stage's form: a reduction's) at the point, its shared nodes declared
 * onto out. */
KExpr *cg_build_value(CgCtx *ctx, const IrStage *st, int node, KBlock *out);
/* --same-bits (kir_rounded.c, which states the rule): whether op has a round-to-nearest
 * intrinsic (add, sub, mul, div); op(x, y) as that intrinsic; a * b + c as one rounding. */
int cg_rn_has(IrOp op);
KExpr *cg_rn_binary(CgCtx *ctx, IrOp op, KExpr *x, KExpr *y);
KExpr *cg_rn_fma(CgCtx *ctx, KExpr *a, KExpr *b, KExpr *c);
/* The same with its stores pushed too (ctx->kstore's, or array[point index] = value). */
void cg_point(CgCtx *ctx, KBlock *out);
/* The load of read node n at the point (ctx->kread's, or the global load at the point). */
KExpr *cg_read(CgCtx *ctx, const IrNode *n);
/* in[index + off . strides]: the plain global-memory load of read node n. */
KExpr *cg_global_read(CgCtx *ctx, const IrNode *n, KExpr *index);
/* The point's linear index: ctx->kidx, or the variable ctx->idx (default idx). */
KExpr *cg_point_index(CgCtx *ctx);
/* The buffer of (field, level) as a kernel argument. */
KExpr *cg_buf(CgCtx *ctx, int field, int level);
/* A temp read at zero offset in the stage that writes it: the node of the value written, or -1. */
int cg_same_stage_value(const IrProgram *p, const IrStage *st, const IrNode *n);
/* Adds a built kernel (or a file-scope declaration) to the plan's module and prints it. */
void cg_add_kernel(CgCtx *ctx, const KKernel *k);
void cg_add_global(CgCtx *ctx, const KStmt *decl);
/* A kernel with the arguments of args as parameters. */
KKernel *cg_kernel(CgCtx *ctx, const char *name, const int block[3], const CgArgs *args);
/* The parameters of args added to k (buffers and params in the element type, the reductions'
 * scratch as double *, sizes and coordinates as int). */
void cg_kernel_params(CgCtx *ctx, KKernel *k, const CgArgs *args);
/* Declares s1, s2 (as the program's dims need) onto out; returns them in s[1], s[2]. */
void cg_strides(CgCtx *ctx, KBlock *out, KExpr *s[3]);
/* (long long)(k + hk) * s2 + (long long)(j + hj) * s1 + (i + hi): the linear index of interior
 * point (c[0], c[1], c[2]) shifted by the halo (as the program's dims need). */
KExpr *cg_linear_index(CgCtx *ctx, KExpr *const c[3], KExpr *const s[3]);

/* hold=on (hold.c): Plan.hold_* from the plan's configuration and groups, and the two copy
 * kernels the held run uses, printed onto src and named in the plan (nothing without hold). */
void cg_hold_setup(Plan *plan);
void cg_hold_kernels(Plan *plan, Arena *arena, const char *prefix, StrBuf *src);

#endif
