/* The GPU evaluation pipeline (gpu_eval.h): a parent that never touches CUDA, a worker process
 * that does all GPU work, and the small protocol between them.
 *
 * Parent -> worker: a Req followed by n Configs. Worker -> parent: one HELLO when it starts
 * (with the device's description), then for each configuration of a request a COMPILING when a
 * compile thread takes it, a BEGIN when its GPU work starts and a RESULT when it ends, and a
 * DONE after the last. A variant that compiles for longer than the limit (GpuEvalOptions.
 * compile_s; a 729-point box with deep unrolling took over a minute) is failed by the parent, which
 * stops the worker and sends the rest of the batch to a new one. When the worker dies, or
 * reports an error that poisons its CUDA context (sticky), the BEGIN without a RESULT names the
 * configuration to blame; the others of the batch go to a new worker. */
#define _GNU_SOURCE /* prctl's PR_SET_PDEATHSIG */
#include "gpu_eval.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../codegen/plan.h"
#include "../util/arena.h"

#define MAX_BATCH 64

enum { REQ_MEASURE = 1, REQ_COMPARE = 2 };
typedef struct {
    int type, n, min_reps;
    double target_ms;
    long steps;
} Req;

enum { MSG_HELLO = 1, MSG_COMPILING, MSG_BEGIN, MSG_RESULT, MSG_DONE };
typedef struct {
    int type, index, ok, sticky, match;
    double ms, cost_s, compile_s, gpu_s;
    double max_rel_err, tolerance;
    char why[400];
} Msg;

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
    double deadline;      /* now_s() by which a batch must end (0: none; gpu_eval_set_deadline) */
    struct sigaction old_pipe;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One line, no tabs (the replay format is tab-separated), at most len-1 characters. */
static void one_line(char *dst, int len, const char *src)
{
    int j = 0;
    for (const char *p = src; *p && j < len - 1; p++) {
        char c = *p;
        if (c == '\n' || c == '\t' || c == '\r')
            c = ' ';
        if (c == ' ' && (j == 0 || dst[j - 1] == ' '))
            continue;
        dst[j++] = c;
    }
    while (j > 0 && dst[j - 1] == ' ')
        j--;
    dst[j] = '\0';
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* 1 when all n bytes came, 0 on end of file, -1 on error. */
static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return got ? -1 : 0;
        got += (size_t)r;
    }
    return 1;
}

/* ---- the worker ------------------------------------------------------------------------ */

typedef struct {
    const IrProgram *prog;
    const Space *space;
    int n[3];
    int threads;
    int out;
    RtContext *rc;
    RtGrid *grid;       /* the tuning grid, kept between variants */
    int grid_used;      /* variants ran on it since it was filled */
    GpuEvalFakeFn fake;
    GpuEvalFakeCompileFn fake_compile;
    pthread_mutex_t send_mu; /* the compile threads send COMPILING while the main thread sends */
} Worker;

typedef struct {
    const Plan *plan;
    void *cubin;
    size_t size;
    int ok;
    char log[2048];
    double compile_s;
} Unit;

typedef struct {
    Worker *w;
    Unit *units;
    const int *todo;
    int ntodo, next;
    int *done;
    int ndone;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} Pool;

static void send_msg(Worker *w, const Msg *m);

static void *compile_thread(void *arg)
{
    Pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        if (p->next >= p->ntodo) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        int i = p->todo[p->next++];
        pthread_mutex_unlock(&p->mu);
        Msg compiling = {.type = MSG_COMPILING, .index = i};
        send_msg(p->w, &compiling);
        Unit *u = &p->units[i];
        double t0 = now_s();
        char name[96];
        snprintf(name, sizeof name, "%s_variant%d.cu", p->w->prog->name ? p->w->prog->name : "plan", i);
        u->ok = rt_nvrtc_compile(p->w->rc, u->plan->source, name, &u->cubin, &u->size, u->log,
                                 (int)sizeof u->log) == 0;
        u->compile_s = now_s() - t0;
        pthread_mutex_lock(&p->mu);
        p->done[p->ndone++] = i;
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

static void send_msg(Worker *w, const Msg *m)
{
    pthread_mutex_lock(&w->send_mu);
    int r = write_all(w->out, m, sizeof *m);
    pthread_mutex_unlock(&w->send_mu);
    if (r != 0)
        _exit(0); /* the parent is gone */
}

/* Errors after which the context is unusable. The sync check below catches the others. */
static int sticky_text(const char *why)
{
    static const char *const names[] = {
        "ILLEGAL_ADDRESS", "LAUNCH_FAILED", "MISALIGNED_ADDRESS", "ILLEGAL_INSTRUCTION",
        "HARDWARE_STACK_ERROR", "INVALID_PC", "LAUNCH_TIMEOUT", "ASSERT", "ECC_UNCORRECTABLE",
        "CONTEXT_IS_DESTROYED", "NOT_PERMITTED", "EXTERNAL_DEVICE",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strstr(why, names[i]))
            return 1;
    return 0;
}

static int context_poisoned(Worker *w, const char *why)
{
    char sync_why[256];
    return sticky_text(why) || rt_sync(w->rc, sync_why, (int)sizeof sync_why) != 0;
}

/* Load, verify, time one compiled variant; fills m. */
static void gpu_stage(Worker *w, const Req *rq, Unit *u, Msg *m)
{
    char why[1024] = "";
    RtModule *mod = rt_module_load(w->rc, u->plan, u->cubin, why, (int)sizeof why);
    RtVerifyResult vr;
    RtTiming t;
    if (!mod) {
        snprintf(m->why, sizeof m->why, "cannot load: %.360s", why);
        goto fail;
    }
    if (rt_verify_plan(w->rc, mod, NULL, 0, &vr, why, (int)sizeof why) != 0) {
        snprintf(m->why, sizeof m->why, "verification could not run: %.360s", why);
        goto fail;
    }
    if (!vr.ok) {
        snprintf(m->why, sizeof m->why, "wrong result: relative error %.3g > %.3g against the "
                 "interpreter", vr.max_rel_err, vr.tolerance);
        goto fail;
    }
    if (!w->grid) {
        w->grid = rt_grid_new(w->rc, w->prog, w->n, why, (int)sizeof why);
        if (!w->grid) {
            snprintf(m->why, sizeof m->why, "cannot allocate the tuning grid: %.360s", why);
            goto fail;
        }
        w->grid_used = 1;
    }
    /* Fresh data once per batch: the variants run on, not from, each other's results, which is
     * fine for timing as long as the values stay tame. */
    if (w->grid_used && rt_grid_fill_random(w->grid, 777, why, (int)sizeof why) != 0) {
        snprintf(m->why, sizeof m->why, "cannot fill the tuning grid: %.360s", why);
        goto fail;
    }
    w->grid_used = 0;
    RtTimeOptions to = {.target_ms = rq->target_ms, .min_reps = rq->min_reps};
    int timed = rt_time_grid(mod, w->grid, &to, &t, why, (int)sizeof why);
    if (timed != 0) {
        snprintf(m->why, sizeof m->why, "timing failed: %.360s", why);
        goto fail;
    }
    rt_module_free(mod);
    m->ok = 1;
    m->ms = t.ms_per_step;
    return;
fail:
    m->ok = 0;
    m->sticky = context_poisoned(w, m->why);
    if (!m->sticky)
        rt_module_free(mod);
}

static void worker_measure(Worker *w, const Req *rq, const Config *cs)
{
    Arena *arena = arena_new();
    Unit *units = calloc((size_t)rq->n, sizeof *units);
    int *todo = calloc((size_t)rq->n, sizeof *todo), *done = calloc((size_t)rq->n, sizeof *done);
    int ntodo = 0;
    /* The refused ones are answered at once; the others go to the compile pool. */
    for (int i = 0; i < rq->n; i++) {
        char why[400];
        Msg m = {.type = MSG_RESULT, .index = i};
        if (!space_check(w->space, &cs[i], why, (int)sizeof why)) {
            snprintf(m.why, sizeof m.why, "invalid: %.380s", why);
            send_msg(w, &m);
            continue;
        }
        units[i].plan = plan_build(w->prog, &cs[i], arena, why, (int)sizeof why);
        if (!units[i].plan) {
            snprintf(m.why, sizeof m.why, "cannot build: %.380s", why);
            send_msg(w, &m);
            continue;
        }
        todo[ntodo++] = i;
    }
    if (w->grid)
        w->grid_used = 1; /* refilled before the batch's first timing */
    if (w->fake) {
        for (int k = 0; k < ntodo; k++) {
            int i = todo[k];
            Msg compiling = {.type = MSG_COMPILING, .index = i};
            send_msg(w, &compiling);
            double compile_s = w->fake_compile ? w->fake_compile(&cs[i]) : 0;
            if (compile_s > 0)
                usleep((useconds_t)(compile_s * 1e6));
            Msg begin = {.type = MSG_BEGIN, .index = i}, m = {.type = MSG_RESULT, .index = i};
            send_msg(w, &begin);
            int r = w->fake(&cs[i], &m.ms, m.why, (int)sizeof m.why);
            m.ok = r == 0;
            m.sticky = r == -2;
            send_msg(w, &m);
            if (m.sticky)
                _exit(3);
        }
        ntodo = 0;
    }
    Pool pool = {.w = w, .units = units, .todo = todo, .ntodo = ntodo, .done = done};
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.cv, NULL);
    int nthreads = w->threads < ntodo ? w->threads : ntodo;
    pthread_t tids[16];
    int started = 0;
    for (int t = 0; t < nthreads && t < 16; t++)
        started += pthread_create(&tids[started], NULL, compile_thread, &pool) == 0;
    if (started == 0 && ntodo > 0)
        compile_thread(&pool); /* no threads to be had: compile here, then run */
    for (int k = 0; k < ntodo; k++) {
        pthread_mutex_lock(&pool.mu);
        while (pool.ndone <= k)
            pthread_cond_wait(&pool.cv, &pool.mu);
        int i = pool.done[k];
        pthread_mutex_unlock(&pool.mu);
        Unit *u = &units[i];
        Msg m = {.type = MSG_RESULT, .index = i, .compile_s = u->compile_s};
        if (!u->ok) {
            char line[400];
            one_line(line, (int)sizeof line, u->log);
            snprintf(m.why, sizeof m.why, "does not compile: %.370s", line);
        } else {
            Msg begin = {.type = MSG_BEGIN, .index = i};
            send_msg(w, &begin);
            double t0 = now_s();
            gpu_stage(w, rq, u, &m);
            m.gpu_s = now_s() - t0;
        }
        free(u->cubin);
        u->cubin = NULL;
        send_msg(w, &m);
        if (m.sticky)
            _exit(3); /* the context is poisoned: the parent starts a new worker */
    }
    for (int t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    pthread_mutex_destroy(&pool.mu);
    pthread_cond_destroy(&pool.cv);
    free(units);
    free(todo);
    free(done);
    arena_free(arena);
    Msg d = {.type = MSG_DONE};
    send_msg(w, &d);
}

static RtModule *worker_compile(Worker *w, const Config *c, Arena *a, const Plan **plan,
                               char *why, int whylen)
{
    *plan = plan_build(w->prog, c, a, why, whylen);
    return *plan ? rt_compile_plan(w->rc, *plan, why, whylen) : NULL;
}

/* The winner against the plain kernel on the full grid. The plain kernel is first compared
 * with itself: where the data drive the program to inf or NaN within the steps (a large grid
 * of random data can hold a spot that blows up), or the plain kernel is not reproducible, no
 * comparison can decide, and the answer says so (match 2). */
static void worker_compare(Worker *w, const Req *rq, const Config *c)
{
    Msg m = {.type = MSG_RESULT, .index = 0};
    Msg begin = {.type = MSG_BEGIN, .index = 0};
    send_msg(w, &begin);
    if (w->fake) {
        Msg d = {.type = MSG_DONE};
        m.ok = m.match = 1;
        m.tolerance = 1e-5;
        send_msg(w, &m);
        send_msg(w, &d);
        return;
    }
    /* The comparison needs two grids of the full size in turn: the tuning grid goes first. */
    rt_grid_free(w->grid);
    w->grid = NULL;
    Arena *arena = arena_new();
    char why[2048] = "";
    Config plain = config_default(w->prog->dims);
    const Plan *pa = NULL, *pb = NULL;
    RtModule *a = worker_compile(w, &plain, arena, &pa, why, (int)sizeof why);
    RtModule *b = a ? worker_compile(w, c, arena, &pb, why, (int)sizeof why) : NULL;
    long steps = rq->steps > 0 ? rq->steps : rt_reference_steps(pb);
    m.ms = (double)steps; /* tells the parent how many steps ran */
    RtVerifyResult res;
    int decided = 0;
    if (a && b && rt_compare_reference(w->rc, a, b, w->n, steps, &res, &decided, why, (int)sizeof why) == 0) {
        m.ok = 1;
        m.match = decided ? res.ok : 2;
        m.max_rel_err = res.max_rel_err;
        m.tolerance = res.tolerance;
    } else {
        char line[400];
        one_line(line, (int)sizeof line, why);
        snprintf(m.why, sizeof m.why, "%s", line);
        m.sticky = context_poisoned(w, why);
    }
    if (!m.sticky) {
        rt_module_free(a);
        rt_module_free(b);
    }
    arena_free(arena);
    send_msg(w, &m);
    if (m.sticky)
        _exit(3);
    Msg d = {.type = MSG_DONE};
    send_msg(w, &d);
}

static void worker_main(const GpuEval *g, int in, int out, pid_t parent)
{
    signal(SIGINT, SIG_IGN); /* Ctrl-C is the parent's to handle */
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(0);
    Worker w = {.prog = g->prog, .space = g->space, .threads = g->opt.threads, .out = out,
                .fake = g->opt.fake, .fake_compile = g->opt.fake_compile};
    pthread_mutex_init(&w.send_mu, NULL);
    for (int d = 0; d < 3; d++)
        w.n[d] = d < g->prog->dims ? (int)g->grid[d] : 1;
    Msg hello = {.type = MSG_HELLO};
    RtDeviceInfo info;
    memset(&info, 0, sizeof info);
    if (w.fake) {
        snprintf(info.name, sizeof info.name, "fake GPU (tests)");
        hello.ok = 1;
    } else if ((w.rc = rt_context_new(hello.why, (int)sizeof hello.why))) {
        hello.ok = 1;
        info = *rt_device_info(w.rc);
    }
    send_msg(&w, &hello);
    if (write_all(out, &info, sizeof info) != 0 || !hello.ok)
        _exit(0);
    for (;;) {
        Req rq;
        if (read_all(in, &rq, sizeof rq) != 1 || rq.n < 0 || rq.n > MAX_BATCH)
            break;
        Config cs[MAX_BATCH];
        if (rq.n > 0 && read_all(in, cs, sizeof *cs * (size_t)rq.n) != 1)
            break;
        if (rq.type == REQ_MEASURE)
            worker_measure(&w, &rq, cs);
        else if (rq.type == REQ_COMPARE && rq.n == 1)
            worker_compare(&w, &rq, &cs[0]);
        else
            break;
    }
    rt_grid_free(w.grid);
    rt_context_free(w.rc);
    _exit(0);
}

/* ---- the parent -------------------------------------------------------------------------- */

static void kill_worker(GpuEval *g)
{
    if (g->pid <= 0)
        return;
    close(g->to_worker);
    close(g->from_worker);
    kill(g->pid, SIGKILL);
    while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    g->pid = 0;
}

/* Waits up to timeout_s for a message: 1 got one, 0 end of file (the worker died), -1 timeout or
 * error. */
static int recv_msg(GpuEval *g, Msg *m, double timeout_s)
{
    double deadline = now_s() + timeout_s;
    for (;;) {
        double left = deadline - now_s();
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
        return read_all(g->from_worker, m, sizeof *m);
    }
}

/* Why the worker ended, for the record of the configuration it was running. */
static void death_reason(GpuEval *g, char *buf, int len)
{
    int status = 0;
    close(g->to_worker);
    close(g->from_worker);
    pid_t r;
    while ((r = waitpid(g->pid, &status, 0)) < 0 && errno == EINTR)
        ;
    g->pid = 0;
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
        worker_main(g, down[0], up[1], parent);
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
    if (r != 1 || hello.type != MSG_HELLO || read_all(g->from_worker, &info, sizeof info) != 1) {
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
        double deadline = now_s() + 5;
        while (now_s() < deadline) {
            int r = poll(&pfd, 1, 100);
            if (r > 0 && read(g->from_worker, buf, sizeof buf) <= 0)
                break;
        }
        close(g->from_worker);
        kill(g->pid, SIGKILL);
        while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    sigaction(SIGPIPE, &g->old_pipe, NULL);
    free(g);
}

const RtDeviceInfo *gpu_eval_device(const GpuEval *g) { return &g->dev; }

void gpu_eval_cuda_version(const GpuEval *g, char *buf, int len)
{
    snprintf(buf, (size_t)len, "%d.%d", g->dev.nvrtc_major, g->dev.nvrtc_minor);
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
    one_line(r->why, (int)sizeof r->why, text);
}

/* Sends one request and reads its answers into out (indexes through map). Returns 0 when the
 * worker answered DONE, 1 when it ended (culprit, if known, has its result), -1 when it could
 * not be asked. */
static int exchange(GpuEval *g, const Req *rq, const Config *cs, const int *map, int *pending,
                    GpuEvalResult *out, Msg *last_result)
{
    if (write_all(g->to_worker, rq, sizeof *rq) != 0
        || write_all(g->to_worker, cs, sizeof *cs * (size_t)rq->n) != 0)
        return -1;
    int current = -1;
    double compiling[MAX_BATCH]; /* since when each variant compiles (0: not compiling) */
    for (int k = 0; k < rq->n; k++)
        compiling[k] = 0;
    for (;;) {
        Msg m;
        double wait = g->opt.hang_s, left = g->deadline > 0 ? g->deadline - now_s() : wait;
        /* While no kernel runs, the worker waits for compiles: wake at the first one's limit. */
        int slow = 0;
        if (current < 0)
            for (int k = 0; k < rq->n; k++)
                if (compiling[k] > 0 && compiling[k] + g->opt.compile_s - now_s() < wait) {
                    wait = compiling[k] + g->opt.compile_s - now_s();
                    if (wait < 0)
                        wait = 0;
                    slow = 1;
                }
        int r = left > 0 ? recv_msg(g, &m, left < wait ? left : wait) : -1;
        if (r == -1 && g->deadline > 0 && now_s() >= g->deadline) {
            /* The tuning budget ran out in the middle of the batch: what was measured counts,
             * the rest is not measured at all (ok -1), and the worker, still compiling or
             * timing, is stopped; the next request starts a new one. */
            kill_worker(g);
            for (int k = 0; k < rq->n; k++)
                if (pending[map[k]]) {
                    out[map[k]].ok = -1;
                    snprintf(out[map[k]].why, sizeof out[map[k]].why, "not measured: the tuning budget ran out");
                    pending[map[k]] = 0;
                }
            return 0;
        }
        if (r == -1 && slow) {
            /* No kernel runs and a compile passed the limit: the variants that have compiled
             * that long fail; the worker, busy in NVRTC, is stopped; the rest of the batch goes
             * to a new one. */
            kill_worker(g);
            g->stats.restarts++;
            for (int k = 0; k < rq->n; k++)
                if (compiling[k] > 0 && now_s() - compiling[k] >= g->opt.compile_s - 0.05
                    && pending[map[k]]) {
                    char text[200];
                    snprintf(text, sizeof text, "compiling took longer than %g s: abandoned; GPU "
                             "worker restarted", g->opt.compile_s);
                    set_fail(&out[map[k]], text);
                    pending[map[k]] = 0;
                }
            return 1;
        }
        if (r == -1) {
            char hung[64];
            snprintf(hung, sizeof hung, "no answer in %g s", g->opt.hang_s);
            kill_worker(g);
            g->stats.restarts++;
            if (current >= 0) {
                char text[200];
                snprintf(text, sizeof text, "the kernel hung (%s): worker killed; GPU worker "
                         "restarted", hung);
                set_fail(&out[map[current]], text);
                pending[map[current]] = 0;
            }
            return 1;
        }
        if (r == 0) {
            char d[200];
            death_reason(g, d, (int)sizeof d);
            g->stats.restarts++;
            if (current >= 0) {
                char text[400];
                snprintf(text, sizeof text, "the kernel faulted: %s; GPU worker restarted", d);
                set_fail(&out[map[current]], text);
                pending[map[current]] = 0;
            }
            return 1;
        }
        if (m.type == MSG_DONE)
            return 0;
        if (m.index < 0 || m.index >= rq->n)
            continue;
        if (m.type == MSG_COMPILING) {
            compiling[m.index] = now_s();
        } else if (m.type == MSG_BEGIN) {
            compiling[m.index] = 0;
            current = m.index;
        } else if (m.type == MSG_RESULT) {
            compiling[m.index] = 0;
            GpuEvalResult *res = &out[map[m.index]];
            res->ok = m.ok;
            res->ms = m.ok ? m.ms : 0;
            res->cost_s = m.compile_s / g->opt.threads + m.gpu_s;
            if (m.sticky) {
                char text[600];
                snprintf(text, sizeof text, "the kernel faulted: %s; GPU worker restarted", m.why);
                set_fail(res, text);
            }
            else if (!m.ok)
                one_line(res->why, (int)sizeof res->why, m.why);
            else
                res->why[0] = '\0';
            g->stats.compile_s += m.compile_s;
            g->stats.gpu_s += m.gpu_s;
            g->stats.measured++;
            pending[map[m.index]] = 0;
            if (last_result)
                *last_result = m;
            current = -1;
            if (m.sticky) {
                char d[200];
                death_reason(g, d, (int)sizeof d);
                g->stats.restarts++;
                return 1;
            }
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
            if (g->pid > 0)
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
                  .min_reps = min_reps};
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
    g->deadline = seconds > 0 ? now_s() + seconds : 0;
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
    res->steps = (long)m.ms;
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
