/* --replay: tuning against a recording instead of the GPU, with the database and the locks of a
 * GPU run, so that runs without a GPU exercise them: the key's GPU is the recorded one marked
 * "(replay)" (never taken for a measurement on it), and the GPU lock is the recorded GPU's, one
 * per $STC_DEVICE (as two GPUs of one name would have two). */
#include <stdlib.h>
#include <string.h>

#include "policy_int.h"

/* The search's best as the answer, when it is valid for the program and grid, and offered to
 * the database: 0; else -1. */
static int take_best(Tuning *t, const Replay *rp, const TuneHistory *h, const TuneResult *res)
{
    const TuneRequest *rq = t->rq;
    char cfg[512], why[256], btext[64];
    if (!res->found) {
        diag_run_error(t->d, "--replay: no recorded variant was measured ok");
        return -1;
    }
    config_format(&res->best, cfg, sizeof cfg);
    if (!space_check(rq->space, &res->best, why, sizeof why)) {
        diag_run_error(t->d, "--replay: the best recorded configuration %s is not valid for '%s' on "
                             "this grid: %s", cfg, rq->prog->name, why);
        return -1;
    }
    const char *gpu = replay_header(rp, "gpu");
    tune_budget_text(&t->budget, 1, btext, sizeof btext);
    t->out->config = res->best;
    snprintf(t->out->origin, sizeof t->out->origin,
             "tuned by stencilc --autotune --replay (%s, %s, %d variants, %d valid): %.200s, %.4g "
             "ms/step recorded on %.100s", t->strategy, btext, h->n, h->nok, cfg, res->best_ms,
             gpu ? gpu : "an unnamed GPU");
    tune_db_offer(t, cfg, res->best_ms, t->key.gpu);
    return 0;
}

/* The search against the recording, resumed from the key's journal, on a simulated clock. */
static int search(Tuning *t, const Replay *rp)
{
    Space space;
    replay_space(rp, &space);
    TuneProblem pb = {&space, replay_valid, (void *)rp};
    TuneSearch s;
    if (tune_search_open(t, &pb, 1, &s) != 0)
        return -1;
    ReplayRun rr;
    TuneEvaluator ev;
    replay_run_init(&rr, rp);
    replay_evaluator(&rr, &ev);
    TuneResult res;
    tune_search_run(t, &s, &pb, &ev, &res);
    int rc = take_best(t, rp, &s.h, &res);
    tune_search_close(&s);
    return rc;
}

/* The recording, when it can stand for this program: NULL (said on t->d) when it cannot be
 * read or is of another dimension; another program's name is only a warning. */
static Replay *load(Tuning *t)
{
    const IrProgram *p = t->rq->prog;
    char err[512];
    Replay *rp = replay_load(t->rq->replay, err, sizeof err);
    if (!rp) {
        diag_run_error(t->d, "--replay: %s", err);
        return NULL;
    }
    const char *rec_prog = replay_header(rp, "program");
    if (rec_prog && strcmp(rec_prog, p->name))
        diag_run_warning(t->d, "--replay: the recording is of '%s', not '%s'", rec_prog, p->name);
    if (replay_dims(rp) != p->dims) {
        diag_run_error(t->d, "--replay: the recording is %dD, '%s' is %dD", replay_dims(rp), p->name,
                       p->dims);
        replay_free(rp);
        return NULL;
    }
    return rp;
}

int tune_replay(Tuning *t)
{
    Replay *rp = load(t);
    if (!rp)
        return -1;
    const char *gpu = replay_header(rp, "gpu"), *cuda = replay_header(rp, "cuda"), *dev = getenv("STC_DEVICE");
    char gpu_key[300], lock_id[400];
    snprintf(gpu_key, sizeof gpu_key, "%.200s (replay)", gpu ? gpu : "an unnamed GPU");
    snprintf(lock_id, sizeof lock_id, "replay-%.200s-%.20s", gpu ? gpu : "unnamed", dev && *dev ? dev : "0");
    t->key.gpu = gpu_key;
    t->key.cuda = cuda ? cuda : "";
    TuneLock gl = {-1, 0};
    int rc = 0;
    if (tune_db_use(t, gpu_key) != 0 && tune_db_lock_gpu(t, &gl, lock_id, gpu_key) == 0) {
        rc = search(t, rp);
        tune_lock_release(&gl);
    }
    t->key.gpu = t->key.cuda = "";
    replay_free(rp);
    return rc;
}
