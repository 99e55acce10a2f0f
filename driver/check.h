/* The pieces of `stencilc check` beside its run (step_check.c): the initial data from .npy
 * files, the results written as .npy, values that grow without bound (check_data.c), and the
 * emitted kernel run on the GPU against the interpreter (check_gpu.c). */
#ifndef STC_CHECK_H
#define STC_CHECK_H
#include "../ir/interp.h"
#include "steps.h"

/* --init FIELD=FILE.npy: each named field's buffers (every level) of each of the n grids take
 * the file's values. 0, STEP_USAGE (a field the program lacks, or a temp), or -1 (a file that
 * cannot be read, or whose shape is not the grid's). */
int check_init(Job *job, InterpGrid **grids, int n);
/* A float program's initial values rounded to float, as the float kernels see them. */
void check_round_to_type(InterpGrid *g);
/* The largest |value| of each field's interior (newest buffer), NaN and Inf left out. */
void check_max_abs(const InterpGrid *g, double *max_abs);
/* Warns (on job's Diag) about each field whose largest |value| grew more than a millionfold over
 * before, or passed 1e30; returns 1 when one did. */
int check_growth(Job *job, const InterpGrid *g, const double *before);
/* --save DIR or --save FIELD=FILE.npy: the fields' final interiors, in the program's element
 * type, written together. 0, STEP_USAGE (a field the program lacks), or -1. */
int check_save(Job *job, const InterpGrid *g);
/* The plan's kernels on the GPU from the same initial data as want, for steps, compared with
 * want (the interpreter's result); prints the outcome. start is a copy of the initial grid.
 * 0 when it matched or no GPU was there to ask, 1 when it differs or could not run. */
int check_gpu(Job *job, InterpGrid *start, const InterpGrid *want, int steps);

#endif
