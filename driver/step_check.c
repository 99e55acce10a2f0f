/* `stencilc check`: the interpreter on a small grid, with a word about long runs. A few steps
 * take milliseconds, but --steps takes up to 2^30, which is days: such a run says how long it
 * will take and why that is unusual, prints a progress line now and then, and stops cleanly on
 * Ctrl-C (exit 130) instead of being killed mid-report. Short runs print nothing of this. */
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include <string.h>

#include "../ir/interp.h"
#include "../runtime/rt.h"
#include "check.h"
#include "steps.h"

#define ANNOUNCE_AFTER_S 0.5 /* the time measured before the estimate is trusted */
#define LONG_RUN_S 10.0      /* longer runs are announced and show progress */
#define ABSURD_RUN_S 3600.0  /* longer ones get a warning */
#define PROGRESS_EVERY_S 10.0
#define CHECK_MAX_GIB 16     /* host memory the interpreter may take */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1; /* SA_RESETHAND: a second Ctrl-C ends the process at once */
}

typedef struct {
    Diag *diag;
    const char *name;
    double start, last_line;
    int announced, done;
} Progress;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void say_duration(char *buf, size_t len, double s)
{
    if (s < 120)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 7200)
        snprintf(buf, len, "%.0f min", s / 60);
    else if (s < 3 * 86400)
        snprintf(buf, len, "%.1f h", s / 3600);
    else
        snprintf(buf, len, "%.0f days", s / 86400);
}

static int tick(void *ctx, int done, int total)
{
    Progress *pr = ctx;
    pr->done = done;
    if (interrupted)
        return 1;
    double t = now_s(), spent = t - pr->start;
    if (done == 0 || spent < ANNOUNCE_AFTER_S)
        return 0;
    double left = spent / done * (total - done);
    char d[32];
    if (!pr->announced) {
        pr->announced = 1;
        pr->last_line = t;
        if (spent + left < LONG_RUN_S)
            return 0;
        say_duration(d, sizeof d, spent + left);
        if (spent + left > ABSURD_RUN_S)
            diag_run_warning(pr->diag, "check %s: %d steps will take about %s; a few steps (the default is 3) "
                                       "show whether the program behaves; Ctrl-C stops", pr->name, total, d);
        else
            diag_run_info(pr->diag, "check %s: %d steps will take about %s (Ctrl-C stops)", pr->name, total, d);
        return 0;
    }
    if (spent + left >= LONG_RUN_S && t - pr->last_line >= PROGRESS_EVERY_S) {
        pr->last_line = t;
        say_duration(d, sizeof d, left);
        diag_run_info(pr->diag, "check %s: step %d of %d (%.1f%%), about %s left", pr->name, done, total,
                      100.0 * done / total, d);
    }
    return 0;
}

/* The grid check runs on: --grid, else a small odd one; -1 where it is too large to run. */
static int check_grid(Job *job, int n[3])
{
    const IrProgram *p = job->prog;
    if (job->opt->ngrid)
        for (int d = 0; d < 3; d++)
            n[d] = (int)job->grid[d]; /* settle_grid checked it against ir.h's index range */
    else if (ir_check_size(p, n) != 0) {
        diag_run_error(&job->diag, "check %s: the halo (%d,%d,%d) makes the test grid too large to run", p->name,
                       p->halo[0], p->halo[1], p->halo[2]);
        return -1;
    }
    double buffers = 0, elems = 1;
    for (int f = 0; f < p->nfields; f++)
        buffers += p->fields[f].role == ROLE_STATE ? p->fields[f].levels : 1;
    for (int d = 0; d < 3; d++)
        elems *= (double)n[d] + (d < p->dims ? 2.0 * p->halo[d] : 0);
    double gib = 2 * buffers * elems * sizeof(double) / (1 << 30); /* the interpreter's grid and a copy */
    if (gib > CHECK_MAX_GIB) {
        diag_run_error(&job->diag, "check %s: the interpreter would need %.0f GiB for this grid (at most %d); give a "
                       "smaller --grid", p->name, gib, CHECK_MAX_GIB);
        return -1;
    }
    return 0;
}

/* The variant the GPU runs: --config's or the default, for the check grid. */
static int check_variant(Job *job, const int n[3], int steps)
{
    for (int d = 0; d < 3; d++)
        job->grid[d] = n[d];
    job->steps = steps;
    space_init(&job->space, job->prog, job->grid);
    space_set_steps(&job->space, steps);
    int rc = step_choose_config(job);
    return rc ? rc : step_build_plan(job);
}

/* The interpreter's run, with progress for long ones and Ctrl-C; 0, or 130 when stopped. */
static int run_interpreter(Job *job, InterpGrid *g, int steps)
{
    struct sigaction sa = {0}, old;
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    Progress pr = {.diag = &job->diag, .name = job->prog->name, .start = now_s()};
    int done = interp_run_ticking(g, steps, tick, &pr);
    sigaction(SIGINT, &old, NULL);
    if (done < steps) {
        diag_run_info(&job->diag, "check %s: interrupted after %d of %d steps; nothing to report",
                      job->prog->name, pr.done, steps);
        return 130;
    }
    return 0;
}

/* What check reports after the run: the summary, growth, --save, the GPU's kernel. */
static int report(Job *job, InterpGrid *g, InterpGrid *start, const double *before, int steps)
{
    const Options *o = job->opt;
    ir_check_heading(stdout, g, steps, o->seed);
    for (int i = 0; i < o->ninit; i++)
        printf("  initial %.*s from %s\n", (int)(strchr(o->init[i], '=') - o->init[i]), o->init[i],
               strchr(o->init[i], '=') + 1);
    if (job->prog->type == ELEM_FLOAT)
        printf("  initial values rounded to float, as the float kernels start from them\n");
    int bad = ir_check_summary(stdout, g);
    bad |= check_growth(job, g, before);
    int rc = check_save(job, g);
    if (rc)
        return rc;
    if (start && bad)
        printf("  the kernel was not run: the interpreter's values are not finite or grow without bound\n");
    else if (start)
        bad |= check_gpu(job, start, g, steps);
    return bad;
}

int step_check(Job *job)
{
    const Options *o = job->opt;
    int steps = o->steps ? (int)o->steps : 3, n[3], rc = 0;
    char why[256];
    if (check_grid(job, n) != 0)
        return 1;
    int variant = o->config || rt_available(why, sizeof why);
    if (variant && (rc = check_variant(job, n, steps)) != 0)
        return rc == STEP_USAGE ? rc : 1;
    InterpGrid *grids[2] = {interp_grid_new(job->prog, n), variant ? interp_grid_new(job->prog, n) : NULL};
    int ngrids = variant ? 2 : 1;
    if (!grids[0] || (variant && !grids[1])) { /* past ir.h's index range: check_grid's sizes say not */
        diag_run_error(&job->diag, "check %s: the grid is too large for the interpreter", job->prog->name);
        for (int i = 0; i < ngrids; i++)
            if (grids[i])
                interp_grid_free(grids[i]);
        return 1;
    }
    for (int i = 0; i < ngrids; i++)
        interp_fill_random(grids[i], o->seed);
    rc = check_init(job, grids, ngrids);
    if (rc == 0) {
        double before[64];
        for (int i = 0; i < ngrids; i++)
            check_round_to_type(grids[i]);
        check_max_abs(grids[0], before);
        rc = run_interpreter(job, grids[0], steps);
        if (rc == 0)
            rc = report(job, grids[0], grids[1], before, steps);
    }
    for (int i = 0; i < ngrids; i++)
        interp_grid_free(grids[i]);
    return rc == -1 ? 1 : rc;
}
