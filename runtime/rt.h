/* The runtime: compiles a Plan's device source in-process with NVRTC, loads it with the CUDA
 * driver API, runs the plan's launch sequence, times it and checks it against the reference
 * interpreter. libcuda and libnvrtc are opened at run time, so everything here compiles and
 * runs (reporting "no GPU") where no GPU or driver exists.
 *
 * No global state: every handle hangs off an RtContext, so GPU work can live in a child process
 * that is restarted after an error poisons its context. Functions that can fail return 0 (or a
 * handle) on success and -1 (or NULL) with a reason a person can read in why. */
#ifndef STC_RT_H
#define STC_RT_H
#include <stddef.h>
#include <stdio.h>
#include "../codegen/plan.h"
#include "../ir/interp.h"

#define RT_MAX_FIELDS 64

/* Diagnostic codes of the runtime's reports (500-599; they extend util/diag.h's list). */
enum {
    STC_E_VALIDATE = 500,       /* --validate: clang found an error in the emitted CUDA */
    STC_W_VALIDATE = 501,       /* --validate: clang warned about the emitted CUDA */
    STC_E_NO_LIBCLANG = 502,    /* --validate: libclang could not be loaded */
    STC_E_NO_GPU = 510,         /* no GPU or CUDA driver */
    STC_E_NVRTC = 511,          /* NVRTC failed to compile the plan's source */
    STC_E_VERIFY = 512,         /* the GPU result differs from the interpreter */
};

typedef struct {
    char name[256];
    char bus_id[32];        /* PCI domain:bus:device, e.g. 0000:01:00.0: names this GPU (a lock) */
    int cc_major, cc_minor;
    int sm_count;
    size_t total_mem;
    int l2_bytes;
    int smem_optin;         /* largest dynamic shared memory a block may opt in to */
    int driver_version;     /* e.g. 12080 */
    int nvrtc_major, nvrtc_minor;
} RtDeviceInfo;

typedef struct RtContext RtContext;
typedef struct RtModule RtModule;
typedef struct RtGrid RtGrid;

/* rt_device.c */
/* 1 when a GPU, its driver and NVRTC can be used; 0 with the reason in why otherwise. */
int rt_available(char *why, int whylen);
/* Opens the libraries, initializes device 0 (or $STC_DEVICE) and its primary context. */
RtContext *rt_context_new(char *why, int whylen);
void rt_context_free(RtContext *rc);
/* A context that can only compile (NVRTC, no driver, no GPU needed) for compute capability
 * cc_major.cc_minor: rt_nvrtc_compile works on it, nothing else does. */
RtContext *rt_context_compile_only(int cc_major, int cc_minor, char *why, int whylen);
const RtDeviceInfo *rt_device_info(const RtContext *rc);
void rt_device_print(FILE *out, const RtContext *rc);

/* rt_nvcc.c: the nvcc that compiles in NVRTC's place ($STC_NVCC), or NULL (NVRTC). */
const char *rt_nvcc_path(void);

/* rt_compile.c */
/* Compiles CUDA source to a CUBIN for the context's GPU with NVRTC (with $STC_NVCC's nvcc where
 * it is set, rt_nvcc.c). Needs no current context and may run on several threads at once. On
 * failure the compiler's log goes to log. The CUBIN is malloc'd; free it with free(). */
int rt_nvrtc_compile(const RtContext *rc, const char *source, const char *name, void **cubin,
                     size_t *cubin_size, char *log, int loglen);
/* Loads a CUBIN and resolves the kernels of every launch of plan (which must outlive it). */
RtModule *rt_module_load(RtContext *rc, const Plan *plan, const void *cubin, char *why,
                         int whylen);
/* Both steps at once. */
RtModule *rt_compile_plan(RtContext *rc, const Plan *plan, char *log, int loglen);
void rt_module_free(RtModule *m);

/* rt_report.c */
/* Compiles source as rt_nvrtc_compile does ($STC_NVCC's nvcc too), with ptxas's resource report
 * (-Xptxas -v): the PTX and that report ("ptxas info : Used 32 registers, ..." per kernel), both
 * malloc'd and NUL-terminated. Needs no GPU (a compile-only context will do). 0, or -1 with the log. */
int rt_nvrtc_report(const RtContext *rc, const char *source, const char *name, char **ptx,
                    char **report, char *log, int loglen);

/* rt_run.c: device state of a program on a grid of interior size n (1 on axes >= dims): every
 * field and level gets a buffer of the padded size (ir.h's layout). A size beyond ir.h's index
 * range (ir_check_extent) is refused with the reason, before anything is allocated. */
RtGrid *rt_grid_new(RtContext *rc, const IrProgram *prog, const int n[3], char *why, int whylen);
void rt_grid_free(RtGrid *g);
/* Copies every buffer, which buffer is newest, and the parameters from an interpreter grid of
 * the same program and size (converted to the element type). */
int rt_grid_upload(RtGrid *g, const InterpGrid *ig, char *why, int whylen);
/* Copies every buffer of every field back into ig (as double) and sets ig->newest. */
int rt_grid_download(RtGrid *g, InterpGrid *ig, char *why, int whylen);
/* Fills every buffer with reproducible values in [0.5, 1.5) (without an InterpGrid, for grids
 * too big for the host), parameters with their defaults. */
int rt_grid_fill_random(RtGrid *g, unsigned seed, char *why, int whylen);
/* Blocks per grid axis of launch l on interior size n, as the emitted host code computes them
 * (64-bit, never wrapping): 0, or -1 with the reason in why when an axis needs more blocks
 * than CUDA allows. */
int rt_launch_grid(const PlanLaunch *l, const int n[3], unsigned grid[3], char *why, int whylen);
/* Copies count elements of the newest buffer of field f, from linear index at (ir.h's layout),
 * to out as double: a few points of a grid too large to download. */
int rt_grid_read(RtGrid *g, int f, long long at, int count, double *out, char *why, int whylen);
/* Launches the prologue, then `steps` steps: groups of plan->step while step_count fits, then
 * single steps; the state fields' buffers rotate after each launch with rotate_after. */
int rt_run(RtModule *m, RtGrid *g, long steps, char *why, int whylen);
/* The program's reductions on g's current state into out (one per reduction, as interp_reduce
 * gives them), through the plan's reduce launches (rt_reduce.c). Returns 0, or -1 with why. */
int rt_reduce(RtModule *m, RtGrid *g, double *out, char *why, int whylen);
/* NAME_run_reduce: the prologue, `steps` (at least 1) steps, the last one the fused step where
 * the plan has one (plan->fused), then the reductions after it into out (rt_reduce.c). */
int rt_run_reduce(RtModule *m, RtGrid *g, long steps, double *out, char *why, int whylen);
/* The pieces of rt_run: the prologue, and the step launches alone (used by the timer). */
int rt_run_prologue(RtModule *m, RtGrid *g, char *why, int whylen);
int rt_run_steps(RtModule *m, RtGrid *g, long steps, char *why, int whylen);
/* Waits for the GPU; reports an error raised by an earlier launch. */
int rt_sync(RtContext *rc, char *why, int whylen);

/* rt_verify.c */
typedef struct {
    int ok;
    double tolerance;
    double max_rel_err;     /* largest over the compared fields */
    int worst_field;        /* -1 when none was compared */
    int worst_reduce;       /* the reduction whose error is max_rel_err, or -1 (rt_verify_plan) */
    int n[3];
    long steps;
} RtVerifyResult;

/* Relative tolerance for prog's element type after `steps` steps. */
double rt_tolerance(const IrProgram *prog, long steps);
/* The default verification grid: odd sizes, at least 2*halo+3 per axis (67x61 in 2D, 37x33x29
 * in 3D, 67 in 1D). */
void rt_verify_size(const IrProgram *prog, int n[3]);
/* The same for a plan: with vector accesses (vec > 1), x widened to the next size whose padded
 * row is a multiple of vec, so that the vector path is what runs (the odd rows of a larger grid,
 * where every thread takes the checked path, are what test_rt_examples compares next). */
void rt_verify_size_plan(const Plan *plan, int n[3]);
/* Widens x of n as rt_verify_size_plan does (nothing without vector accesses). */
void rt_verify_align_rows(const Plan *plan, int n[3]);
/* Runs m's plan for `steps` steps on a grid of size n (NULL: rt_verify_size_plan) from random data
 * and compares the newest buffer of every state field (and every coef field, which must not
 * change) with the interpreter, interior points only. Returns 0 when it ran (res->ok says
 * whether it matched), -1 when it could not run. */
int rt_verify_plan(RtContext *rc, RtModule *m, const int n[3], long steps, RtVerifyResult *res,
                   char *why, int whylen);
/* Compares the final states of two plans of the same program, same data, same grid. */
int rt_compare_plans(RtContext *rc, RtModule *a, RtModule *b, const int n[3], long steps,
                     RtVerifyResult *res, char *why, int whylen);
/* Steps for comparing plan p with the plain plan: both its fused groups and its single steps
 * run, and few enough that random data stay finite (2 x steps per group, +1 with a single-step
 * tail, at least 4). */
long rt_reference_steps(const Plan *p);
/* m against ref (the plain kernel) on grid n for steps (0: rt_reference_steps of m's plan). ref
 * is first compared with itself: where random data leave the finite range within the steps (or
 * ref does not reproduce itself) nothing can be decided, and *decided = 0 with res holding that
 * self-comparison; else *decided = 1 and res->ok says whether m matches. Returns 0 when it ran,
 * -1 (why) when it could not. */
int rt_compare_reference(RtContext *rc, RtModule *ref, RtModule *m, const int n[3], long steps,
                         RtVerifyResult *res, int *decided, char *why, int whylen);
/* The comparison itself, on two host grids of the same program and size: writes the largest
 * relative error over the state (and coef) fields and returns it. */
double rt_compare_grids(const InterpGrid *got, const InterpGrid *want, int *worst_field);

/* rt_time.c */
typedef struct {
    double target_ms;       /* measure at least this long in total (0: 50) */
    int min_reps;           /* 0: 5 */
    int max_reps;           /* 0: 200 */
    long steps_per_rep;     /* 0: a multiple of step_count taking about 1 ms */
    int flush;              /* -1 never, 0 when the grid fits in L2 (default), 1 always */
    long run_steps;         /* the steps of the run timed for (0: unknown): a held plan (hold=on,
                               rt_hold.c) is timed by whole runs of its groups, so that its copies
                               in and out count once a run, as they do */
} RtTimeOptions;

typedef struct {
    double ms_per_step;     /* median repetition time / steps_per_rep */
    double min_ms_per_step;
    int reps;
    long steps_per_rep;
    int flushed;            /* whether L2 was flushed between repetitions */
} RtTiming;

int rt_time_plan(RtContext *rc, RtModule *m, const int n[3], const RtTimeOptions *opt,
                 RtTiming *out, char *why, int whylen);
/* The same on a grid that already holds data (its prologue is launched first). */
int rt_time_grid(RtModule *m, RtGrid *g, const RtTimeOptions *opt, RtTiming *out, char *why,
                 int whylen);

/* rt_bench.c */
/* Device-to-device copy bandwidth in GB/s (bytes read + written / time), 1 GiB buffers. */
double rt_copy_bandwidth(RtContext *rc, char *why, int whylen);
/* Prints GStencil/s, GB/s (prog->an.bytes_per_point per point and step) and the share of the
 * copy bandwidth (skipped when copy_gbs <= 0). */
void rt_bench_report(FILE *out, const IrProgram *prog, const int n[3], const RtTiming *t,
                     double copy_gbs);
double rt_gstencils(const int n[3], double ms_per_step);

/* validate.c: parses CUDA source (the emitted .cu) with libclang as device code for sm_90 and
 * prints its warnings and errors as stencilc diagnostics. name is the path; text, when not NULL,
 * is the content (otherwise the file is read). Returns the number of errors plus warnings, or
 * -1 when libclang is missing or could not parse at all (said on diag_out). */
int rt_validate_source(const char *name, const char *text, FILE *diag_out);
/* 1 when libclang can be loaded; 0 with the reason. */
int rt_validate_available(char *why, int whylen);

#endif
