/* The public entry points of code generation beyond the Plan: the emitted C API. */
#ifndef STC_CODEGEN_H
#define STC_CODEGEN_H
#include "../util/strbuf.h"
#include "dist_model.h"
#include "plan.h"
#include "space.h"

/* Prints the host API of plan: into cu the file BASE.cu (the Plan's device source verbatim, then
 * host code with extern "C" functions that replay the launch sequence) and into h the header
 * BASE.h (layout, boundary handling, configuration, declarations). base is the file name without
 * extension (a directory part is ignored); the C prefix is cg_prefix's. Returns 0, or -1 on bad
 * arguments. docs/c-api.md. */
int cg_emit(const Plan *plan, const char *base, StrBuf *cu, StrBuf *h);
/* cg_emit, with the .cu including the header as h_include (its path relative to the .cu; NULL:
 * BASE.h), and with distributed set also the distributed API of docs/distributed.md (NCCL halo
 * exchange over a Cartesian process grid; the header then includes <nccl.h>). */
int cg_emit_opts(const Plan *plan, const char *base, const char *h_include, int distributed, StrBuf *cu,
                 StrBuf *h);
/* cg_emit_opts with the distributed API, whose header recommends choice's depth and overlap
 * (NAME_DIST_DEPTH, NAME_DIST_OVERLAP, with the model's predictions); NULL: depth 1, no
 * overlap, nothing predicted. */
int cg_emit_dist(const Plan *plan, const char *base, const char *h_include, const CgDistChoice *choice, StrBuf *cu,
                 StrBuf *h);
/* The interior of one rank's local buffers in a distributed run of p over global split by procs
 * with exchange depth `depth` (the largest rank's, as NAME_dist_init lays it out): what a
 * distributed tuning measures on. Returns 0, or -1 with a reason (a part thinner than the
 * layers it sends, a split of an axis the grid does not have). reflects: how the run's fused
 * steps reflect the global faces (api_dist_reflects: BC_CLAMP, BC_MIRROR, or 0), which then
 * have deep layers too; held_wraps: the held fused steps wrap the interior (hwrap=on,
 * api_dist_held_wraps), which then holds the layers of the kernels' halo ring too. */
int cg_dist_local_size(const IrProgram *p, const long global[3], const long procs[3], int depth, int reflects,
                       int held_wraps, long local[3], char *why, int whylen);

/* The stencil's name as a C identifier, in arena. */
const char *cg_c_identifier(Arena *arena, const char *name);
/* The prefix of every emitted symbol, type and macro (in capitals): the program's c_prefix
 * (--name) where set, else its name as a C identifier (j2d9pt-gol -> j2d9pt_gol). */
const char *cg_prefix(Arena *arena, const IrProgram *prog);

/* The generator: its version and the digest of ir/ and codegen/, "0.1.0 (generator
 * 9eb52dfcbf07)", on the emitted files' first lines, in `stencilc --version` and in the tuning
 * database's key. */
const char *cg_version(void);

#endif
