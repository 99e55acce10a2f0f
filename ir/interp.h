/* The reference interpreter: the oracle every generated kernel is checked against. It runs a
 * program on the CPU in double precision, with the same memory layout as the generated code
 * (ir.h) and the same boundary semantics (docs/language.md). */
#ifndef STC_INTERP_H
#define STC_INTERP_H
#include <stdio.h>

#include "ir.h"

typedef struct {
    const IrProgram *prog;
    int n[3];          /* interior size; 1 on axes >= dims */
    int pad[3];        /* padded extents n[d] + 2*halo[d] */
    long total;        /* elements per buffer */
    /* buf[f][l]: field f, buffer l. State fields have prog->fields[f].levels buffers; coef and
     * temp fields have one. newest[f] is the index of the buffer holding step t, the one before
     * it holds t-1 (levels 3). */
    double **buf[64];
    int newest[64];
    double *params;    /* one per program parameter (defaults filled in) */
} InterpGrid;

/* Allocates (heap) a grid of interior size n for prog, all zeros, params set to defaults.
 * NULL when the grid passes ir.h's index range (ir_check_extent). */
InterpGrid *interp_grid_new(const IrProgram *prog, const int n[3]);
void interp_grid_free(InterpGrid *g);
/* Fills every buffer of every field (halo included) with reproducible values in [0.5, 1.5). All
 * levels of a state field get the same values. */
void interp_fill_random(InterpGrid *g, unsigned seed);
/* Index of interior point (i,j,k) (may be negative into the halo) in a buffer. */
long interp_index(const InterpGrid *g, int i, int j, int k);
/* The interior coordinate whose value coordinate x takes on an axis of n points under bc
 * (x itself inside the interior and for fixed and constant boundaries); any int x and n. */
int interp_map_coord(BoundaryKind bc, int x, int n);
/* Applies each field's boundary condition to the halo of its newest buffer (fixed: nothing). */
void interp_fill_halos(InterpGrid *g);
/* Advances steps time steps. At the start, halos are made consistent as the generated code does:
 * each field's boundary condition is applied to its newest buffer, and for `fixed` fields the
 * newest buffer's halo is copied to the field's other buffers. (Non-fixed fields get their
 * condition applied to every buffer, so that u@-1 read at an offset sees a filled halo in the
 * first step; fixed temps get a halo of 0.) A halo point maps each coordinate independently:
 * corner (-1,-1) under clamp is interior point (0,0); periodic and mirror wrap or reflect as
 * often as needed when the halo is wider than the interior. Each step: the stages in order,
 * state fields written into the buffer after the newest, temps into their one buffer (halo
 * filled by their condition after their stage); then unwritten state fields are copied whole,
 * every state field rotates, and the new newest buffer's halo is filled. The built-in step is
 * 0 in the first step of each call (as in the emitted NAME_run). */
void interp_run(InterpGrid *g, int steps);
/* The program's reductions (ir.h, IrReduce) on the current state, one value each into out:
 * over the interior in order x, then y, then z; sums in double; min and max exact, and NaN
 * when any value is NaN (so that a diverged run never reports a small residual). scale (NULL:
 * not wanted) gets each value's magnitude for comparisons: a sum's of |x|, a min's or max's |value|. */
void interp_reduce(const InterpGrid *g, double *out, double *scale);
/* Called before each step with the steps done and the total; nonzero stops the run there. */
typedef int (*InterpTick)(void *ctx, int done, int total);
/* interp_run, asking tick (NULL: never) before each step; returns the steps run. */
int interp_run_ticking(InterpGrid *g, int steps, InterpTick tick, void *ctx);

/* The pieces of ir_check_report (check.c), for `stencilc check` on a grid of its choosing: */
/* The small odd grid check runs on by default (37 x 29 x 23, each axis at least 2*halo+1); -1
 * when the halo makes it too large to run. */
int ir_check_size(const IrProgram *p, int n[3]);
/* "check NAME: grid 37 x 29, halo 1,1, 3 steps, seed 1, double precision" */
void ir_check_heading(FILE *out, const InterpGrid *g, int steps, unsigned seed);
/* Per field: min, max, mean and a position-weighted checksum of the interior of its newest
 * buffer, and a warning where it holds NaN or Inf; returns 1 when one does, else 0. */
int ir_check_summary(FILE *out, const InterpGrid *g);

#endif
