/* Ctrl-C during a search: the first one stops the search after the batch in flight, and the
 * best variant so far is chosen (not stored: the next run resumes from the journal); the
 * handler is reset as it runs (SA_RESETHAND), so a second Ctrl-C ends the process at once, the
 * journal still holding every measurement. */
#include <signal.h>
#include <stdlib.h>

#include "policy_int.h"

static volatile sig_atomic_t interrupted;
static struct sigaction before;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

void tune_stop_arm(void)
{
    struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &before);
}

void tune_stop_disarm(void) { sigaction(SIGINT, &before, NULL); }

int tune_stop_requested(void) { return interrupted; }

typedef struct {
    TuneStrategy base;
    TuneStrategy *inner;
} StopStrategy;

static int stop_propose(TuneStrategy *s, const TuneHistory *h, Config *out, int max)
{
    StopStrategy *st = (StopStrategy *)s;
    return interrupted ? 0 : st->inner->propose(st->inner, h, out, max);
}

static void stop_observe(TuneStrategy *s, const TuneSample *r)
{
    StopStrategy *st = (StopStrategy *)s;
    st->inner->observe(st->inner, r);
}

static void stop_destroy(TuneStrategy *s)
{
    StopStrategy *st = (StopStrategy *)s;
    tune_strategy_free(st->inner);
    free(st);
}

TuneStrategy *tune_stoppable(TuneStrategy *inner)
{
    StopStrategy *st = calloc(1, sizeof *st);
    if (!st)
        return inner;
    st->base = (TuneStrategy){inner->name, stop_propose, stop_observe, stop_destroy};
    st->inner = inner;
    return &st->base;
}
