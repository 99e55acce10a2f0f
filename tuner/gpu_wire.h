/* The protocol between the GPU evaluation's parent (gpu_eval.c), which never touches CUDA, and
 * its worker process (gpu_worker.c), which does all GPU work.
 *
 * Parent -> worker: a Req followed by n Configs. Worker -> parent: one HELLO when it starts
 * (with the device's description), then for each configuration of a request a COMPILING when a
 * compile thread takes it, a BEGIN when its GPU work starts and a RESULT when it ends, and a
 * DONE after the last. A variant that compiles for longer than the limit (GpuEvalOptions.
 * compile_s; a 729-point box with deep unrolling took over a minute) is failed by the parent, which
 * stops the worker and sends the rest of the batch to a new one. When the worker dies, or
 * reports an error that poisons its CUDA context (sticky), the BEGIN without a RESULT names the
 * configuration to blame; the others of the batch go to a new worker. */
#ifndef STC_GPU_WIRE_H
#define STC_GPU_WIRE_H

#include <stddef.h>
#include <sys/types.h>

#include "gpu_eval.h"

#define MAX_BATCH 64

enum { REQ_MEASURE = 1, REQ_COMPARE = 2 };
typedef struct {
    int type, n, min_reps;
    double target_ms;
    long steps; /* a comparison's steps; a measurement's: the run's (RtTimeOptions.run_steps), 0 unknown */
} Req;

enum { MSG_HELLO = 1, MSG_COMPILING, MSG_BEGIN, MSG_RESULT, MSG_DONE };
typedef struct {
    int type, index, ok, sticky;
    double ms, cost_s, compile_s, gpu_s; /* a measurement's: ms per step, seconds */
    int match;                           /* a comparison's: 1 agree, 0 differ, 2 undecided */
    long steps;                          /* a comparison's: the steps both kernels ran */
    double max_rel_err, tolerance;
    char why[400];
} Msg;

/* One line, no tabs (the replay format is tab-separated), at most len-1 characters. */
void wire_one_line(char *dst, int len, const char *src);
/* All n bytes to fd: 0, or -1 on error. */
int wire_write(int fd, const void *buf, size_t n);
/* 1 when all n bytes came, 0 on end of file, -1 on error. */
int wire_read(int fd, void *buf, size_t n);

/* The worker process: opens the GPU (or the options' fake), says HELLO, then answers requests
 * from in on out until in closes; ends with _exit. */
void gpu_worker_main(const IrProgram *prog, const Space *space, const long grid[3],
                     const GpuEvalOptions *opt, int in, int out, pid_t parent);

#endif
