/* IR programs built by hand for the codegen tests (no parser or lowering needed). */
#ifndef STC_TEST_HAND_IR_H
#define STC_TEST_HAND_IR_H
#include "ir.h"
#include "plan.h"

IrProgram *hb_program(Arena *a, const char *name, int dims, ElemType type);
int hb_field(Arena *a, IrProgram *p, const char *name, FieldRole role, int levels, BoundaryKind bc,
             double bc_value);
int hb_param(Arena *a, IrProgram *p, const char *name, double def);
int hb_stage(Arena *a, IrProgram *p);
int hb_const(Arena *a, IrProgram *p, int s, double v);
int hb_par(Arena *a, IrProgram *p, int s, int param);
int hb_read(Arena *a, IrProgram *p, int s, int field, int level, int dx, int dy, int dz);
int hb_op(Arena *a, IrProgram *p, int s, IrOp op, int x, int y, int z);
void hb_write(Arena *a, IrProgram *p, int s, int field, int node);
/* Halo, footprints, uses, field flags, materialized temps, the symmetry (IrAnalysis.symmetric). */
void hb_finish(IrProgram *p);

/* The hand-built test programs: star2d, box3d, wave (3 levels + coef), twofield, twostage, heat1d. */
enum { HB_NPROGRAMS = 6 };
IrProgram *hb_example(Arena *a, int which);
/* p with every state field's boundary set to bc on every face; returns p. */
IrProgram *hb_with_boundary(IrProgram *p, BoundaryKind bc);

/* Test helpers shared by the codegen tests: the plan of p under the --config text cfg (which
 * must be valid; the test aborts with the reason otherwise), and assertions on emitted text. */
Plan *hb_plan(Arena *a, const IrProgram *p, const char *cfg);
void hb_has(const char *text, const char *needle);
void hb_lacks(const char *text, const char *needle);
/* How many times needle occurs in text (overlapping occurrences count). */
int hb_count(const char *text, const char *needle);
/* Stores array[index] = ... in block b, nested ones too (index: a variable's name, or NULL for
 * any index). */
int hb_count_stores(const KBlock *b, const char *array, const char *index);
/* The counted loop over var among b's statements, or NULL. */
const KStmt *hb_find_loop(const KBlock *b, const char *var);
/* The nvcc to run (CUDA's, else one on PATH), or NULL when there is none. */
const char *hb_find_nvcc(void);
/* The emitted files NAME.cu and NAME.h of each names[i] (cu[i], h[i]) compiled by nvcc as one
 * unit (their prefixes must differ), warnings as errors; nvcc's exit status. */
int hb_nvcc_compile(const char *nvcc, const char *const names[], const StrBuf *const cu[], const StrBuf *const h[],
                    int n);
/* An nvcc test's start: nvcc (hb_find_nvcc) and a new scratch folder /tmp/TAG_XXXXXX in dir; NULL,
 * with "no nvcc: skipped" said, where there is no nvcc (the test exits 77). */
const char *hb_nvcc_scratch(char *dir, size_t len, const char *tag);
/* A test's scratch folder at its end: kept and named on stderr when it failed, else removed.
 * Returns failed != 0 (the test's exit status). */
int hb_scratch_done(const char *dir, int failed);
/* The plan's files written as base.cu and base.h (cg_emit with base as their name). */
void hb_emit_files(const Plan *plan, const char *base);

#endif
