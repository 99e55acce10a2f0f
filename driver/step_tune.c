/* --autotune: choose the configuration by measuring on this GPU.
 *
 *   no GPU        say why; a tuning record of this program and grid made on some GPU, else the
 *                 default configuration (with a warning)
 *   --replay F    tune against recorded measurements (no GPU involved)
 *   GPU           tuning database hit: emit at once. Otherwise resume from the key's journal,
 *                 search (tuner/ + tuner/gpu_eval.c), re-time the best few carefully, compare
 *                 the winner with the plain kernel on the full grid, store it, emit it.
 *
 * Ctrl-C during the search stops it and emits the best so far; that result is not stored in
 * the database, so the next run resumes from the journal (every measurement is in it, flushed
 * line by line). A second Ctrl-C ends stencilc at once; the journal keeps what was measured. */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../runtime/rt.h"
#include "../tuner/gpu_eval.h"
#include "../tuner/tune.h"
#include "steps.h"

#define RETIME_TOP 4           /* candidates re-timed carefully at the end */
#define RETIME_TARGET_MS 200.0
#define RETIME_MIN_REPS 10
#define RECORD_SAMPLE 2000     /* --tune-record: configurations measured */

/* ---- Ctrl-C ------------------------------------------------------------------------------ */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1; /* SA_RESETHAND: a second Ctrl-C ends the process */
}

/* A strategy that has nothing more to propose once Ctrl-C was pressed, so tune_run stops after
 * the batch in flight and reports what it has. */
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

static TuneStrategy *stoppable(TuneStrategy *inner)
{
    StopStrategy *st = calloc(1, sizeof *st);
    if (!st)
        return inner;
    st->base = (TuneStrategy){inner->name, stop_propose, stop_observe, stop_destroy};
    st->inner = inner;
    return &st->base;
}

/* ---- small helpers ----------------------------------------------------------------------- */

/* Copies src into dst of len bytes, cut to fit. */
static void copy_text(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static const char *elem_name(const IrProgram *p) { return p->type == ELEM_DOUBLE ? "double" : "float"; }

/* The program as the database knows it: the IR dump (what the code depends on, not comments
 * or formatting of the source). malloc'd. */
static char *program_text(const IrProgram *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    ir_dump(f, p);
    fclose(f);
    return buf;
}

static void today(char *buf, int len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, (size_t)len, "%Y-%m-%d", &tm);
}

static void budget_text(const TuneBudget *b, int simulated, char *buf, int len)
{
    if (b->seconds > 0 && b->count > 0)
        snprintf(buf, (size_t)len, "%g s%s or %ld variants", b->seconds, simulated ? " simulated" : "",
                 b->count);
    else if (b->seconds > 0)
        snprintf(buf, (size_t)len, "%g s%s", b->seconds, simulated ? " simulated" : "");
    else
        snprintf(buf, (size_t)len, "%ld variants", b->count);
}

static int use_config_text(Job *job, const char *text, const char *what)
{
    char err[256], why[256];
    Config c;
    if (config_parse(text, job->prog->dims, &c, err, sizeof err) != 0) {
        fprintf(stderr, "stencilc: warning: %s '%s' does not parse: %s\n", what, text, err);
        return -1;
    }
    if (!space_check(&job->space, &c, why, sizeof why)) {
        fprintf(stderr, "stencilc: warning: %s '%s' is not valid here: %s\n", what, text, why);
        return -1;
    }
    job->config = c;
    return 0;
}

/* The configuration step_choose_config left (--config or the default), with a note. */
static int keep_untuned(Job *job, const char *because)
{
    char cfg[512], why[256];
    config_format(&job->config, cfg, sizeof cfg);
    if (!space_check(&job->space, &job->config, why, sizeof why)) {
        fprintf(stderr, "stencilc: error: the configuration %s is not valid for '%s' on this grid: %s\n",
                cfg, job->prog->name, why);
        return -1;
    }
    fprintf(stderr, "stencilc: warning: not tuned (%s); emitting %s configuration %s\n", because,
            job->opt->config ? "the --config" : "the default", cfg);
    snprintf(job->config_origin, sizeof job->config_origin,
             "not tuned (%s): %s configuration %.300s", because,
             job->opt->config ? "--config" : "default", cfg);
    return 0;
}

/* ---- the tuning database ----------------------------------------------------------------- */

/* The database's record of key, emitted at once when there is a usable one: 0; else 1 (a
 * damaged record is reported by name). gpu: the name to show; cuda: the key's. */
static int use_db_record(Job *job, const char *dir, const TuneDbKey *key, const char *gpu)
{
    TuneDbEntry e;
    char err[1400];
    int found = tunedb_lookup(dir, key, &e, err, sizeof err);
    if (found < 0)
        fprintf(stderr, "stencilc: warning: tuning database: %s; tuning again\n", err);
    if (found != 0 || use_config_text(job, e.config, "the tuning database's configuration") != 0)
        return 1;
    char day[16];
    snprintf(day, sizeof day, "%.10s", e.date);
    if (!job->opt->quiet)
        fprintf(stderr, "stencilc: using the tuned configuration recorded on %s on %s (%.4g ms/step; "
                        "tuning database %s)\n", e.gpu[0] ? e.gpu : gpu, day, e.ms, dir);
    snprintf(job->config_origin, sizeof job->config_origin,
             "tuned configuration recorded by stencilc --autotune on %.100s on %s: %.200s, %.4g "
             "ms/step, CUDA %s", e.gpu[0] ? e.gpu : gpu, day, e.config, e.ms, key->cuda);
    return 0;
}

/* Offers the winner to the database, which keeps a faster record of the key (another process
 * may have stored one meanwhile). */
static void store_result(const Job *job, const char *dir, const TuneDbKey *key, const char *cfg, double ms,
                         const char *gpu)
{
    TuneDbEntry e, kept;
    char err[1400];
    memset(&e, 0, sizeof e);
    copy_text(e.config, sizeof e.config, cfg);
    e.ms = ms;
    copy_text(e.gpu, sizeof e.gpu, gpu);
    int rc = tunedb_store(dir, key, &e, &kept, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "stencilc: warning: the result was not stored in the tuning database: %s\n", err);
    else if (rc == 1 && !job->opt->quiet)
        fprintf(stderr, "stencilc: the tuning database keeps its faster record %s (%.4g ms/step, %.10s)\n",
                kept.config, kept.ms, kept.date);
}

/* The lock of the GPU this run times on, taken after a database miss; then the database is
 * read again, since the process that held the GPU may have tuned this very key. 0: locked (or
 * the lock could not be had: a warning, and the run goes on), 1: the record is there now. */
static int lock_gpu(Job *job, TuneLock *l, const char *id, const char *name, const char *dir,
                    const TuneDbKey *key)
{
    char doing[600], err[1400];
    snprintf(doing, sizeof doing, "stencilc tuning '%.100s' of %.400s", job->prog->name, job->opt->input);
    if (tune_gpu_lock(l, id, name, doing, &job->diag, err, sizeof err) != 0)
        fprintf(stderr, "stencilc: warning: tuning without the GPU's lock: %s\n", err);
    if (job->opt->tune_record || use_db_record(job, dir, key, name) != 0)
        return 0;
    tune_lock_release(l);
    return 1;
}

/* ---- no GPU: a record made elsewhere ------------------------------------------------------ */

/* tunedb_find_any_gpu's test: the record's configuration parses and fits (then it is the
 * job's); one that does not is reported, and an older record gets its turn. */
static int accept_record(void *job, const TuneDbEntry *e)
{
    return use_config_text(job, e->config, "the recorded configuration") == 0;
}

static int tune_without_gpu(Job *job, const char *reason, const TuneDbKey *key)
{
    const Options *o = job->opt;
    fprintf(stderr, "stencilc: no GPU found: %s\n", reason);
    char dir[1024];
    tunedb_dir(o->tune_db, dir, sizeof dir);
    TuneDbEntry e;
    if (!o->config && tunedb_find_any_gpu(dir, key, accept_record, job, &e, &job->diag) == 0) {
        char day[16];
        snprintf(day, sizeof day, "%.10s", e.date);
        fprintf(stderr, "stencilc: using the tuned configuration recorded on %s on %s\n", e.gpu, day);
        snprintf(job->config_origin, sizeof job->config_origin,
                 "tuned configuration recorded by stencilc --autotune on %.100s on %s: %.200s, %.4g "
                 "ms/step (no GPU where this was emitted)", e.gpu, day, e.config, e.ms);
        return 0;
    }
    return keep_untuned(job, "no GPU found and no tuning record of this program and grid");
}

/* ---- --replay ---------------------------------------------------------------------------- */

static FILE *open_log(const char *path)
{
    if (!path)
        return NULL;
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "stencilc: error: --tune-log: cannot write '%s'\n", path);
    return f;
}

/* The key's journal: what it holds goes into h (a resumed run measures none of it again),
 * and it is opened for this run's measurements. NULL (with a warning) when it cannot be. */
static TuneJournal *resume_journal(Job *job, const char *dir, const TuneDbKey *key, TuneHistory *h)
{
    char err[1400];
    int resumed = tunedb_journal_load(dir, key, job->prog->dims, h, &job->diag);
    if (resumed > 0 && !job->opt->quiet)
        fprintf(stderr, "stencilc: resuming: %d variants measured by an earlier run (journal in %s)\n",
                resumed, dir);
    TuneJournal *journal = tunedb_journal_open(dir, key, err, sizeof err);
    if (!journal)
        fprintf(stderr, "stencilc: warning: no tuning journal, an interrupted run cannot resume: %s\n", err);
    return journal;
}

/* The search against the recording (as on the GPU: resumed from the key's journal, the winner
 * offered to the database), under the recorded GPU's lock. */
static int replay_search(Job *job, const Replay *rp, const TuneKnobs *knobs, TuneBudget budget,
                         const char *dir, const TuneDbKey *key)
{
    const Options *o = job->opt;
    char err[512];
    Space space;
    replay_space(rp, &space);
    TuneProblem pb = {&space, replay_valid, (void *)rp};
    const char *name = o->strategy ? o->strategy : "gest";
    TuneStrategy *st = tune_strategy_new(name, &pb, knobs, err, sizeof err);
    FILE *log = open_log(o->tune_log);
    if (!st || (o->tune_log && !log)) {
        if (!st)
            fprintf(stderr, "stencilc: error: --strategy: %s\n", err);
        tune_strategy_free(st);
        return -1;
    }
    TuneHistory h;
    tune_history_init(&h);
    TuneJournal *journal = resume_journal(job, dir, key, &h);
    ReplayRun rr;
    TuneEvaluator ev;
    replay_run_init(&rr, rp);
    replay_evaluator(&rr, &ev);
    TuneResult res;
    TuneRunOptions ro = {.budget = budget, .quiet = o->quiet, .diag = &job->diag, .log = log, .journal = journal};
    tune_run(&pb, st, &ev, &h, &ro, &res);
    int rc = -1;
    char cfg[512], why[256];
    if (!res.found) {
        fprintf(stderr, "stencilc: error: --replay: no recorded variant was measured ok\n");
    } else if (!space_check(&job->space, &res.best, why, sizeof why)) {
        config_format(&res.best, cfg, sizeof cfg);
        fprintf(stderr, "stencilc: error: --replay: the best recorded configuration %s is not valid "
                        "for '%s' on this grid: %s\n", cfg, job->prog->name, why);
    } else {
        char btext[64];
        const char *gpu = replay_header(rp, "gpu");
        budget_text(&budget, 1, btext, sizeof btext);
        job->config = res.best;
        config_format(&res.best, cfg, sizeof cfg);
        snprintf(job->config_origin, sizeof job->config_origin,
                 "tuned by stencilc --autotune --replay (%s, %s, %d variants, %d valid): %.200s, "
                 "%.4g ms/step recorded on %.100s", name, btext, h.n, h.nok, cfg, res.best_ms,
                 gpu ? gpu : "an unnamed GPU");
        store_result(job, dir, key, cfg, res.best_ms, key->gpu);
        rc = 0;
    }
    if (log)
        fclose(log);
    tunedb_journal_close(journal);
    tune_history_free(&h);
    tune_strategy_free(st);
    return rc;
}

/* --replay: tuning against a recording, with the database and the locks of a GPU run, so that
 * runs without a GPU exercise them: the key's GPU is the recorded one marked "(replay)" (never
 * taken for a measurement on it), the GPU lock is the recorded GPU's, one per $STC_DEVICE (as
 * two GPUs of one name would have two). */
static int tune_replay(Job *job, const TuneKnobs *knobs, TuneBudget budget, TuneDbKey key, const char *dir)
{
    const Options *o = job->opt;
    char err[512];
    Replay *rp = replay_load(o->replay, err, sizeof err);
    if (!rp) {
        fprintf(stderr, "stencilc: error: --replay: %s\n", err);
        return -1;
    }
    const char *rec_prog = replay_header(rp, "program");
    if (rec_prog && strcmp(rec_prog, job->prog->name))
        fprintf(stderr, "stencilc: warning: --replay: the recording is of '%s', not '%s'\n", rec_prog,
                job->prog->name);
    if (replay_dims(rp) != job->prog->dims) {
        fprintf(stderr, "stencilc: error: --replay: the recording is %dD, '%s' is %dD\n", replay_dims(rp),
                job->prog->name, job->prog->dims);
        replay_free(rp);
        return -1;
    }
    const char *gpu = replay_header(rp, "gpu"), *cuda = replay_header(rp, "cuda"), *dev = getenv("STC_DEVICE");
    char gpu_key[300], lock_id[400];
    snprintf(gpu_key, sizeof gpu_key, "%.200s (replay)", gpu ? gpu : "an unnamed GPU");
    snprintf(lock_id, sizeof lock_id, "replay-%.200s-%.20s", gpu ? gpu : "unnamed", dev && *dev ? dev : "0");
    key.gpu = gpu_key;
    key.cuda = cuda ? cuda : "";
    TuneLock gl = {-1, 0};
    int rc = 0;
    if (use_db_record(job, dir, &key, gpu_key) != 0 && lock_gpu(job, &gl, lock_id, gpu_key, dir, &key) == 0) {
        rc = replay_search(job, rp, knobs, budget, dir, &key);
        tune_lock_release(&gl);
    }
    replay_free(rp);
    return rc;
}

/* ---- --tune-record: the measurements in the replay format --------------------------------- */

typedef struct {
    GpuEval *g;
    FILE *out;
    TuneEvaluator inner;
} Recorder;

static void record_batch(void *ctx, const Config *cs, int n, int *ok, double *ms, char (*why)[160])
{
    Recorder *r = ctx;
    r->inner.evaluate_batch(r->inner.ctx, cs, n, ok, ms, why);
    const GpuEvalResult *res;
    int got = gpu_eval_last(r->g, &res);
    for (int i = 0; i < n && i < got; i++) {
        char cfg[512];
        config_format(&cs[i], cfg, sizeof cfg);
        if (res[i].ok)
            fprintf(r->out, "%s\t%.6g\tcost=%.3f\n", cfg, res[i].ms, res[i].cost_s);
        else
            fprintf(r->out, "%s\tfail\t%s\tcost=%.3f\n", cfg, res[i].why[0] ? res[i].why : "failed",
                    res[i].cost_s);
    }
    fflush(r->out);
}

static int record_eval_one(void *ctx, const Config *c, double *ms, char *why, int whylen)
{
    int ok;
    char w[1][160];
    record_batch(ctx, c, 1, &ok, ms, w);
    snprintf(why, (size_t)whylen, "%s", w[0]);
    return ok ? 0 : -1;
}

/* ---- the search on the GPU --------------------------------------------------------------- */

typedef struct {
    Config config;
    double search_ms, ms; /* ms: re-timed, -1 when that failed */
} Candidate;

static int by_ms(const void *a, const void *b)
{
    const Candidate *x = a, *y = b;
    double u = x->ms < 0 ? INFINITY : x->ms, v = y->ms < 0 ? INFINITY : y->ms;
    return (u > v) - (u < v);
}

static int by_search_ms(const void *a, const void *b)
{
    const TuneSample *x = *(const TuneSample *const *)a, *y = *(const TuneSample *const *)b;
    return (x->ms > y->ms) - (x->ms < y->ms);
}

/* The RETIME_TOP fastest measured configurations and the plain one, re-timed with more care,
 * fastest first (those whose re-timing failed last). The plain one competes too: when the
 * search's short measurements flattered the others, it wins. */
static int retime_candidates(GpuEval *g, const TuneHistory *h, const Space *space, Candidate *cand,
                             double *plain_ms)
{
    const TuneSample **ok = malloc(sizeof *ok * (size_t)(h->nok > 0 ? h->nok : 1));
    int nok = 0;
    for (int i = 0; i < h->n; i++)
        if (h->items[i].ok)
            ok[nok++] = &h->items[i];
    qsort(ok, (size_t)nok, sizeof *ok, by_search_ms);
    Config cs[RETIME_TOP + 1];
    int n = 0, plain_at = -1;
    Config plain = space_default(space);
    for (int i = 0; i < nok && n < RETIME_TOP; i++) {
        cand[n].config = ok[i]->config;
        cand[n].search_ms = ok[i]->ms;
        if (!memcmp(&ok[i]->config, &plain, sizeof plain))
            plain_at = n;
        cs[n] = cand[n].config;
        n++;
    }
    free(ok);
    if (plain_at < 0) {
        cand[n].config = plain;
        cand[n].search_ms = -1;
        cs[n] = plain;
        plain_at = n++;
    }
    GpuEvalResult res[RETIME_TOP + 1];
    gpu_eval_measure(g, cs, n, RETIME_TARGET_MS, RETIME_MIN_REPS, res);
    for (int i = 0; i < n; i++)
        cand[i].ms = res[i].ok ? res[i].ms : -1;
    *plain_ms = cand[plain_at].ms;
    qsort(cand, (size_t)n, sizeof *cand, by_ms);
    return n;
}

typedef struct {
    const char *strategy;
    char btext[64];
    int record;
} TuneMode;

static int tune_on_gpu(Job *job, GpuEval *g, const TuneDbKey *key, const char *dir,
                       const TuneKnobs *knobs, TuneBudget budget, const TuneMode *mode)
{
    const Options *o = job->opt;
    const IrProgram *p = job->prog;
    const RtDeviceInfo *dev = gpu_eval_device(g);
    char err[512], cuda[32];
    gpu_eval_cuda_version(g, cuda, sizeof cuda);
    TuneProblem pb = {&job->space, tune_space_valid, &job->space};
    TuneHistory h;
    tune_history_init(&h);
    TuneJournal *journal = NULL;
    FILE *log = NULL, *rec = NULL;
    TuneStrategy *st = NULL;
    int rc = -1;
    if (!mode->record)
        journal = resume_journal(job, dir, key, &h);
    st = tune_strategy_new(mode->strategy, &pb, knobs, err, sizeof err);
    if (!st) {
        fprintf(stderr, "stencilc: error: --strategy: %s\n", err);
        goto out;
    }
    st = stoppable(st);
    if (o->tune_log && !(log = open_log(o->tune_log)))
        goto out;
    TuneEvaluator ev;
    gpu_eval_evaluator(g, &ev);
    Recorder recorder = {g, NULL, ev};
    if (mode->record) {
        if (!(rec = fopen(o->tune_record, "w"))) {
            fprintf(stderr, "stencilc: error: --tune-record: cannot write '%s'\n", o->tune_record);
            goto out;
        }
        char day[16];
        today(day, sizeof day);
        fprintf(rec, "#stencilc-replay\tprogram=%s\tgrid=", p->name);
        for (int d = 0; d < p->dims; d++)
            fprintf(rec, "%s%ld", d ? "x" : "", job->grid[d]);
        fprintf(rec, "\ttype=%s\tgpu=%s\tcuda=%s\tgenerator=%s\tdate=%s\n", elem_name(p),
                dev->name, cuda, options_generator_name(), day);
        fprintf(rec, "# stencilc --tune-record (%s): CONFIG<TAB>ms per step, or fail<TAB>reason; "
                     "cost = compile s / compile threads + GPU s\n", mode->strategy);
        recorder.out = rec;
        ev.ctx = &recorder;
        ev.evaluate = record_eval_one;
        ev.evaluate_batch = record_batch;
        ev.set_deadline = NULL; /* a recording measures every batch to the end */
    }
    if (!o->quiet)
        fprintf(stderr, "stencilc: tuning '%s' (%s, grid %ldx%ldx%ld) on %s (sm_%d%d, driver %d.%d), "
                        "CUDA %s: %s, budget %s\n", p->name, elem_name(p), job->grid[0], job->grid[1],
                job->grid[2], dev->name, dev->cc_major, dev->cc_minor, dev->driver_version / 1000,
                dev->driver_version % 1000 / 10, cuda, mode->strategy, mode->btext);

    struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_RESETHAND}, old;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &old);
    TuneResult res;
    TuneRunOptions ro = {.budget = budget, .quiet = o->quiet, .diag = &job->diag, .log = log, .journal = journal};
    tune_run(&pb, st, &ev, &h, &ro, &res);
    int was_interrupted = interrupted;
    if (was_interrupted)
        fprintf(stderr, "stencilc: interrupted: emitting the best variant so far (not stored in the "
                        "tuning database; run again to resume from the journal, Ctrl-C again to quit)\n");

    GpuEvalStats stats;
    gpu_eval_stats(g, &stats);
    if (!o->quiet && res.elapsed_s > 0)
        fprintf(stderr, "stencilc: %ld variants in %.1f s (%.1f per second; %.2f s compiling and %.3f s "
                        "on the GPU per variant, %ld worker restarts)\n", res.evaluated, res.elapsed_s,
                (double)res.evaluated / res.elapsed_s,
                stats.measured ? stats.compile_s / (double)stats.measured : 0,
                stats.measured ? stats.gpu_s / (double)stats.measured : 0, stats.restarts);
    if (h.nok == 0) {
        rc = keep_untuned(job, "no variant compiled, verified and ran");
        goto restore;
    }

    /* The search's times are short measurements: the top few are measured again, longer, and
     * the winner must compute what the plain kernel computes on the full grid. */
    Candidate cand[RETIME_TOP + 1];
    double plain_ms = -1;
    int ncand = retime_candidates(g, &h, &job->space, cand, &plain_ms);
    int winner = -1;
    Config plain = space_default(&job->space);
    for (int i = 0; i < ncand && winner < 0; i++) {
        if (cand[i].ms < 0)
            continue;
        if (!memcmp(&cand[i].config, &plain, sizeof plain)) {
            winner = i; /* the reference itself */
            break;
        }
        RtVerifyResult vr;
        char why[512], cfg[512];
        config_format(&cand[i].config, cfg, sizeof cfg);
        int cmp = gpu_eval_compare_plain(g, &cand[i].config, 0, &vr, why, sizeof why);
        if (cmp < 0)
            fprintf(stderr, "stencilc: warning: %s: the comparison with the plain kernel could not run: %s\n",
                    cfg, why);
        else if (cmp > 0) {
            fprintf(stderr, "stencilc: warning: %s: no comparison with the plain kernel on the full grid: "
                            "%s; the interpreter check on the small grid stands\n", cfg, why);
            winner = i;
        } else if (!vr.ok)
            fprintf(stderr, "stencilc: warning: %s differs from the plain kernel on the full grid "
                            "(relative error %.3g > %.3g); not chosen\n", cfg, vr.max_rel_err, vr.tolerance);
        else
            winner = i;
    }
    if (winner < 0) {
        rc = keep_untuned(job, "no fast variant passed the final comparison with the plain kernel");
        goto restore;
    }
    Candidate *w = &cand[winner];
    job->config = w->config;
    char day[16], cfg[512];
    today(day, sizeof day);
    config_format(&w->config, cfg, sizeof cfg);
    snprintf(job->config_origin, sizeof job->config_origin,
             "tuned by stencilc --autotune (%s, %s%s, %d variants, %d valid): %.200s, %.4g ms/step "
             "on %.100s, CUDA %s, %s", mode->strategy, mode->btext,
             was_interrupted ? ", interrupted" : "", h.n, h.nok, cfg, w->ms, dev->name, cuda, day);
    if (!o->quiet) {
        fprintf(stderr, "stencilc: chose %s: %.4g ms/step", cfg, w->ms);
        if (plain_ms > 0)
            fprintf(stderr, " (plain kernel %.4g ms/step, %.2fx)", plain_ms, plain_ms / w->ms);
        fprintf(stderr, "\n");
    }
    if (!was_interrupted)
        store_result(job, dir, key, cfg, w->ms, dev->name);
    rc = 0;
restore:
    sigaction(SIGINT, &old, NULL);
out:
    tunedb_journal_close(journal);
    if (log)
        fclose(log);
    if (rec)
        fclose(rec);
    tune_strategy_free(st);
    tune_history_free(&h);
    return rc;
}

/* ---- the step ---------------------------------------------------------------------------- */

static int strategy_known(const char *name)
{
    for (int i = 0; tune_strategy_names[i]; i++)
        if (!strcmp(tune_strategy_names[i], name))
            return 1;
    return 0;
}

int step_autotune(Job *job)
{
    const Options *o = job->opt;
    const IrProgram *p = job->prog;
    if (o->strategy && !strategy_known(o->strategy)) {
        fprintf(stderr, "stencilc: error: unknown strategy '%s' (gest, random, genetic, exhaustive)\n",
                o->strategy);
        return -1;
    }
    TuneKnobs knobs;
    TuneBudget budget;
    options_tuning(o, &knobs, &budget);
    if (budget.seconds <= 0 && budget.count <= 0) {
        if (o->tune_record)
            budget.count = RECORD_SAMPLE;
        else
            budget.seconds = 60;
    }
    char *program = program_text(p);
    char dir[1024], why[512];
    tunedb_dir(o->tune_db, dir, sizeof dir);
    /* The step count shapes the space (tblock <= steps): a one-step tuning is not the answer
     * for a run that may fuse steps, so the largest tblock the space allows is part of the key. */
    const SpaceParam *tbp = &job->space.params[P_TB];
    char generator[160];
    int used = snprintf(generator, sizeof generator, "%s; tblock<=%d", options_generator_name(),
                        tbp->values[tbp->nvalues - 1]);
    if (o->nprocs) /* a distributed tuning: one rank's part (job->grid), named as such */
        snprintf(generator + used, sizeof generator - (size_t)used, "; distributed %ldx%ldx%ld depth %ld",
                 o->procs[0], o->nprocs > 1 ? o->procs[1] : 1, o->nprocs > 2 ? o->procs[2] : 1,
                 o->depth ? o->depth : 1);
    TuneDbKey key = {program ? program : p->name, {job->grid[0], job->grid[1], job->grid[2]},
                     elem_name(p), "", "", generator};
    int rc;
    if (o->replay) {
        rc = tune_replay(job, &knobs, budget, key, dir);
        free(program);
        return rc;
    }
    GpuEval *g = NULL;
    if (!rt_available(why, sizeof why) || !(g = gpu_eval_start(p, &job->space, job->grid, NULL, why, sizeof why))) {
        rc = o->tune_record ? (fprintf(stderr, "stencilc: error: --tune-record needs a GPU: %s\n", why), -1)
                            : tune_without_gpu(job, why, &key);
        free(program);
        return rc;
    }
    const RtDeviceInfo *dev = gpu_eval_device(g);
    char cuda[32];
    gpu_eval_cuda_version(g, cuda, sizeof cuda);
    key.gpu = dev->name;
    key.cuda = cuda;

    TuneLock gl = {-1, 0};
    if ((!o->tune_record && use_db_record(job, dir, &key, dev->name) == 0)
        || lock_gpu(job, &gl, dev->bus_id, dev->name, dir, &key) != 0) {
        gpu_eval_stop(g);
        free(program);
        return 0;
    }
    TuneMode mode = {o->strategy ? o->strategy : "gest", "", o->tune_record != NULL};
    if (mode.record && !o->strategy) {
        int exact = 0;
        double valid = space_valid_count(&job->space, &exact);
        long want = budget.count > 0 ? budget.count : RECORD_SAMPLE;
        mode.strategy = exact && valid <= (double)want ? "exhaustive" : "random";
    }
    budget_text(&budget, 0, mode.btext, sizeof mode.btext);
    rc = tune_on_gpu(job, g, &key, dir, &knobs, budget, &mode);
    gpu_eval_stop(g);
    tune_lock_release(&gl);
    free(program);
    return rc;
}
