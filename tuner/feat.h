/* Static features of a variant, known without running it: what the program is (the IR's
 * analyses), what the configuration asks for, what its plan launches, what the compiled kernel
 * uses (registers, spills, shared memory, from ptxas's report) and executes (the instruction
 * mix of its PTX), and its theoretical occupancy on a GPU of the table (occupancy.h). The
 * learned model (model.h) ranks variants by them; occupancy pruning reads them too.
 *
 * Everything but feat_kernel_compile is plain computation on the IR, the configuration, the plan
 * and text, so it runs and is tested without a GPU or CUDA. Prefix: feat_. The code is in
 * features.c, features_ptx.c and features_kernel.c; the header is feat.h, not features.h, which
 * -Ituner would put in the place of glibc's <features.h>. */
#ifndef STC_FEAT_H
#define STC_FEAT_H

#include "../codegen/plan.h"
#include "../codegen/space.h"
#include "occupancy.h"

/* The features, in the order of the vector. The model file names the ones it reads, so a model
 * made before a feature was added still loads (a feature it does not know is not used). */
#define FEAT_LIST(X)                                                                              \
    /* the program (ir/analyse.c) */                                                              \
    X(p_dims) X(p_radius) X(p_points) X(p_flops) X(p_bytes) X(p_star) X(p_box) X(p_double)        \
    X(p_fields_read) X(p_fields_written) X(p_stages) X(p_nonlinear) X(p_log2_grid)                \
    X(p_flops_per_byte)                                                                           \
    /* the configuration, each value as log2 (booleans 0/1) */                                    \
    X(c_tbx) X(c_tby) X(c_tbz) X(c_smem) X(c_cmem) X(c_stream) X(c_sd) X(c_sb)                    \
    X(c_ufx) X(c_ufy) X(c_ufz) X(c_cmx) X(c_cmy) X(c_cmz) X(c_bmx) X(c_bmy) X(c_bmz)              \
    X(c_retime) X(c_prefetch) X(c_tblock) X(c_regq) X(c_maxreg) X(c_vec) X(c_hcol)                \
    X(c_select) X(c_hold)                                                                         \
    /* derived from the configuration and the program */                                          \
    X(d_threads) X(d_points_thread) X(d_family_plain) X(d_family_tile) X(d_family_stream)         \
    X(d_family_retime) X(d_family_temporal) X(d_loads_point) X(d_row_bytes) X(d_halo_ratio)       \
    /* the plan: launches, shared memory, blocks */                                               \
    X(l_launches) X(l_smem_kib) X(l_log2_blocks) X(l_waves) X(l_fill)                             \
    /* the compiled kernel (ptxas report, PTX): -1 where not compiled */                          \
    X(k_known) X(k_regs) X(k_spill) X(k_stack) X(k_barriers)                                      \
    X(k_ptx_instr) X(k_ld_global) X(k_st_global) X(k_ld_shared) X(k_st_shared) X(k_ld_const)      \
    X(k_fma) X(k_farith) X(k_iarith) X(k_shfl) X(k_branch) X(k_vector_mem)                        \
    /* occupancy on the GPU (registers: the compiled count, else the cap, else 32) */             \
    X(o_occupancy) X(o_blocks_sm) X(o_by_regs) X(o_by_smem) X(o_regs_used)                       \
    /* the GPU (occupancy.h's table) */                                                           \
    X(g_cc) X(g_sms) X(g_mem_gbs) X(g_l2_mib) X(g_smem_sm_kib) X(g_max_warps)

typedef enum {
#define FEAT_ENUM(name) FEAT_##name,
    FEAT_LIST(FEAT_ENUM)
#undef FEAT_ENUM
    FEAT_COUNT
} FeatId;

extern const char *const feat_names[FEAT_COUNT];
/* The index of a feature by name, -1 when unknown. */
int feat_index(const char *name);

/* What ptxas and the PTX say about the step's kernels (the stage kernels, not halo fills):
 * resources of the largest, instruction counts summed over them (static counts: an instruction
 * in a loop counts once). */
typedef struct {
    int known;              /* 1 when the counts below come from a compile */
    int regs, spill_bytes, stack_bytes, smem_static, barriers;
    int instr, ld_global, st_global, ld_shared, st_shared, ld_const;
    int fma, farith, iarith, shfl, branch, vector_mem;
} FeatKernel;

/* Counts the PTX of kernel `name` (the .entry of that name; all entries when name is NULL) into
 * k's instruction fields (adding to them). 0, or -1 when there is no such entry. */
int feat_ptx_mix(const char *ptx, const char *name, FeatKernel *k);
/* Reads ptxas's verbose report (NVRTC's log with -Xptxas -v) for kernel `name`: registers,
 * spill stores + loads, stack frame, static shared memory, barriers; k keeps the largest of what
 * it held and what the report says. 0, or -1 when the report does not name the kernel. */
int feat_ptxas_parse(const char *report, const char *name, FeatKernel *k);
/* Both, over the stage kernels of plan's step: k->known = 1 when every one was found. */
int feat_kernel_from_text(const Plan *plan, const char *ptx, const char *report, FeatKernel *k);

/* The feature vector of (program, configuration) on the space's grid for GPU g: plan may be NULL
 * (built here when the caller has none; then arena is needed), k NULL when not compiled. 0, or
 * -1 with why when the plan cannot be built (the configuration is not valid). */
int feat_variant(const Space *s, const Config *c, const Plan *plan, const FeatKernel *k,
                 const OccGpu *g, Arena *arena, double out[FEAT_COUNT], char *why, int whylen);

/* The occupancy that feat_variant uses: registers from k when known, else the cap (maxreg), else
 * 32; shared memory from the plan (dynamic) and k (static). */
Occupancy feat_occupancy(const Plan *plan, const FeatKernel *k, const OccGpu *g);

/* The step's main kernel (the stage launch with the most threads): its threads per block, the
 * largest dynamic shared memory of the step's launches, and its blocks on grid n. */
void feat_launch_shape(const Plan *plan, const long n[3], int *threads, int *smem, double *blocks);

/* Prints the named vector, one "name value" per line (`stencilc model features`). */
void feat_print(FILE *out, const double v[FEAT_COUNT]);

#endif
