/* Internal to the stream pass's builders (opt_stream*.c): the builder's context and the pieces
 * its three kernels (the shared-memory ring, register mode, retiming) share. */
#ifndef STC_OPT_STREAM_BUILD_H
#define STC_OPT_STREAM_BUILD_H
#include "opt.h"
#include "opt_stream.h"

/* The ring kernel's loads: per-thread tile cells and which registers each source keeps. */
typedef struct {
    int full_cells, halo_cells; /* per-thread cell loads of a whole tile / of its halo */
    unsigned char need[STREAM_MAX_SRC][STREAM_WIN];
    int own_load[STREAM_MAX_SRC]; /* the source's q_R comes from global memory */
} StreamLoads;

/* The register mode and retiming kernels (opt_stream_reg.c, opt_stream_retime.c) of stage
 * `stage` under geometry g, the launch geometry set in l; NULL with a reason in why. */
KKernel *cg_build_stream_reg(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                             PlanLaunch *l, const StreamGeom *g);
KKernel *cg_build_stream_retime(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                                PlanLaunch *l, const StreamGeom *g, char *why, int whylen);

/* The builder's context. The point is built in its own context `pt` (first, so that the read
 * hook gets back to the rest): the stage as cg_fast_arith rewrites it, its reads from the
 * window; the kernel's context `ctx` is not changed. */
typedef struct {
    CgCtx pt;
    CgCtx *ctx;
    Kb *b;
    const StreamGeom *g;
    KExpr *s[3];               /* the strides s1, s2 */
    KExpr *sp;                 /* the plane stride (s1 streaming y, s2 streaming z) */
    KExpr **buf;               /* per source: its buffer argument */
    const StreamLoads *pl;     /* the ring kernel */
    int row;                   /* register mode: the output row whose point is built */
    KExpr *plane;              /* the output plane along SD, interior index (NULL: t - R) */
} StreamB;

/* A builder over g for stage `stage` whose point reads through `read`. */
StreamB *stream_builder(CgCtx *ctx, int stage, const StreamGeom *g, CgReadFn read);
/* A name made in the kernel's arena. */
const char *stream_name(StreamB *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* x + c and x - c with the literal kept even when 0 (nvcc's output can depend on it). */
KExpr *stream_add(StreamB *sb, KExpr *x, long long c);
KExpr *stream_sub(StreamB *sb, KExpr *x, long long c);
/* (T)0 */
KExpr *stream_zero(StreamB *sb);
/* The variable <prefix><k>_<signed p> (q0_m1, sp0_p0). */
KExpr *stream_var(StreamB *sb, const char *prefix, int k, int p);
/* The axis of g (the other in-plane axis or SD) as a letter. */
char stream_axis_letter(int axis);
/* extern __shared__ bytes and, per source with a shared range (all: every source), its pointer
 * sm<k> into them. */
void stream_smem(StreamB *sb, KBlock *out, const char *name, int all);
/* const int z0 = block's first plane; zend; tlast = the last incoming plane. */
void stream_z_range(StreamB *sb, KBlock *out);
/* (void)name; for each of the n names: variables every kernel of a family declares and only
 * some use (a dead declaration still moves nvcc's register numbering, so they stay declared
 * in every kernel and the PTX does not depend on which ones a stencil needs). */
void stream_unused(StreamB *sb, KBlock *out, const char *const names[], int n);
/* The launch: sb planes per block along SD, the block (times ab_rows along ab) elsewhere. */
void stream_launch(CgCtx *ctx, PlanLaunch *l, const StreamGeom *g, int ab_rows);
/* The written buffers of the stage that are stored (their arguments), at most STREAM_MAX_SRC. */
int stream_outputs(StreamB *sb, KExpr *outs[]);

/* ---- the ring kernel (opt_stream.c, opt_stream_plane.c, opt_stream_fast.c) ---- */

/* How a plane is built. The general loop tests every condition at run time; a full block
 * (its whole chunk and tile inside the grid, opt_stream_fast.c) knows them: warm-up planes
 * (t - z0 = trel < R) only fill the window, steady planes always store and compute.
 * rb >= 0: the ring base of the plane is this constant (the slots are constants); -1: the
 * variable `rb` (declared from rb_expr). */
enum { PM_GENERAL, PM_WARM, PM_STEADY };
typedef struct {
    int kind, trel, rb;
    KExpr *rb_expr;
    KExpr *out;        /* the output plane t - R as an interior index (NULL: from the variable t) */
} PlaneMode;

/* The ring kernel's load of read node n: a register of the queue or a ring plane. */
KExpr *stream_ring_read(CgCtx *ctx, const IrNode *n);
/* One plane of the loop onto out: the incoming plane t, output plane t-R; suf names the plane's
 * loaded values (g<k><suf>, h<k>_<c><suf>). */
void stream_plane(StreamB *sb, KBlock *out, const char *suf, const PlaneMode *m);
/* The register copies of the prefetched group: g<k>_<u> = g<k>_<u>n, h... likewise. */
void stream_carry(StreamB *sb, KBlock *out, int u);
/* The fast path of full blocks (opt_stream_fast.c); returns where the general loop goes: after
 * it (the fast path returns), or in the fused step (ctx->fold) its else branch, so that every
 * thread reaches the reductions' tree. */
KBlock *stream_fast_path(StreamB *sb, KBlock *out);
/* Whether the fast path stores through output pointers stepped a plane at a time (point index
 * 0); the fused step stores at the point's index, at which its reductions read the buffers the
 * step leaves as they are. */
static inline int stream_stores_by_pointer(const StreamB *sb) { return !sb->ctx->fold; }

#endif
