/* The tuning database as the policy uses it: a record of the key is the answer at once; a new
 * result is offered to it; the GPU's lock is taken before measuring, and the database read
 * again once it is held; a search that may fuse steps looks up the one-step tuning's record,
 * to time it first; without a GPU, a record of this program and grid from any GPU. */
#include <string.h>

#include "policy_int.h"

/* Copies src into dst of len bytes, cut to fit. */
static void copy_text(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int tune_db_use(Tuning *t, const char *gpu)
{
    TuneDbEntry e;
    char err[1400];
    int found = tunedb_lookup(t->dir, &t->key, &e, err, sizeof err);
    if (found < 0)
        diag_run_warning(t->d, "tuning database: %s; tuning again", err);
    if (found != 0 || tune_take_config(t, e.config, "the tuning database's configuration") != 0)
        return 1;
    char day[16];
    snprintf(day, sizeof day, "%.10s", e.date);
    if (!t->rq->quiet)
        diag_run_info(t->d, "using the tuned configuration recorded on %s on %s (%.4g ms/step; tuning "
                            "database %s)", e.gpu[0] ? e.gpu : gpu, day, e.ms, t->dir);
    snprintf(t->out->origin, sizeof t->out->origin,
             "tuned configuration recorded by stencilc --autotune on %.100s on %s: %.200s, %.4g "
             "ms/step, CUDA %s", e.gpu[0] ? e.gpu : gpu, day, e.config, e.ms, t->key.cuda);
    return 0;
}

int tune_db_one_step(Tuning *t, const TuneProblem *pb, Config *c, TuneDbEntry *e)
{
    char generator[160], err[1400];
    if (tune_tblock_max(t->rq->space) <= 1)
        return 1;
    tune_key_generator(t->rq, 1, generator, sizeof generator);
    TuneDbKey one = t->key;
    one.generator = generator;
    int found = tunedb_lookup(t->dir, &one, e, err, sizeof err);
    if (found < 0)
        diag_run_warning(t->d, "tuning database: %s; the one-step tuning's configuration is not timed first",
                         err);
    if (found != 0)
        return 1;
    if (config_parse(e->config, t->rq->prog->dims, c, err, sizeof err) != 0) {
        diag_run_warning(t->d, "the one-step tuning's configuration '%s' does not parse: %s", e->config, err);
        return 1;
    }
    /* a one-step kernel is in every space that may fuse steps; a recording may lack it */
    return tune_problem_accepts(pb, c) ? 0 : 1;
}

void tune_db_offer(Tuning *t, const char *cfg, double ms, const char *gpu)
{
    TuneDbEntry e, kept;
    char err[1400];
    memset(&e, 0, sizeof e);
    copy_text(e.config, sizeof e.config, cfg);
    e.ms = ms;
    copy_text(e.gpu, sizeof e.gpu, gpu);
    int rc = tunedb_store(t->dir, &t->key, &e, &kept, err, sizeof err);
    if (rc < 0)
        diag_run_warning(t->d, "the result was not stored in the tuning database: %s", err);
    else if (rc == 1 && !t->rq->quiet)
        diag_run_info(t->d, "the tuning database keeps its faster record %s (%.4g ms/step, %.10s)",
                      kept.config, kept.ms, kept.date);
}

int tune_db_lock_gpu(Tuning *t, TuneLock *l, const char *id, const char *name)
{
    char doing[600], err[1400];
    snprintf(doing, sizeof doing, "stencilc tuning '%.100s' of %.400s", t->rq->prog->name, t->rq->input);
    if (tune_gpu_lock(l, id, name, doing, t->d, err, sizeof err) != 0)
        diag_run_warning(t->d, "tuning without the GPU's lock: %s", err);
    if (t->rq->record || tune_db_use(t, name) != 0)
        return 0;
    tune_lock_release(l);
    return 1;
}

/* tunedb_find_any_gpu's test: the record's configuration parses and fits (then it is the
 * answer); one that does not is reported, and an older record gets its turn. */
static int accept_record(void *t, const TuneDbEntry *e)
{
    return tune_take_config(t, e->config, "the recorded configuration") == 0;
}

int tune_without_gpu(Tuning *t, const char *reason)
{
    diag_run_info(t->d, "no GPU found: %s", reason);
    TuneDbEntry e;
    if (t->rq->config_given || tunedb_find_any_gpu(t->dir, &t->key, accept_record, t, &e, t->d) != 0) {
        int rc = tune_keep_untuned(t, "no GPU found and no tuning record of this program and grid");
        if (rc == 0 && !t->rq->config_given)
            diag_run_info(t->d, "without a GPU, --target GPU (H100, H200, A100, L40 or sm_XY) emits the "
                                "learned model's prediction for the GPU the kernel will run on (docs/model.md)");
        return rc;
    }
    char day[16];
    snprintf(day, sizeof day, "%.10s", e.date);
    diag_run_info(t->d, "using the tuned configuration recorded on %s on %s", e.gpu, day);
    snprintf(t->out->origin, sizeof t->out->origin,
             "tuned configuration recorded by stencilc --autotune on %.100s on %s: %.200s, %.4g "
             "ms/step (no GPU where this was emitted)", e.gpu, day, e.config, e.ms);
    return 0;
}
