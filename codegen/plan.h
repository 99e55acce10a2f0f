/* A Plan is what code generation produces for (IR, Config): the device source and the launch
 * sequence. The emitted host API (heat.cu / heat.h) is printed from the Plan, and the runtime
 * executes the same Plan, so what is tuned is exactly what is emitted. */
#ifndef STC_PLAN_H
#define STC_PLAN_H
#include "../ir/ir.h"
#include "config.h"
#include "kir.h"

typedef enum {
    ARG_BUF,    /* a field's buffer: field, level (0 = step t, -1 = t-1, +1 = the one written) */
    ARG_PARAM,  /* a runtime parameter, passed as the element type: index */
    ARG_DIM,    /* the interior size on axis `index`, as int */
    ARG_COORD,  /* what the built-ins x, y, z, nx, ny, nz and step read, as int: index
                   COORD_ORIGIN + axis is the global index of the kernels' interior point 0 on
                   the axis (0 on one GPU), COORD_EXTENT + axis the global grid's interior size,
                   COORD_STEP the number, in the run, of the first step the launch computes */
    ARG_SIDE,   /* distributed code only (codegen/emit_dist.c): whether a halo fill writes the
                   low (index 2*axis) or high (2*axis + 1) side, as int; never in a Plan */
    ARG_SCRATCH, /* reductions only: the device doubles of the reductions' scratch from element
                    `index` (codegen/emit_reduce.c) */
} ArgKind;

enum { COORD_ORIGIN = 0, COORD_EXTENT = 3, COORD_STEP = 6 };

typedef struct {
    ArgKind kind;
    int field, level, index;
} PlanArg;

typedef struct {
    const char *kernel;   /* __global__ function name in Plan.source (extern "C") */
    int block[3];         /* threads per block */
    /* Grid: axis d has ceil(cover_n[d] / tile[d]) blocks (1 when tile[d] is 0), where
     * cover_n[d] = n[axis_of[d]] + extra[d] (interior size, plus e.g. a halo for halo fills). */
    int tile[3];
    int axis_of[3];
    int extra[3];
    int smem_bytes;       /* dynamic shared memory */
    int smem_static;      /* static shared memory: the fused step's trees (emit_reduce_fused.c) */
    PlanArg *args;
    int nargs;
    int steps;            /* time steps this launch advances (temporal blocking) */
    int rotate_after;     /* after this launch, the state fields' buffers rotate once; 2: a
                             fused launch wrote levels +1 and +2 of the three-level fields
                             (steps t+K-1 and t+K), which rotate twice (plan_rotations) */
    int fill;             /* a halo fill by boundary condition along fill_axis (args[0] is the
                             buffer): the distributed code fills only the global faces */
    int fill_axis;
} PlanLaunch;

/* Whether launch l must opt in to its dynamic shared memory: a block has 48 KB, static and
 * dynamic together, unless its kernel asks for more (cudaFuncAttributeMaxDynamicSharedMemorySize,
 * idempotent). */
static inline int plan_launch_opts_in(const PlanLaunch *l) { return l->smem_bytes + l->smem_static > 48 * 1024; }

typedef struct {
    const IrProgram *prog;
    Config config;
    char *source;          /* device code only: NVRTC compiles it as is (no #include) */
    KModule module;        /* the device code as built (kir.h): what `source` prints */
    PlanLaunch *prologue;  /* run once at the start of a run: boundary set-up */
    int nprologue;
    PlanLaunch *step;      /* one group of launches; advances step_count steps */
    int nstep;
    int step_count;        /* steps advanced by one pass of `step` */
    PlanLaunch *single;    /* one plain step, for the steps left over when step_count > 1 */
    int nsingle;
    int ring3;             /* buffers of a three-level state field: 3 (or 0), or 4 where launches fuse
                              steps (every block reads both input levels until the launch
                              ends, so the two levels it writes need two other buffers; the
                              emitted code takes the fourth from the workspace) */
    int fused_min_n[3];    /* the step group runs only where the grid has at least these points
                              along each axis (fused steps that reflect a mirror halo); else
                              every step is a single one */
    int needs_temp;        /* temp fields need device buffers (the host API allocates them) */
    PlanLaunch *reduce;    /* the reductions on the current state (emit_reduce.c): per reduction
                              the kernel of its partials, then the one that combines them; grids
                              fixed (tile 1, axis_of -1, extra = blocks - 1) */
    int nreduce, cap_reduce;
    /* The fused reductions (emit_reduce_fused.c; docs/c-api.md, NAME_run_reduce): one step whose
     * last stage's kernel also folds the fusable reductions over the points it writes, one
     * partial per block, then `after`: per fused reduction the kernel that
     * combines its partials, then the separate launches (as in `reduce`) of the others. NULL
     * and 0 where no reduction is fused (reduce_fused says which are). */
    PlanLaunch *fused;
    int nfused;
    PlanLaunch *after;
    int nafter, cap_after;
    int fused_tile[3], fused_extra[3]; /* the fused launch's tiles: a partial per block */
    int nfused_reduces;
    unsigned char *reduce_fused; /* per reduction: folded by the fused step (NULL: none) */
    const char *fused_note;      /* for the header: what is fused, and why the rest is not */
    /* A distributed run's step group where fused steps wrap periodic faces or reflect clamp
     * and mirror ones (TB_WRAP; plan_build_dist): the same launches with kernels built as if
     * those faces were fixed (NAME_step_held), which hold their halo through the fused steps. A
     * rank's periodic faces hold layers exchanged like the faces between ranks, and its global
     * reflecting faces layers reflected by a copy (emit_dist.c), so wrapping or reflecting
     * within its part would read the wrong points. NULL where the distributed run takes `step`.
     * With hwrap=on the kernels are built as if every face were periodic instead: they compute
     * every point of the extended grid as an interior one and wrap their loads within it, which
     * leaves the owned points as exact (the layers are as deep as the fused steps reach) with no
     * test of which points hold; for a periodic program that is `step` itself. held_min_n: the
     * grid the held launch takes at least (its fused_min_n). */
    PlanLaunch *held;
    int nheld;
    int held_min_n[3];
    /* hold=on (codegen/hold.c): one GPU runs `held` too, over copies of the state and coef
     * fields whose every face gains hold_ext[d] layers (tblock x halo), which a copy within each
     * copy refills by hold_kind before each launch; where the grid has at least hold_min_n[d]
     * points along each axis (else `step`). hold_kind 0: no hold. */
    int hold_ext[3], hold_min_n[3];
    int hold_kind;
    const char *hold_copy, *hold_edge; /* the two copy kernels' names */
} Plan;

enum { HOLD_WRAP = 1, HOLD_MIRROR, HOLD_CLAMP }; /* Plan.hold_kind */

/* The reductions' device scratch (ARG_SCRATCH): per reduction r, PLAN_REDUCE_PARTIALS partials
 * from double PLAN_REDUCE_SLOT(r), then its value. */
#define PLAN_REDUCE_PARTIALS 256
#define PLAN_REDUCE_SLOT(r) ((r) * (PLAN_REDUCE_PARTIALS + 1))
#define PLAN_REDUCE_VALUE(r) (PLAN_REDUCE_SLOT(r) + PLAN_REDUCE_PARTIALS)
/* The fused step's partials follow: block b's partial of the q-th fused reduction is double
 * PLAN_REDUCE_SLOT(nreduces) + b * nfused_reduces + q. */
static inline long long plan_fused_parts(const Plan *p, const int n[3])
{
    long long parts = 1;
    for (int d = 0; d < p->prog->dims; d++)
        parts *= (n[d] + p->fused_extra[d] + p->fused_tile[d] - 1) / p->fused_tile[d];
    return parts;
}
/* Doubles of scratch that a run with the fused step needs on an interior of n. */
static inline long long plan_fused_scratch(const Plan *p, const int n[3])
{
    return PLAN_REDUCE_SLOT(p->prog->nreduces) + (long long)p->nfused_reduces * plan_fused_parts(p, n);
}

/* The buffers of field f under plan: a state field's levels (Plan.ring3 for three), else 1. */
int plan_buffers(const Plan *plan, int f);
/* Where level `level` of field f lies in its newest-first list of plan_buffers buffers: -level
 * for level 0 and below, buffers - level above (level +1 is the oldest buffer, +2 the one
 * before it). */
int plan_slot(const Plan *plan, int f, int level);
/* How many times launch l rotates field f's list: 0, 1, or 2 (rotate_after 2, three levels). */
int plan_rotations(const Plan *plan, const PlanLaunch *l, int f);

/* Builds the plan of prog under config c (codegen/plan.c). Returns NULL, with a reason a person
 * can read in why, when c is not valid for prog (the constraints of codegen/space.c). */
Plan *plan_build(const IrProgram *prog, const Config *c, Arena *arena, char *why, int whylen);
/* plan_build, and Plan.held where the distributed API needs it (stencilc --distributed). */
Plan *plan_build_dist(const IrProgram *prog, const Config *c, Arena *arena, char *why, int whylen);
/* The program whose kernels a rank's part of a distributed run runs under c, to time and verify
 * them on one GPU: where fused steps wrap or reflect, prog with those faces fixed (the kernels
 * of Plan.held, whose faces the exchange or the reflection's copy fills), or periodic with
 * hwrap=on; else prog itself. */
const IrProgram *plan_part_program(const IrProgram *prog, const Config *c, Arena *arena);
/* The plan of what a rank's part runs under c, built for one GPU (plan_part_program's program,
 * c with hwrap applied to it), to time and verify on the part's grid. */
Plan *plan_build_part(const IrProgram *prog, const Config *c, Arena *arena, char *why, int whylen);

#endif
