/* Internal to the temporal pass's builders. opt_temporal.c chooses the kernel family (its own
 * overlapped tile; streaming, opt_temporal_stream.c; streaming with retiming,
 * opt_temporal_retime.c) and adds it to the plan; the families share the pieces of
 * opt_temporal_common.c and opt_temporal_geom.c, which call none of them. */
#ifndef STC_OPT_TEMPORAL_BUILD_H
#define STC_OPT_TEMPORAL_BUILD_H
#include "opt.h"
#include "opt_temporal.h"

/* ---- the kernels (the retimed one NULL, with a reason in why, for a step it cannot take) ---- */

KKernel *tb_build_tile(CgCtx *ctx, int stage, const char *name, const CgArgs *args, const TbGeom *g);
KKernel *tbs_build_stream(CgCtx *ctx, int stage, const char *name, const CgArgs *args, const TbsGeom *g);
KKernel *tbs_build_retime(CgCtx *ctx, int stage, const char *name, const CgArgs *args, const TbsGeom *g,
                          char *why, int whylen);

/* ---- geometry (opt_temporal_geom.c; opt_temporal.h has what the space reads too) ---- */

/* A temporal kernel's launch: block B, output tile O along the grid's axes, smem bytes, K steps. */
void tb_launch(PlanLaunch *l, const int B[3], const int O[3], int dims, long long smem, int K);
/* Where an in-plane offset (off along the axes other than sd) lies in the shared tile, relative
 * to column g->col's slot; 0 for the own column (offsets stay within the halo, so no other is
 * 0). 2D with several columns a thread: the tile is stored transposed (opt_temporal_geom.c). */
long long tbs_inplane_offset(const TbsGeom *g, const int off[3]);
/* Where column g->col of thread 0 lies in a plane, beyond tx: g->col * tbx in 2D (the transposed
 * tile), 0 in 3D (whose column's row, ty_c, places it). */
long long tbs_column_slot(const TbsGeom *g);
/* The slot of a plane that holds point x (>= 0) of the tile: x itself but in 2D with several
 * columns a thread, where the ring is transposed (slot_2d). */
KExpr *tbs_place_slot(Kb *b, const TbsGeom *g, KExpr *x);

/* ---- shared pieces (opt_temporal_common.c) ---- */

/* Whether the kernel loads state field f: the step reads it. A field the step only writes
 * (v = u[0,0,1]) has no level 0 argument (cg_stage_args) and needs no input. A three-level
 * field is always loaded (opt_temporal.c gives it both input levels). */
int tb_loads(const CgCtx *ctx, int f);
/* Whether f is a three-level state field: the kernels keep steps t-1 and t of it, and store
 * its last two steps (to levels +1 and +2, Plan.ring3). */
int tb_three_levels(const IrProgram *p, int f);
int tb_any_three_levels(const IrProgram *p);
/* The last step's w-th store at the point's global index idx: array[idx] = value, but for a
 * three-level field step t+K to level +2 and step t+K-1 (older(ctx, f), the family's) to level
 * +1 (plan.c rotates the field's buffers twice). */
void tb_store_last(CgCtx *ctx, KBlock *out, int w, KExpr *array, KExpr *value, KExpr *(*older)(CgCtx *, int));
/* The field of the point's w-th stored write (cg_build_point's order). */
int tb_stored_field(const IrProgram *p, int stage, int w);
/* (T)0 */
KExpr *tb_zero(CgCtx *ctx);
/* `extern __shared__ __align__(16) unsigned char tb_smem[];` */
void tb_shared_memory(CgCtx *ctx, KBlock *out);
/* `[const] T *const name = at;` (quals: KQ_CONST for a pointer to const) */
void tb_pointer(CgCtx *ctx, KBlock *out, int quals, const char *name, KExpr *at);
/* `T *const name = (T *)tb_smem + offset;` (offset in elements) */
void tb_smem_pointer(CgCtx *ctx, KBlock *out, const char *name, long long offset);
/* `(void)name;`: a value only some programs or points use (nvcc warns of unused variables). */
void tb_may_go_unused(CgCtx *ctx, KBlock *out, const char *name);

/* `int name = ...;` into out: the interior coordinate whose value coordinate x takes under bc
 * (periodic, clamp, mirror) along an axis of n points. exact: right at any distance from the
 * grid (a load's, once a launch); else (a step's) right within n - 1 points of it, which the
 * plan's step_min_extent asks of the grid. */
KExpr *tb_source(CgCtx *ctx, KBlock *out, BoundaryKind bc, KExpr *x, KExpr *n, int exact, const char *name);
/* The same, exact, as the halo fills between steps take it: clamp as clamp where fused steps
 * reflect it (tb_source takes a radius-1 clamp as a reflection about the edge's middle there). */
KExpr *tb_halo_source(CgCtx *ctx, KBlock *out, BoundaryKind bc, KExpr *x, KExpr *n, const char *name);

/* The streaming kernels' shared memory (K rings of `slots` planes per state field, tbs<f>_<s>,
 * and a three-level field's loaded older level, tbso<f>), the coordinates and predicates of each
 * of the thread's columns, and column g->col's queue registers q<f>_<s>_<position> (the older
 * level's qo<f>_<pos>). */
void tbs_rings(CgCtx *ctx, KBlock *out, const TbsGeom *g);
void tbs_column(CgCtx *ctx, KBlock *out, const TbsGeom *g);
void tbs_queue_registers(CgCtx *ctx, KBlock *out, const TbsGeom *g, int f);
/* A streaming temporal kernel with what both forms declare first: shared memory, strides, rings,
 * the column (tbs_rings, tbs_column). */
KKernel *tbs_kernel(CgCtx *ctx, const char *name, const CgArgs *args, const TbsGeom *g, const char *comment);
/* A thread with several columns (TbsGeom.C > 1) names what is the column's, not the thread's,
 * with the column's suffix: name_c<col> (lcol_c1, q0_2_1_c1); with one column, name. */
const char *tbs_name(CgCtx *ctx, const TbsGeom *g, const char *name);
KExpr *tbs_var(CgCtx *ctx, const TbsGeom *g, const char *name);
/* The queue register q<f>_<s>_<pos> of column g->col (s -1: the older level's qo<f>_<pos>). */
KExpr *tbs_queue(CgCtx *ctx, const TbsGeom *g, int f, int s, int pos);
/* The queue register that holds, for column g->col, the value at in-plane offset off of queue s
 * at position pos: the column's own, or that of another column of the same thread (off along
 * the column axis only; its register and its ring slot are written together); NULL where the
 * value lies in another thread's column (the ring). */
KExpr *tbs_own_register(CgCtx *ctx, const TbsGeom *g, const int off[3], int f, int s, int pos);
/* Whether another thread reads column g->col's ring slots: in 2D with several columns a
 * thread, only the R columns at each end of the thread's are (the others' neighbours are the
 * thread's own registers), so the others are not stored to the rings; under clamp or mirror a
 * halo column's source may be any column, so every column is stored. */
int tbs_ring_read(const TbsGeom *g);
/* The column's coordinate along in-plane axis d (i, j; i_c<col> or j_c<col> along the column
 * axis ca with several columns) and its place in the tile along d (tx, ty; tx_c<col> ...). */
KExpr *tbs_coord(CgCtx *ctx, const TbsGeom *g, int d);
KExpr *tbs_place(CgCtx *ctx, const TbsGeom *g, int d);
/* C copies of g, one per column of the thread (TbsGeom.col 0 .. C-1). */
TbsGeom *tbs_columns(CgCtx *ctx, const TbsGeom *g);
/* tbs<f>_<s>[lcol + offset]: column g->col's place in a plane of field f's ring of step s (s -1:
 * the loaded older level's ring tbso<f>). */
KExpr *tbs_ring_at(CgCtx *ctx, const TbsGeom *g, int f, int s, long long offset);
/* Loads input plane `plane` of every state field the step reads into nx<f> (a three-level
 * field's older level into nxo<f>), for each of the thread's columns. The retimed kernel
 * computes the plane's offset in the buffer once for all columns, the other each column in its
 * own scope: ptxas allocates registers differently, and each form measured faster in its own
 * kernel (H100, 2026-11-27, box3d1r `tb=32x16x1,stream=z,sb=128,tblock=2,retime=on,bm=1x2x1`
 * 316 -> 365 GStencil/s with it, 54 -> 40 registers; star3d1r
 * `tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1` 583 -> 541 with it; docs/performance.md).
 * inside: the plane lies inside the grid along the axis, so it is loaded as it is (no source,
 * no check). */
void tbs_load(CgCtx *ctx, KBlock *out, const TbsGeom *g, KExpr *plane, int inside);
/* The plane loop `for (int it = 0; it < count; it += Q)`, pushed onto out. */
KStmt *tbs_plane_loop(CgCtx *ctx, KBlock *out, const TbsGeom *g);
/* Copy u of the plane loop, pushed onto loop: past the last plane it breaks; it puts the loaded
 * plane p0 at the newest position of step 0's queue and ring (and of the older level's), and
 * loads the next (inside: a plane of the grid, tbs_load). Returns the copy's body, where the
 * steps go. */
KBlock *tbs_copy(CgCtx *ctx, KStmt *loop, const TbsGeom *g, int u, int inside);
/* Whether the state fields wrap or reflect (TB_WRAP): the streaming kernels then load every
 * column and plane from its source (cidx is the column's) and compute every point. */
int tbs_wraps(const CgCtx *ctx);
/* Plane x's source along the streaming axis where halo planes are not held (fast form: the
 * plan's fused_min_n keeps x within a grid's length); else x. */
KExpr *tbs_plane_source(CgCtx *ctx, const TbsGeom *g, KExpr *x);
/* Retimed kernel (TbsGeom.retime): po<s> = (long long)(ps + R) * ssd into copy, once for all the
 * thread's columns, for each step s (ps = p0 - s*Lag, wrapped under TB_WRAP). */
void tbs_plane_offsets(CgCtx *ctx, KBlock *copy, const TbsGeom *g);
/* The index of step s's plane ps at column g->col in a global buffer: cidx + (long long)(ps + R)
 * * ssd (ps wrapped or reflected under TB_WRAP unless inside: the plane lies inside the grid,
 * as in the fast plane loop); in the retimed kernel cidx + po<s>. */
KExpr *tbs_plane_index(CgCtx *ctx, const TbsGeom *g, int s, int inside);
/* ps inside the grid along the axis, one unsigned comparison: (unsigned)ps < (unsigned)n. */
KExpr *tbs_plane_inside(CgCtx *ctx, const TbsGeom *g);
/* col_out && ps >= zfirst && ps < zstop (column g->col's): the last step's plane is an output
 * of the block. */
KExpr *tbs_output_plane(CgCtx *ctx, const TbsGeom *g);

/* ---- clamp and mirror along the streaming axis, the checked plane loop (opt_temporal_edge.c) ---- */

/* Copy u, before its steps: hs = p0 - n and hv<f>, the value of the one step's plane past the end. */
void tbs_edge_high_sources(CgCtx *ctx, KBlock *copy, const TbsGeom *g, int u, BoundaryKind bc);
/* Step s, after its point: r<f> = hv<f> where its plane lies past the end. */
void tbs_edge_high(CgCtx *ctx, KBlock *out, const TbsGeom *g, int s);
/* Step s of copy u, after its queue and ring write: the halo planes that cannot wait (mirror). */
void tbs_edge_low_now(CgCtx *ctx, KBlock *out, const TbsGeom *g, int u, int s, BoundaryKind bc);
/* Copy u, after its steps: the halo planes before the start whose source the copy computed. */
void tbs_edge_low_late(CgCtx *ctx, KBlock *copy, const TbsGeom *g, int u, BoundaryKind bc);

#endif
