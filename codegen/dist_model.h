/* The exchange-cost model of docs/distributed.md and the choice it makes for a distributed run:
 * the exchange depth K and whether to overlap (codegen/dist_model.c). Per step and GPU:
 *
 *   t(K) = t_local(K) + sum over exchanged axes of (a_axis / K + bytes_per_step_axis / B)
 *
 * t_local(K) is the local kernel on the part with K deep halos (the extra layers computed
 * again), measured on a GPU by the driver (driver/step_dist.c) or scaled from the part's
 * volume; a_axis (by the axis's kind) and B (the link) come from one table in dist_model.c.
 * The emitted header carries the choice (NAME_DIST_DEPTH, NAME_DIST_OVERLAP). Prefix cg_dist_. */
#ifndef STC_CG_DIST_MODEL_H
#define STC_CG_DIST_MODEL_H
#include "../util/strbuf.h"
#include "plan.h"

#define CG_DIST_MAX_CAND 9 /* four depths, then the first with overlap */

typedef struct {
    int depth;
    int overlap;       /* the exchange in flight while the interior computes (at depth 1, or
                          at the fused steps T) */
    double interior;   /* with overlap: the share of the launch that computes beside the
                          exchange; launches, the launches it is cut into */
    int launches;
    long local[3];     /* the part's local buffers' interior at this depth */
    double volume;     /* its points */
    double t_local_ms; /* the local kernel on that part, one step */
    double bytes[3];   /* per step, across one face of axis a (0: the axis does not exchange) */
    /* the model's answers (cg_dist_choose) */
    double t_x_ms;     /* the exchange's share of a step on the critical path */
    double t_step_ms;
    double efficiency; /* t_owned_ms / t_step_ms */
} CgDistCand;

/* The overlapped step a plan has (emit_dist_overlap.c): none, a one-step kernel's on slabs of
 * planes (depth 1), a fused kernel's on ranges of its blocks (depths that are multiples of T). */
enum { CG_OVERLAP_NONE, CG_OVERLAP_PLANES, CG_OVERLAP_CHUNKS };

/* What the generated distributed code allows for a plan (emit_dist.c knows). */
typedef struct {
    int reach[3];      /* layers one step reads, per axis: one exchange sends depth x reach */
    int periodic;      /* the axes (bit a) where a field is periodic: they exchange, split or not */
    int reflects;      /* how fused steps reflect the global faces (api_dist_reflects: BC_CLAMP,
                        * BC_MIRROR, 0): deep layers there too, filled by a copy, not exchanged */
    int held_wraps;    /* the held fused steps wrap the interior (hwrap=on): one layer more a face */
    int depth1_only;   /* periodic and other boundaries mixed: depth 1 (and one stage) only */
    int overlap_able;  /* the overlapped step the code has (NAME_dist_set_overlap): CG_OVERLAP_* */
    int block_tile[3]; /* the blocks' tile along each axis where the overlapped step can run
                          them in ranges (any split), else 0 */
    int tblock;        /* steps the kernel fuses (the plan's step_count) */
    int long_blocks;   /* the step kernel's threads compute CG_DIST_LONG_POINTS points or more
                          each (a tile's points over its threads, times the steps it fuses):
                          its blocks hold their SMs long, and an overlapped step costs more */
} CgDistTraits;

/* Points a thread computes from which its blocks count as long-lived (the split costs of
 * codegen/dist_model.c): box3d1r's streaming one-step kernel computes 256, star3d1r's 32. */
enum { CG_DIST_LONG_POINTS = 128 };

typedef struct {
    int dims;
    long global[3], procs[3];
    double link_gbs;        /* B: bytes per second one way, per GPU, in GB/s */
    char link[32];          /* "nvlink" or "25 GB/s", for messages */
    int given;              /* the depth was given (--depth): one candidate, no search */
    int long_blocks;        /* CgDistTraits.long_blocks of the plan: an overlapped step's cost */
    int measured;           /* t_local was measured on a GPU; else scaled from the volume */
    char device[64];        /* the GPU that measured */
    double owned_volume;    /* the largest rank's owned points */
    double t_owned_ms;      /* the local kernel on them alone, scaled from the first candidate's
                               t_local by volume: efficiency's 100% (cg_dist_choose sets it) */
    int ncand;
    CgDistCand cand[CG_DIST_MAX_CAND];
    int chosen;             /* index into cand; -1 before cg_dist_choose */
} CgDistChoice;

/* The link named by --link: "nvlink", or a bandwidth in GB/s ("25"). 0, or -1. */
int cg_dist_parse_link(const char *s, double *gbs, char *name, int namelen);

/* The candidates for plan over global split by procs: depths 1..4, or for a kernel that fuses
 * T steps T, 2T, 3T, 4T (so that fusion is kept); only `depth` where depth > 0 (--depth); none
 * whose part is thinner than the layers it sends; then the first of them with overlap where the
 * code can overlap this split. Each with its volume, bytes and a t_local scaled from the volume (the
 * model table's memory bandwidth); the driver may replace t_local with measurements, then
 * calls cg_dist_choose. 0, or -1 with a reason (no depth fits). */
int cg_dist_prepare(const Plan *plan, const long global[3], const long procs[3], int depth, double link_gbs,
                    const char *link, CgDistChoice *c, char *why, int whylen);

/* The model on every candidate, and the fastest chosen (the smaller depth on a tie). Pure:
 * the tests call it on hand-made inputs. */
void cg_dist_choose(CgDistChoice *c);

/* The choice in one line, for the driver's message: what was chosen and why. */
void cg_dist_summary(const CgDistChoice *c, char *buf, int len);

/* The candidates' predictions, one a line, each line starting with prefix (the header's
 * comment). */
void cg_dist_table(const CgDistChoice *c, const char *prefix, StrBuf *out);

/* emit_dist.c: what the generated code allows for plan. */
void cg_dist_traits(const Plan *plan, CgDistTraits *t);
/* emit_dist.c: buffers exchanged per group of `depth` steps (the newest level of written
 * state fields, and the level before where a step reads it at an offset or depth > 1). */
int cg_dist_group_buffers(const IrProgram *p, int depth);

#endif
