/* The GPU evaluation's worker process (gpu_wire.h): compiles a batch's variants in parallel
 * NVRTC threads while it verifies and times the compiled ones on the GPU, one at a time, and
 * reports each step to the parent, which starts a new worker when one dies or poisons its
 * CUDA context. */
#define _GNU_SOURCE /* prctl's PR_SET_PDEATHSIG */
#include "gpu_wire.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../codegen/plan.h"
#include "../util/arena.h"

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
    GpuEvalRewriteFn rewrite;
    int part; /* GpuEvalOptions.part */
    pthread_mutex_t send_mu; /* the compile threads send COMPILING while the main thread sends */
} Worker;

typedef struct {
    const Plan *plan;
    char *source; /* the tests' rewrite of plan->source, else NULL */
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
        double t0 = tune_now_s();
        char name[96];
        snprintf(name, sizeof name, "%s_variant%d.cu", p->w->prog->name ? p->w->prog->name : "plan", i);
        const char *src = u->source ? u->source : u->plan->source;
        u->ok = rt_nvrtc_compile(p->w->rc, src, name, &u->cubin, &u->size, u->log,
                                 (int)sizeof u->log) == 0;
        u->compile_s = tune_now_s() - t0;
        pthread_mutex_lock(&p->mu);
        p->done[p->ndone++] = i;
        pthread_cond_signal(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

static void send_msg(Worker *w, const Msg *m)
{
    pthread_mutex_lock(&w->send_mu);
    int r = wire_write(w->out, m, sizeof *m);
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

/* What the worker times under c: the program's plan, or a distributed rank's part's. */
static Plan *worker_plan(const Worker *w, const Config *c, Arena *a, char *why, int whylen)
{
    return w->part ? plan_build_part(w->prog, c, a, why, whylen) : plan_build(w->prog, c, a, why, whylen);
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
    RtTimeOptions to = {.target_ms = rq->target_ms, .min_reps = rq->min_reps, .run_steps = rq->steps};
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
        units[i].plan = worker_plan(w, &cs[i], arena, why, (int)sizeof why);
        if (!units[i].plan) {
            snprintf(m.why, sizeof m.why, "cannot build: %.380s", why);
            send_msg(w, &m);
            continue;
        }
        if (w->rewrite && !w->fake)
            units[i].source = w->rewrite(&cs[i], units[i].plan->source);
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
            wire_one_line(line, (int)sizeof line, u->log);
            snprintf(m.why, sizeof m.why, "does not compile: %.370s", line);
        } else {
            Msg begin = {.type = MSG_BEGIN, .index = i};
            send_msg(w, &begin);
            double t0 = tune_now_s();
            gpu_stage(w, rq, u, &m);
            m.gpu_s = tune_now_s() - t0;
        }
        free(u->cubin);
        u->cubin = NULL;
        free(u->source);
        u->source = NULL;
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
    *plan = worker_plan(w, c, a, why, whylen);
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
        m.steps = rq->steps;
        send_msg(w, &m);
        send_msg(w, &d);
        return;
    }
    /* The comparison needs two grids of the full size in turn: the tuning grid goes first. */
    rt_grid_free(w->grid);
    w->grid = NULL;
    Arena *arena = arena_new();
    char why[2048] = "";
    Config plain = space_default(w->space);
    if (w->part) /* the plain kernel of c's part program (plan_build_part: hwrap=on's is periodic) */
        plain.v[P_HWRAP] = c->v[P_HWRAP];
    const Plan *pa = NULL, *pb = NULL;
    RtModule *a = worker_compile(w, &plain, arena, &pa, why, (int)sizeof why);
    RtModule *b = a ? worker_compile(w, c, arena, &pb, why, (int)sizeof why) : NULL;
    long steps = rq->steps > 0 ? rq->steps : rt_reference_steps(pb);
    m.steps = steps;
    RtVerifyResult res;
    int decided = 0;
    if (a && b && rt_compare_reference(w->rc, a, b, w->n, steps, &res, &decided, why, (int)sizeof why) == 0) {
        m.ok = 1;
        m.match = decided ? res.ok : 2;
        m.max_rel_err = res.max_rel_err;
        m.tolerance = res.tolerance;
    } else {
        char line[400];
        wire_one_line(line, (int)sizeof line, why);
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

void gpu_worker_main(const IrProgram *prog, const Space *space, const long grid[3],
                     const GpuEvalOptions *opt, int in, int out, pid_t parent)
{
    signal(SIGINT, SIG_IGN); /* Ctrl-C is the parent's to handle */
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(0);
    Worker w = {.prog = prog, .space = space, .threads = opt->threads, .out = out,
                .fake = opt->fake, .fake_compile = opt->fake_compile,
                .rewrite = opt->rewrite, .part = opt->part};
    pthread_mutex_init(&w.send_mu, NULL);
    for (int d = 0; d < 3; d++)
        w.n[d] = d < prog->dims ? (int)grid[d] : 1;
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
    if (wire_write(out, &info, sizeof info) != 0 || !hello.ok)
        _exit(0);
    for (;;) {
        Req rq;
        if (wire_read(in, &rq, sizeof rq) != 1 || rq.n < 0 || rq.n > MAX_BATCH)
            break;
        Config cs[MAX_BATCH];
        if (rq.n > 0 && wire_read(in, cs, sizeof *cs * (size_t)rq.n) != 1)
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
