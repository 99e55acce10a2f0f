/* Internal to codegen: what the one-GPU host API (emit_api.c) and the distributed one
 * (emit_dist.c) share: the names of the emitted API and the printing of a Plan's launches. */
#ifndef STC_CG_EMIT_API_H
#define STC_CG_EMIT_API_H
#include "dist_model.h"
#include "emit.h"
#include "template.h"

typedef struct {
    const Plan *plan;
    const IrProgram *prog;
    Arena *arena;
    const char *pfx;      /* C prefix: heat */
    const char *upper;    /* the prefix in capitals, for macros: HEAT */
    const char *T;        /* element type */
    const char **member;  /* per field: its member name in NAME_fields */
    const char **pmember; /* per param */
    const CgDistChoice *dist; /* the recommended exchange depth and overlap; NULL: none made */
} Api;

/* Appends a template (template.h) with '@' the prefix and '^' the prefix in capitals. */
void api_put(const Api *api, StrBuf *o, const char *text, const TplVar *vars);
/* Param i's default (0 when none) as a constant of the element type. */
const char *api_param_default(const Api *api, int i);
/* Whether temp f has a buffer in the workspace. */
int api_temp_has_buffer(const IrProgram *p, int f);
/* "const " for a coef whose halo nobody writes, else "". */
const char *api_coef_const(const IrField *f);
/* Whether the run needs coef f's buffer (read by a stage, or its halo filled). */
int api_coef_needed(const IrProgram *p, int f);
/* One argument of a launch as the host code names it (b->u[1], p->alpha, n[0]). */
void api_emit_arg(const Api *api, const PlanArg *a, StrBuf *o);
/* The rotation of every state field's buffers (b->u[L-1] to the front). */
void api_emit_rotation(const Api *api, StrBuf *o);
/* The global index of the kernels' interior point 0 (co_) and the global interior size (cn_),
 * which the built-ins x, y, z, nx, ny, nz read (ARG_COORD), where launches ls[0..n) take them:
 * on one GPU 0 and n; on a rank (dist), its offset less the layers its local interior has
 * before the owned points (docs/distributed.md). */
void api_emit_coords(const PlanLaunch *ls, int n, int dist, StrBuf *o);
/* A launch: its grid from n, the <<<>>> call, the error check, the rotation after it. */
void api_emit_launch(const Api *api, const PlanLaunch *l, StrBuf *o);
/* The launch of `kernel`, l's kernel copied by kir_offset_blocks along the grid axes of
 * grid_axes, on l's blocks [first[a], first[a] + count[a]) along the array axis a of each (C
 * arrays in scope, indexed by array axis); no rotation. grid_axes 0: l's kernel on its whole
 * grid, without the rotation. */
void api_emit_launch_part(const Api *api, const PlanLaunch *l, const char *kernel, unsigned grid_axes, StrBuf *o);
/* static cudaError_t NAME_<name>_(bufs, params, n, step0, stream[, dist][, scratch]): the launches
 * in order (scratch where one writes the reductions' partials). In the
 * distributed form (dist set) a halo fill becomes its sided kernel (emit_dist.c), which fills
 * only the faces of the global grid; dist 2: a step group of a run whose fused steps reflect
 * (api_dist_reflects), which reflects the faces first (NAME_dreflect_), as one GPU's launches
 * read them. */
void api_emit_group(const Api *api, const char *name, const PlanLaunch *ls, int n, int dist, StrBuf *o);

/* "" or " && n[0] >= A && ...": the grid sizes n (in scope) that the fused step group needs
 * (Plan.fused_min_n); smaller grids run single steps. */
const char *api_fused_fits(const Api *api);
/* Inside a run function, after api_emit_bind: the prologue, then `steps` (a C expression)
 * steps: whole launches of the step group, then single steps. */
void api_emit_steps(const Api *api, const char *steps, StrBuf *o);
/* Inside a run function: the buffer set b from *f and the workspace; declares err. */
void api_emit_bind(const Api *api, StrBuf *o);
/* Hands the rotated pointers back to *f and frees a workspace that api_emit_bind allocated. */
void api_emit_unbind(const Api *api, StrBuf *o);

/* The distributed API (emit_dist.c): declarations into the header, device and host code into
 * the .cu (after the one-GPU host code, whose groups it calls). */
/* hold=on (emit_hold.c): the extended copies the workspace holds (0 without), the size function
 * the workspace's size calls ("" without), and the held run's functions. */
int api_hold_buffers(const Api *api);
const char *api_hold_size(const Api *api);
void api_emit_hold(const Api *api, StrBuf *o);
void api_emit_dist_header(const Api *api, StrBuf *h);
void api_emit_dist_source(const Api *api, StrBuf *cu);
/* The overlapped step (emit_dist_overlap.c): which kind plan allows (0: none), the function
 * NAME_dist_set_overlap asks whether a run's depth and part fit it, its code (nothing for
 * kind 0), and its part of the local run's loop over groups of steps. */
int api_dist_overlap_kind(const Plan *plan);
/* The array axes (bit a) along which the overlapped step can run the step kernel's blocks in
 * ranges, and the blocks' tile along axis a there (0: not in ranges). */
unsigned api_dist_overlap_axes(const Plan *plan);
int api_dist_overlap_tile(const Plan *plan, int a);
void api_emit_dist_overlap_fits(const Api *api, StrBuf *cu);
void api_emit_dist_overlap(const Api *api, StrBuf *cu);
void api_emit_dist_overlap_loop(const Api *api, StrBuf *o);
/* The reductions' API (emit_reduce_api.c): NAME_reductions and NAME_reduce's declaration into
 * the header, its host code into the .cu; nothing for a stencil without reductions. */
void api_emit_reduce_header(const Api *api, StrBuf *h);
void api_emit_reduce_source(const Api *api, StrBuf *cu);
/* Inside a function with a NAME_bufs_ bufs and f in scope: every buffer a reduction reads from
 * *f into bufs, returning cudaErrorInvalidValue for a NULL one. */
void api_emit_reduce_bind(const Api *api, StrBuf *o);
/* static cudaError_t NAME_<name>_(b, p, n, scratch, stream[, dd]): the reduce launches
 * ls[0..nl) in order. dist: ls is plan->reduce, and each partial launch runs its boxed kernel
 * (cg_build_reduce_boxes) over the rank's owned points, with global coordinates. */
void api_emit_reduce_group(const Api *api, const char *name, const PlanLaunch *ls, int nl, int dist, StrBuf *cu);
/* The distributed reductions (emit_dist_reduce.c): NAME_dist_reduce and NAME_dist_run_reduce;
 * nothing for a stencil without reductions. */
void api_emit_dist_reduce_header(const Api *api, StrBuf *h);
void api_emit_dist_reduce_source(const Api *api, StrBuf *cu);
/* A kernel builder's context for kernels printed into cu by the host emitters. */
void api_kernel_ctx(const Api *api, StrBuf *cu, CgCtx *ctx);
/* The axes (bit a) on which field f is periodic (docs/language.md: on both faces or none). */
int api_periodic_axes(const IrProgram *p, int f);
/* Whether a distributed run's fused steps reflect the global faces (clamp or mirror, a step
 * symmetric along every axis: Plan.held): their layers are then reflected by a copy before
 * each launch (emit_dist.c), never filled. The kind (BC_CLAMP or BC_MIRROR), or 0. */
int api_dist_reflects(const Plan *plan);
/* Whether a rank's held fused steps wrap its local interior (hwrap=on): every layer received
 * then lies inside the interior, none in the kernels' halo ring (NAME_DIST_RING_). */
int api_dist_held_wraps(const Plan *plan);
/* Name of the sided fill kernel of a fill launch. */
const char *api_sided_fill_name(const Api *api, const PlanLaunch *l);

#endif
