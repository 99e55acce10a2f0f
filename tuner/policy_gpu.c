/* Tuning on this machine's GPU: the measuring runs in a worker process (gpu_eval.c) started
 * before anything else touches CUDA. A database record of the key is the answer at once;
 * otherwise, under the GPU's lock, the search (search.c), its best few checked (finalists.c),
 * and the winner stored, unless Ctrl-C stopped the search (stop.c). */
#include <string.h>

#include "policy_int.h"

/* A recording without --strategy measures every valid configuration where there are no more
 * than it may measure, else a random sample. */
static const char *record_strategy(const Tuning *t)
{
    int exact = 0;
    double valid = space_valid_count(t->rq->space, &exact);
    long want = t->budget.count > 0 ? t->budget.count : TUNE_RECORD_SAMPLE;
    return exact && valid <= (double)want ? "exhaustive" : "random";
}

static void say_start(const Tuning *t, GpuEval *g)
{
    const TuneRequest *rq = t->rq;
    const RtDeviceInfo *dev = gpu_eval_device(g);
    char cuda[32], btext[64];
    gpu_eval_cuda_version(g, cuda, sizeof cuda);
    tune_budget_text(&t->budget, 0, btext, sizeof btext);
    if (!rq->quiet)
        diag_run_info(t->d, "tuning '%s' (%s, grid %ldx%ldx%ld) on %s (sm_%d%d, driver %d.%d), CUDA %s: %s, "
                            "budget %s", rq->prog->name, tune_elem_name(rq->prog), rq->grid[0], rq->grid[1],
                      rq->grid[2], dev->name, dev->cc_major, dev->cc_minor, dev->driver_version / 1000,
                      dev->driver_version % 1000 / 10, cuda, t->strategy, btext);
}

static void say_speed(const Tuning *t, GpuEval *g, const TuneResult *res)
{
    GpuEvalStats st;
    gpu_eval_stats(g, &st);
    if (t->rq->quiet || res->elapsed_s <= 0)
        return;
    double n = (double)st.measured;
    diag_run_info(t->d, "%ld variants in %.1f s (%.1f per second; %.2f s compiling and %.3f s on the GPU "
                        "per variant, %ld worker restarts)", res->evaluated, res->elapsed_s,
                  (double)res->evaluated / res->elapsed_s, n > 0 ? st.compile_s / n : 0, n > 0 ? st.gpu_s / n : 0,
                  st.restarts);
}

#define GUIDE_RANK 3 /* --guide: GeST proposes this many times what is measured */

/* The guide of a search on the GPU (guide.h): the limits of its row of the table of GPUs (or of
 * its architecture's), and with --guide the learned model (*model, freed by the caller). -1 when
 * --guide's model cannot be loaded (said on t->d). A recording measures everything: no guide. */
static int open_guide(Tuning *t, GpuEval *g, Model **model)
{
    const RtDeviceInfo *dev = gpu_eval_device(g);
    const OccGpu *gpu = occ_gpu_find(dev->name);
    if (!gpu)
        gpu = occ_gpu_by_cc(dev->cc_major * 10 + dev->cc_minor);
    *model = NULL;
    t->guide = NULL;
    if (t->rq->record)
        return 0;
    if (t->rq->guide) {
        char err[1200];
        if (!(*model = model_load(t->rq->model ? t->rq->model : model_default_path(), err, sizeof err))) {
            diag_run_error(t->d, "--guide: %s", err);
            return -1;
        }
    }
    t->guide = tune_guide_new(*model, gpu, *model ? GUIDE_RANK : 1);
    return 0;
}

/* What the guide kept from the GPU: said on t->d and, for the header, in text. */
static void say_guided(Tuning *t, char *text, int len)
{
    TuneGuideStats gs;
    text[0] = 0;
    if (!t->guide)
        return;
    tune_guide_stats(t->guide, &gs);
    if (!gs.pruned && !gs.ranked_out)
        return;
    const OccGpu *gpu = tune_guide_gpu(t->guide);
    snprintf(text, (size_t)len, ", %ld pruned by the %s's limits%s", gs.pruned, gpu ? gpu->name : "GPU",
             tune_guide_model(t->guide) ? ", guided by the model" : "");
    if (!t->rq->quiet)
        diag_run_info(t->d, "%ld proposals not compiled nor timed: %ld hopeless by the %s's limits, %ld ranked "
                            "out by the model (status \"pruned\" in --tune-log)", gs.pruned + gs.ranked_out,
                      gs.pruned, gpu ? gpu->name : "GPU", gs.ranked_out);
}

/* The winner of the search's best few as the answer, stored unless the search was stopped. */
static int choose(Tuning *t, GpuEval *g, const TuneHistory *h, int interrupted, FILE *log)
{
    TuneFinalist f[TUNE_FINALISTS + 1];
    double plain_ms = -1;
    int n = tune_finalists_retime(g, h, t->rq->space, f, &plain_ms);
    int w = tune_finalists_pick(g, t->rq->space, f, n, t->d, log);
    if (w < 0)
        return tune_keep_untuned(t, "no fast variant passed the final comparison with the plain kernel");
    const char *gpu = gpu_eval_device(g)->name;
    char day[16], cfg[512], btext[64], speedup[96] = "";
    tune_today(day, sizeof day);
    tune_budget_text(&t->budget, 0, btext, sizeof btext);
    config_format(&f[w].config, cfg, sizeof cfg);
    t->out->config = f[w].config;
    char guided[160];
    say_guided(t, guided, sizeof guided);
    snprintf(t->out->origin, sizeof t->out->origin,
             "tuned by stencilc --autotune (%s, %s%s, %d variants, %d valid%s): %.200s, %.4g ms/step "
             "on %.100s, CUDA %s, %s", t->strategy, btext, interrupted ? ", interrupted" : "", h->n,
             h->nok, guided, cfg, f[w].ms, gpu, t->key.cuda, day);
    if (plain_ms > 0)
        snprintf(speedup, sizeof speedup, " (plain kernel %.4g ms/step, %.2fx)", plain_ms, plain_ms / f[w].ms);
    if (!t->rq->quiet)
        diag_run_info(t->d, "chose %s: %.4g ms/step%s", cfg, f[w].ms, speedup);
    if (!interrupted)
        tune_db_offer(t, cfg, f[w].ms, gpu);
    return 0;
}

/* The search under the GPU's lock, then the choice. */
static int tune_on_gpu(Tuning *t, GpuEval *g)
{
    const Space *space = t->rq->space;
    TuneProblem pb = {space, tune_space_valid, (void *)space};
    TuneSearch s;
    Model *model;
    if (open_guide(t, g, &model) != 0)
        return -1;
    if (tune_search_open(t, &pb, !t->rq->record, &s) != 0) {
        tune_guide_free(t->guide);
        t->guide = NULL;
        model_free(model);
        return -1;
    }
    s.st = tune_stoppable(s.st);
    TuneEvaluator ev;
    gpu_eval_evaluator(g, &ev);
    TuneRecorder rec = {0};
    int rc = -1;
    if (!t->rq->record || tune_record_open(t, g, &rec, &ev) == 0) {
        say_start(t, g);
        tune_stop_arm();
        TuneResult res;
        tune_search_run(t, &s, &pb, &ev, &res);
        int interrupted = tune_stop_requested();
        if (interrupted)
            diag_run_info(t->d, "interrupted: emitting the best variant so far (not stored in the tuning "
                                "database; run again to resume from the journal, Ctrl-C again to quit)");
        say_speed(t, g, &res);
        rc = s.h.nok == 0 ? tune_keep_untuned(t, "no variant compiled, verified and ran")
                          : choose(t, g, &s.h, interrupted, s.log);
        tune_stop_disarm();
    }
    tune_record_close(&rec);
    tune_search_close(&s);
    tune_guide_free(t->guide);
    t->guide = NULL;
    model_free(model);
    return rc;
}

int tune_with_gpu(Tuning *t)
{
    const TuneRequest *rq = t->rq;
    char why[512], cuda[32];
    GpuEval *g = NULL;
    if (!rt_available(why, sizeof why) || !(g = gpu_eval_start(rq->prog, rq->space, rq->grid, &(GpuEvalOptions){.part = rq->part}, why, sizeof why))) {
        if (!rq->record)
            return tune_without_gpu(t, why);
        diag_run_error(t->d, "--tune-record needs a GPU: %s", why);
        return -1;
    }
    const RtDeviceInfo *dev = gpu_eval_device(g);
    gpu_eval_cuda_version(g, cuda, sizeof cuda);
    t->key.gpu = dev->name;
    t->key.cuda = cuda;
    TuneLock gl = {-1, 0};
    int rc = 0;
    if ((rq->record || tune_db_use(t, dev->name) != 0) && tune_db_lock_gpu(t, &gl, dev->bus_id, dev->name) == 0) {
        if (rq->record && !rq->strategy)
            t->strategy = record_strategy(t);
        rc = tune_on_gpu(t, g);
    }
    gpu_eval_stop(g); /* before the lock goes: the worker may still be on the GPU */
    tune_lock_release(&gl);
    t->key.gpu = t->key.cuda = "";
    return rc;
}
