/* `stencilc check`: the interpreter on a small grid, with a word about long runs. A few steps
 * take milliseconds, but --steps takes up to 2^30, which is days: such a run says how long it
 * will take and why that is unusual, prints a progress line now and then, and stops cleanly on
 * Ctrl-C (exit 130) instead of being killed mid-report. Short runs print nothing of this. */
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "../ir/interp.h"
#include "steps.h"

#define ANNOUNCE_AFTER_S 0.5 /* the time measured before the estimate is trusted */
#define LONG_RUN_S 10.0      /* longer runs are announced and show progress */
#define ABSURD_RUN_S 3600.0  /* longer ones get a warning */
#define PROGRESS_EVERY_S 10.0

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

int step_check(Job *job)
{
    int steps = job->opt->steps ? (int)job->opt->steps : 3;
    struct sigaction sa = {0}, old;
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    Progress pr = {.diag = &job->diag, .name = job->prog->name, .start = now_s()};
    int rc = ir_check_report(stdout, job->prog, job->opt->seed, steps, tick, &pr);
    sigaction(SIGINT, &old, NULL);
    if (rc == 2) {
        diag_run_info(&job->diag, "check %s: interrupted after %d of %d steps; nothing to report",
                      job->prog->name, pr.done, steps);
        return 130;
    }
    return rc;
}
