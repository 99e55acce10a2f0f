/* The GPU evaluation pipeline of --autotune: measures configurations of one program on one grid
 * in a child process, so that a kernel that poisons the CUDA context (an illegal address, a
 * kernel killed for hanging) costs one failed measurement and a new worker, never the run.
 *
 * The parent never calls CUDA: the worker is forked after the IR is built and before any CUDA
 * call (CUDA state does not survive fork), and restarted the same way. Parent and worker talk
 * over two pipes (configurations in, results out). In the worker, a batch is planned
 * (plan_build; a configuration that space_check or plan_build rejects is never compiled),
 * compiled on a pool of NVRTC threads, and each CUBIN, as soon as it is ready, is loaded,
 * verified against the interpreter on a small odd-sized grid (rt_verify_plan) and timed on the
 * tuning grid (rt_time_grid) by the worker's main thread: compiles overlap the GPU work.
 *
 * Prefix: gpu_eval_. */
#ifndef STC_GPU_EVAL_H
#define STC_GPU_EVAL_H
#include "../codegen/space.h"
#include "../runtime/rt.h"
#include "tune.h"

/* Tests only: stands in for NVRTC and the GPU inside the worker. Returns 0 with *ms, -1 for a
 * plain failure, -2 for an error that poisons the context; may also crash or hang. */
typedef int (*GpuEvalFakeFn)(const Config *c, double *ms, char *why, int whylen);
/* Tests only: seconds the fake worker spends compiling c (0: none), before its GPU work. */
typedef double (*GpuEvalFakeCompileFn)(const Config *c);
/* Tests only: rewrites c's device source before the real worker compiles it, so that a test can
 * make a real kernel fault, hang, compute wrongly or fail to compile on the GPU. Returns a malloc'd
 * text (the worker frees it), or NULL to compile the source as it is. */
typedef char *(*GpuEvalRewriteFn)(const Config *c, const char *source);

typedef struct {
    double target_ms; /* measured time per variant while searching (0: 25 ms) */
    int threads;      /* NVRTC compile threads (0: min(8, cores)) */
    int batch;        /* configurations per evaluate_batch (0: 12) */
    double hang_s;    /* no word from the worker this long: it is killed (0: 60 s) */
    double compile_s; /* a variant still compiling after this long fails, "compiling took
                         longer than ...", and the worker is restarted for the others (0: 30 s) */
    GpuEvalFakeFn fake; /* NULL: the GPU */
    GpuEvalFakeCompileFn fake_compile; /* with fake: how long each compile takes (NULL: none) */
    GpuEvalRewriteFn rewrite;          /* without fake: tests' rewrite of sources (NULL: none) */
    int part; /* a distributed tuning: each configuration built as a rank's part runs it
                 (plan_build_part), on the part's grid */
} GpuEvalOptions;

typedef struct {
    int ok;           /* 1: compiled, verified and timed; 0: failed (why); -1: not measured,
                         the deadline (gpu_eval_set_deadline) came first */
    double ms;        /* ms per step (median) when ok */
    char why[160];    /* when not ok: the first reason, one line */
    double cost_s;    /* what it cost: compile seconds / threads + GPU seconds */
} GpuEvalResult;

typedef struct GpuEval GpuEval;

/* Starts the worker: it opens the GPU and reports what it is. prog, space and grid must
 * outlive the GpuEval. NULL with the reason in why when no worker could open the GPU. */
GpuEval *gpu_eval_start(const IrProgram *prog, const Space *space, const long grid[3],
                        const GpuEvalOptions *opt, char *why, int whylen);
void gpu_eval_stop(GpuEval *g);

/* The worker's device (name, compute capability, driver and NVRTC versions). */
const RtDeviceInfo *gpu_eval_device(const GpuEval *g);
/* "13.0": the NVRTC (toolkit) version that compiles the kernels. */
void gpu_eval_cuda_version(const GpuEval *g, char *buf, int len);

/* Measures n configurations with target_ms of measured time each (0: the options' target).
 * Every result is filled, also when the worker died on the way (it is restarted). */
void gpu_eval_measure(GpuEval *g, const Config *cs, int n, double target_ms, int min_reps,
                      GpuEvalResult *out);
/* The measurements that follow must end within seconds from now (<= 0: no limit): when the
 * time comes in the middle of a batch, the worker is stopped (and restarted for the next
 * request) and the configurations not yet measured get ok -1. */
void gpu_eval_set_deadline(GpuEval *g, double seconds);
/* The tuner's evaluator over g (evaluate and evaluate_batch, batch from the options, and
 * set_deadline). */
void gpu_eval_evaluator(GpuEval *g, TuneEvaluator *ev);
/* Results of the last batch (for recording costs): count, and the array. */
int gpu_eval_last(const GpuEval *g, const GpuEvalResult **out);

/* Runs c and the plain variant (config_default) for `steps` steps (0: 2 x the steps c fuses
 * per launch + 1, at least 4) on the full tuning grid from the same data and compares the
 * final states (rt_compare_plans). Returns 0 when the comparison ran (res->ok says whether it
 * matched), 1 when it cannot decide because the plain kernel does not even match itself (its
 * results leave the finite range on this data; why says so), -1 with why when it could not
 * run. */
int gpu_eval_compare_plain(GpuEval *g, const Config *c, long steps, RtVerifyResult *res,
                           char *why, int whylen);

/* Counters: variants measured, worker restarts, seconds of compiling (summed over threads)
 * and of GPU work. */
typedef struct {
    long measured, restarts;
    double compile_s, gpu_s;
} GpuEvalStats;
void gpu_eval_stats(const GpuEval *g, GpuEvalStats *s);

#endif
