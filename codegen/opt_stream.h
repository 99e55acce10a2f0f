/* The stream pass's geometry, shared by its emitter (opt_stream.c) and its constraints
 * (pass_stream.c): which buffers a stage streams, which window planes live in registers and
 * which in shared memory, and how much shared memory that takes.
 *
 * Window positions: a thread computing output plane z along the streaming dimension (SD) needs
 * planes z-R..z+R (R = the program's halo along SD); position p is plane z+p. Each streamed
 * source (a field's buffer at one time level) keeps, per position:
 *  - a register (the thread's own column) when p is among the first 2R+2-regq positions of
 *    the order 0, +1, -1, +2, -2, ... (the register set: regq = 1 + planes whose centre reads
 *    come from shared memory), or when p lies above the shared-memory range (the inflow queue
 *    of planes not yet staged);
 *  - a shared-memory copy of the whole tile plus its in-plane halo when p lies in the source's
 *    shared range [lo..hi]: the convex hull of the positions read at in-plane offsets and the
 *    positions read at the centre but not in the register set. The range is a ring of
 *    (hi-lo+2) plane slots, so one __syncthreads per plane suffices.
 * That is the shared-memory ring (smem=on). Register mode (smem off; opt_stream_reg.c) keeps
 * every plane in registers (vmin/emin say which rows and positions) and retiming
 * (opt_stream_retime.c) stages one plane in two slots. */
#ifndef STC_OPT_STREAM_H
#define STC_OPT_STREAM_H
#include "../ir/ir.h"
#include "config.h"
#include "emit.h"

enum { STREAM_MAX_R = 8, STREAM_MAX_SRC = 16, STREAM_WIN = 2 * STREAM_MAX_R + 1,
       STREAM_MAX_BM = 16, STREAM_MAX_ROWS = STREAM_MAX_BM + 2 * STREAM_MAX_R,
       /* register mode: at most this many queued values per thread (beyond: spills) */
       STREAM_MAX_REGS = 160,
       /* shared memory a block may opt in to on sm_90: the planes, and in the fused step
        * (emit_reduce_fused.c) the reductions' trees beside them */
       STREAM_SMEM_LIMIT = 227 * 1024 };

typedef struct {
    int field, level;
    unsigned char read_centre[STREAM_WIN]; /* indexed by p + R */
    unsigned char read_plane[STREAM_WIN];  /* read at a non-zero in-plane offset */
    unsigned char in_reg[STREAM_WIN];      /* centre reads come from the register */
    unsigned char chain[STREAM_WIN];       /* a register q_p exists */
    int lo, hi;                            /* shared range; lo > hi: none */
    int slots;                             /* ring slots (hi-lo+2), 0 without shared range */
    int smem_offset;                       /* elements from the start of dynamic smem */
    /* register mode, per strip row r (index r + hb): the lowest window position whose value
     * (vmin) or x-halo value (emin) is read; R+1 when none. */
    signed char vmin[STREAM_MAX_ROWS], emin[STREAM_MAX_ROWS];
} StreamSrc;

typedef struct {
    int dims, sd;        /* streaming axis: 1 (y) or 2 (z) */
    int ab;              /* the other in-plane axis (3D), or -1 */
    int R;               /* halo along SD */
    int hx, hb;          /* in-plane halos (hb = 0 in 2D) */
    int tbx, tbb;        /* threads along x and along ab (1 in 2D) */
    int W, H;            /* tile with halo: tbx+2hx by tbb*bm+2hb */
    int sb, uf, regq, prefetch;
    int reg_mode;        /* every plane in registers, x neighbours by warp shuffles */
    int bm;              /* register mode and retiming: output rows per thread along ab (1 in 2D) */
    int retime;          /* retiming: see opt_stream_retime.c */
    int async;           /* retiming: planes staged by cp.async into three slots, two in flight */
    int nsrc;
    StreamSrc src[STREAM_MAX_SRC];
    long smem_elems;     /* dynamic shared memory in elements */
} StreamGeom;

/* Fills g for stage `stage` of prog under c (streaming on). Returns 0, or -1 with a reason
 * (radius or source count beyond the pass's limits, regq beyond the window). */
int cg_stream_geom(const IrProgram *prog, int stage, const Config *c, StreamGeom *g, char *why,
                   int whylen);
/* Queued register values per thread in register mode (the constraint's measure). */
int cg_stream_reg_count(const StreamGeom *g);
/* Whether stage `stage` is a weighted sum of reads (sum of weight * read, the weights products
 * of constants and parameters, optionally divided by a constant): what retiming accumulates.
 * Returns 1, or 0 with a reason. */
int cg_stream_linear(const IrProgram *prog, int stage, char *why, int whylen);
/* One term of a weighted sum: c * params[0] * ... * (field at level, offset off): the weight
 * is a constant times up to CG_LIN_PARAMS runtime parameters (their indices, ascending). */
enum { CG_LIN_PARAMS = 4 };
typedef struct {
    int field, level, off[3];
    double c;
    int nparams, params[CG_LIN_PARAMS];
} CgLinTerm;
/* A term's weight in the kernel: the constant, times the parameters (kernel arguments p_NAME;
 * nvcc hoists the product out of the loops). */
KExpr *cg_lin_weight(CgCtx *ctx, const CgLinTerm *t);
/* The weighted sum of stage `stage`, its terms merged by (field, level, offset) and allocated in
 * arena (*terms, *nterms); 1, or 0 with a reason as for cg_stream_linear. */
int cg_linear_terms(const IrProgram *prog, int stage, Arena *arena, const CgLinTerm **terms, int *nterms,
                    char *why, int whylen);
/* The SD-axis unroll parameter (P_UFY or P_UFZ) of a streaming axis. */
ParamId cg_stream_uf_param(int sd);
/* The source (field, level) in g->src, or -1. */
int cg_stream_find_src(const StreamGeom *g, int field, int level);
/* A signed number as a name part: -2 -> "m2", 0 -> "p0", 3 -> "p3" (buf holds 16). */
const char *cg_stream_signed_name(char buf[16], int v);

#endif
