/* The GPU evaluation pipeline (gpu_eval.h), the parent's side, which never touches CUDA: it
 * starts the worker process (gpu_worker.c), sends it batches and reads its answers
 * (gpu_wire.h), fails a variant that compiles for too long or takes its worker down, and
 * starts a new worker for the rest of the batch. */
#include "gpu_eval.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_wire.h"

/* A variant whose fault cost the worker, its reason first so that a cut keeps the restart. */
#define FAULTED_FMT "the kernel faulted (GPU worker restarted): %s"

struct GpuEval {
    const IrProgram *prog;
    const Space *space;
    long grid[3];
    GpuEvalOptions opt;
    pid_t pid;            /* the worker, 0 when none runs */
    int to_worker, from_worker;
    RtDeviceInfo dev;
    GpuEvalStats stats;
    GpuEvalResult last[MAX_BATCH];
    int nlast;
    double deadline;      /* tune_now_s() by which a batch must end (0: none; gpu_eval_set_deadline) */
    struct sigaction old_pipe;
};

/* Closes the pipes (those still open), kills the worker when kill_it, and waits for it: its
 * wait status in *status, waitpid's result returned. */
static pid_t reap_worker(GpuEval *g, int kill_it, int *status)
{
    int st = 0;
    pid_t r;
    if (g->to_worker >= 0)
        close(g->to_worker);
    close(g->from_worker);
    g->to_worker = g->from_worker = -1;
    if (kill_it)
        kill(g->pid, SIGKILL);
    while ((r = waitpid(g->pid, &st, 0)) < 0 && errno == EINTR)
        ;
    g->pid = 0;
    if (status)
        *status = st;
    return r;
}

static void kill_worker(GpuEval *g)
{
    if (g->pid > 0)
        reap_worker(g, 1, NULL);
}

/* Waits up to timeout_s for a message: 1 got one, 0 end of file (the worker died), -1 timeout or
 * error. */
static int recv_msg(GpuEval *g, Msg *m, double timeout_s)
{
    double deadline = tune_now_s() + timeout_s;
    for (;;) {
        double left = deadline - tune_now_s();
        if (left <= 0)
            return -1;
        struct pollfd pfd = {.fd = g->from_worker, .events = POLLIN};
        int r = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue; /* Ctrl-C: the batch still finishes */
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        return wire_read(g->from_worker, m, sizeof *m);
    }
}

/* Why the worker ended, for the record of the configuration it was running. */
static void death_reason(GpuEval *g, char *buf, int len)
{
    int status = 0;
    pid_t r = reap_worker(g, 0, &status);
    if (r > 0 && WIFSIGNALED(status))
        snprintf(buf, (size_t)len, "the worker was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (r > 0 && WIFEXITED(status))
        snprintf(buf, (size_t)len, "the worker exited with status %d", WEXITSTATUS(status));
    else
        snprintf(buf, (size_t)len, "the worker vanished");
}

static int start_worker(GpuEval *g, char *why, int whylen)
{
    int down[2], up[2];
    if (pipe(down) != 0)
        goto no_pipe;
    if (pipe(up) != 0) {
        close(down[0]);
        close(down[1]);
        goto no_pipe;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, (size_t)whylen, "cannot start the GPU worker: %s", strerror(errno));
        close(down[0]), close(down[1]), close(up[0]), close(up[1]);
        return -1;
    }
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        gpu_worker_main(g->prog, g->space, g->grid, &g->opt, down[0], up[1], parent);
        _exit(0);
    }
    close(down[0]);
    close(up[1]);
    g->pid = pid;
    g->to_worker = down[1];
    g->from_worker = up[0];
    Msg hello;
    int r = recv_msg(g, &hello, g->opt.hang_s);
    RtDeviceInfo info;
    if (r != 1 || hello.type != MSG_HELLO || wire_read(g->from_worker, &info, sizeof info) != 1) {
        char d[200];
        if (r == -1)
            kill_worker(g);
        else
            death_reason(g, d, (int)sizeof d);
        snprintf(why, (size_t)whylen, "the GPU worker did not start%s%s", r == -1 ? " (timeout)" : ": ",
                 r == -1 ? "" : d);
        return -1;
    }
    if (!hello.ok) {
        snprintf(why, (size_t)whylen, "%s", hello.why);
        kill_worker(g);
        return -1;
    }
    g->dev = info;
    return 0;
no_pipe:
    snprintf(why, (size_t)whylen, "cannot make a pipe: %s", strerror(errno));
    return -1;
}

GpuEval *gpu_eval_start(const IrProgram *prog, const Space *space, const long grid[3],
                        const GpuEvalOptions *opt, char *why, int whylen)
{
    GpuEval *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(why, (size_t)whylen, "out of memory");
        return NULL;
    }
    g->prog = prog;
    g->space = space;
    for (int d = 0; d < 3; d++)
        g->grid[d] = grid[d];
    if (opt)
        g->opt = *opt;
    if (g->opt.target_ms <= 0)
        g->opt.target_ms = 25;
    if (g->opt.hang_s <= 0)
        g->opt.hang_s = 60;
    if (g->opt.compile_s <= 0)
        g->opt.compile_s = 30;
    if (g->opt.batch <= 0)
        g->opt.batch = 12;
    if (g->opt.batch > MAX_BATCH)
        g->opt.batch = MAX_BATCH;
    if (g->opt.threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        g->opt.threads = cores < 1 ? 1 : cores > 8 ? 8 : (int)cores;
    }
    if (g->opt.threads > 16)
        g->opt.threads = 16;
    /* A write to a worker that just died must fail with EPIPE, not end stencilc. */
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &g->old_pipe);
    if (start_worker(g, why, whylen) != 0) {
        sigaction(SIGPIPE, &g->old_pipe, NULL);
        free(g);
        return NULL;
    }
    return g;
}

void gpu_eval_stop(GpuEval *g)
{
    if (!g)
        return;
    if (g->pid > 0) {
        /* A polite end first: the worker frees its context when its input closes. */
        close(g->to_worker);
        g->to_worker = -1;
        char buf[64];
        struct pollfd pfd = {.fd = g->from_worker, .events = POLLIN};
        double deadline = tune_now_s() + 5;
        while (tune_now_s() < deadline) {
            int r = poll(&pfd, 1, 100);
            if (r > 0 && read(g->from_worker, buf, sizeof buf) <= 0)
                break;
        }
        reap_worker(g, 1, NULL);
    }
    sigaction(SIGPIPE, &g->old_pipe, NULL);
    free(g);
}

const RtDeviceInfo *gpu_eval_device(const GpuEval *g) { return &g->dev; }

/* "(nvcc)" where $STC_NVCC compiles in NVRTC's place: its machine code is not always NVRTC's
 * (runtime/rt_nvcc.c), so neither's times answer for the other's in the tuning database. */
void gpu_eval_cuda_version(const GpuEval *g, char *buf, int len)
{
    snprintf(buf, (size_t)len, "%d.%d%s", g->dev.nvrtc_major, g->dev.nvrtc_minor,
             rt_nvcc_path() ? " (nvcc)" : "");
}

void gpu_eval_stats(const GpuEval *g, GpuEvalStats *s) { *s = g->stats; }

int gpu_eval_last(const GpuEval *g, const GpuEvalResult **out)
{
    *out = g->last;
    return g->nlast;
}

static void set_fail(GpuEvalResult *r, const char *text)
{
    r->ok = 0;
    r->ms = 0;
    wire_one_line(r->why, (int)sizeof r->why, text);
}

/* Variant k of a request (out[map[k]]) failed for the reason text: no longer pending. */
static void fail_variant(GpuEvalResult *out, int *pending, const int *map, int k, const char *text)
{
    set_fail(&out[map[k]], text);
    pending[map[k]] = 0;
}

/* One request in flight: its variants' answers go to out[map[k]]; pending[map[k]] until
 * answered; compiling[k], since when variant k compiles (0: not compiling); current, the
 * variant whose kernel runs (-1: none). */
typedef struct {
    GpuEval *g;
    const Req *rq;
    const int *map;
    int *pending;
    GpuEvalResult *out;
    double compiling[MAX_BATCH];
    int current;
} Exchange;

/* How long to wait for the next message: the hang limit, or while no kernel runs the first
 * compile's limit (*slow set). */
static double exchange_wait(const Exchange *x, int *slow)
{
    const GpuEval *g = x->g;
    double wait = g->opt.hang_s;
    *slow = 0;
    for (int k = 0; x->current < 0 && k < x->rq->n; k++)
        if (x->compiling[k] > 0 && x->compiling[k] + g->opt.compile_s - tune_now_s() < wait) {
            wait = x->compiling[k] + g->opt.compile_s - tune_now_s();
            if (wait < 0)
                wait = 0;
            *slow = 1;
        }
    return wait;
}

/* The tuning budget ran out in the middle of the batch: what was measured counts, the rest is
 * not measured at all (ok -1), and the worker, still compiling or timing, is stopped; the next
 * request starts a new one. */
static int budget_out(Exchange *x)
{
    kill_worker(x->g);
    for (int k = 0; k < x->rq->n; k++)
        if (x->pending[x->map[k]]) {
            GpuEvalResult *r = &x->out[x->map[k]];
            r->ok = -1;
            snprintf(r->why, sizeof r->why, "not measured: the tuning budget ran out");
            x->pending[x->map[k]] = 0;
        }
    return 0;
}

/* No answer in time: a compile past its limit while no kernel runs (slow: the variants that
 * compiled that long fail; the worker, busy in NVRTC, is stopped), or a hung kernel (it fails,
 * the worker is killed). The rest of the batch goes to a new worker. */
static int no_answer(Exchange *x, int slow)
{
    GpuEval *g = x->g;
    char text[200];
    kill_worker(g);
    g->stats.restarts++;
    if (slow) {
        snprintf(text, sizeof text, "compiling took longer than %g s: abandoned; GPU worker restarted",
                 g->opt.compile_s);
        for (int k = 0; k < x->rq->n; k++)
            if (x->compiling[k] > 0 && tune_now_s() - x->compiling[k] >= g->opt.compile_s - 0.05
                && x->pending[x->map[k]])
                fail_variant(x->out, x->pending, x->map, k, text);
    } else if (x->current >= 0) {
        snprintf(text, sizeof text, "the kernel hung (no answer in %g s): worker killed; GPU worker "
                 "restarted", g->opt.hang_s);
        fail_variant(x->out, x->pending, x->map, x->current, text);
    }
    return 1;
}

/* The worker died: the running variant, if any, fails with the reason. */
static int worker_died(Exchange *x)
{
    char d[200], text[400];
    death_reason(x->g, d, (int)sizeof d);
    x->g->stats.restarts++;
    if (x->current >= 0) {
        snprintf(text, sizeof text, FAULTED_FMT, d);
        fail_variant(x->out, x->pending, x->map, x->current, text);
    }
    return 1;
}

/* A variant's result; 1 when it poisoned the context (the worker exits: reaped), else 0. */
static int take_result(Exchange *x, const Msg *m, Msg *last_result)
{
    GpuEval *g = x->g;
    GpuEvalResult *res = &x->out[x->map[m->index]];
    x->compiling[m->index] = 0;
    res->ok = m->ok;
    res->ms = m->ok ? m->ms : 0;
    res->cost_s = m->compile_s / g->opt.threads + m->gpu_s;
    if (m->sticky) {
        char text[600];
        snprintf(text, sizeof text, FAULTED_FMT, m->why);
        set_fail(res, text);
    } else if (!m->ok) {
        wire_one_line(res->why, (int)sizeof res->why, m->why);
    } else {
        res->why[0] = '\0';
    }
    g->stats.compile_s += m->compile_s;
    g->stats.gpu_s += m->gpu_s;
    g->stats.measured++;
    x->pending[x->map[m->index]] = 0;
    if (last_result)
        *last_result = *m;
    x->current = -1;
    if (!m->sticky)
        return 0;
    reap_worker(g, 0, NULL); /* the worker exits after a poisoned context: wait for it */
    g->stats.restarts++;
    return 1;
}

/* Sends one request and reads its answers into out (indexes through map). Returns 0 when the
 * worker answered DONE, 1 when it ended (culprit, if known, has its result), -1 when it could
 * not be asked. */
static int exchange(GpuEval *g, const Req *rq, const Config *cs, const int *map, int *pending,
                    GpuEvalResult *out, Msg *last_result)
{
    if (wire_write(g->to_worker, rq, sizeof *rq) != 0
        || wire_write(g->to_worker, cs, sizeof *cs * (size_t)rq->n) != 0)
        return -1;
    Exchange x = {.g = g, .rq = rq, .map = map, .pending = pending, .out = out, .current = -1};
    for (;;) {
        Msg m;
        int slow;
        double left = g->deadline > 0 ? g->deadline - tune_now_s() : g->opt.hang_s;
        double wait = exchange_wait(&x, &slow);
        int r = left > 0 ? recv_msg(g, &m, left < wait ? left : wait) : -1;
        if (r == -1 && g->deadline > 0 && tune_now_s() >= g->deadline)
            return budget_out(&x);
        if (r == -1)
            return no_answer(&x, slow);
        if (r == 0)
            return worker_died(&x);
        if (m.type == MSG_DONE)
            return 0;
        if (m.index < 0 || m.index >= rq->n)
            continue;
        if (m.type == MSG_COMPILING) {
            x.compiling[m.index] = tune_now_s();
        } else if (m.type == MSG_BEGIN) {
            x.compiling[m.index] = 0;
            x.current = m.index;
        } else if (m.type == MSG_RESULT && take_result(&x, &m, last_result)) {
            return 1;
        }
    }
}

/* Runs the pending entries of cs (of n) to completion, restarting the worker as needed. */
static void run_requests(GpuEval *g, Req base, const Config *cs, int n, GpuEvalResult *out,
                         Msg *last_result)
{
    int pending[MAX_BATCH], map[MAX_BATCH];
    Config send[MAX_BATCH];
    for (int i = 0; i < n; i++) {
        pending[i] = 1;
        memset(&out[i], 0, sizeof out[i]);
    }
    int blameless_deaths = 0;
    for (;;) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (pending[i]) {
                map[k] = i;
                send[k++] = cs[i];
            }
        if (k == 0)
            return;
        char why[400] = "";
        if (g->pid <= 0 && start_worker(g, why, (int)sizeof why) != 0) {
            for (int i = 0; i < n; i++)
                if (pending[i])
                {
                    char text[600];
                    snprintf(text, sizeof text, "the GPU worker could not restart: %s", why);
                    set_fail(&out[i], text);
                }
            return;
        }
        Req rq = base;
        rq.n = k;
        int before = 0;
        for (int i = 0; i < n; i++)
            before += pending[i];
        int r = exchange(g, &rq, send, map, pending, out, last_result);
        if (r == 0)
            return;
        int after = 0;
        for (int i = 0; i < n; i++)
            after += pending[i];
        if (r < 0 || after == before) {
            /* Died without blaming anyone (or could not be asked): try once more, then give up
             * on the rest rather than loop. */
            kill_worker(g);
            if (++blameless_deaths >= 2) {
                for (int i = 0; i < n; i++)
                    if (pending[i])
                        set_fail(&out[i], "the GPU worker died twice on this batch");
                return;
            }
        }
    }
}

void gpu_eval_measure(GpuEval *g, const Config *cs, int n, double target_ms, int min_reps,
                      GpuEvalResult *out)
{
    for (int at = 0; at < n; at += MAX_BATCH) {
        int k = n - at < MAX_BATCH ? n - at : MAX_BATCH;
        Req rq = {.type = REQ_MEASURE, .target_ms = target_ms > 0 ? target_ms : g->opt.target_ms,
                  .min_reps = min_reps, .steps = g->space ? g->space->steps : 0};
        run_requests(g, rq, cs + at, k, out + at, NULL);
    }
}

static void eval_batch(void *ctx, const Config *cs, int n, int *ok, double *ms, char (*why)[160])
{
    GpuEval *g = ctx;
    if (n > MAX_BATCH)
        n = MAX_BATCH; /* the loop never asks more than opt.batch */
    gpu_eval_measure(g, cs, n, 0, 0, g->last);
    g->nlast = n;
    for (int i = 0; i < n; i++) {
        ok[i] = g->last[i].ok;
        ms[i] = g->last[i].ms;
        snprintf(why[i], 160, "%s", g->last[i].why);
    }
}

static int eval_one(void *ctx, const Config *c, double *ms, char *why, int whylen)
{
    int ok;
    char w[1][160];
    eval_batch(ctx, c, 1, &ok, ms, w);
    snprintf(why, (size_t)whylen, "%s", w[0]);
    return ok > 0 ? 0 : -1;
}

void gpu_eval_set_deadline(GpuEval *g, double seconds)
{
    g->deadline = seconds > 0 ? tune_now_s() + seconds : 0;
}

static void eval_deadline(void *ctx, double seconds)
{
    gpu_eval_set_deadline(ctx, seconds);
}

void gpu_eval_evaluator(GpuEval *g, TuneEvaluator *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->evaluate = eval_one;
    ev->evaluate_batch = eval_batch;
    ev->set_deadline = eval_deadline;
    ev->ctx = g;
    ev->batch = g->opt.batch;
}

int gpu_eval_compare_plain(GpuEval *g, const Config *c, long steps, RtVerifyResult *res,
                           char *why, int whylen)
{
    Req rq = {.type = REQ_COMPARE, .steps = steps};
    GpuEvalResult out;
    Msg m;
    memset(&m, 0, sizeof m);
    run_requests(g, rq, c, 1, &out, &m);
    memset(res, 0, sizeof *res);
    if (m.type != MSG_RESULT || !m.ok || m.sticky) {
        snprintf(why, (size_t)whylen, "%s", m.type == MSG_RESULT && m.why[0] ? m.why : out.why);
        return -1;
    }
    res->ok = m.match == 1;
    res->max_rel_err = m.max_rel_err;
    res->tolerance = m.tolerance;
    res->steps = m.steps;
    for (int d = 0; d < 3; d++)
        res->n[d] = d < g->prog->dims ? (int)g->grid[d] : 1;
    if (m.match == 2) {
        snprintf(why, (size_t)whylen, "the plain kernel against itself differs by %.3g after %ld "
                 "steps on the full grid (the random data leave the finite range)",
                 m.max_rel_err, res->steps);
        return 1;
    }
    return 0;
}
