/* What the files of the --autotune policy (policy.h) share: the tuning in progress, and the
 * steps each file provides. */
#ifndef STC_POLICY_INT_H
#define STC_POLICY_INT_H
#include "gpu_eval.h"
#include "guide.h"
#include "policy.h"

#define TUNE_RECORD_SAMPLE 2000 /* --tune-record without a budget: configurations measured */

typedef struct {
    const TuneRequest *rq;
    TuneChoice *out;
    Diag *d;
    const char *strategy; /* the request's, else the default */
    TuneBudget budget;    /* the request's, else the default */
    char dir[1024];       /* the tuning database */
    TuneDbKey key;        /* its gpu and cuda are set once the GPU (or the recording) is known */
    TuneGuide *guide;     /* a search on a GPU: its limits prune, with --guide the model ranks */
} Tuning;

/* ---- policy.c: the tuning database's key ---------------------------------------------------- */

/* The largest tblock s allows: above 1, the run may fuse steps. */
int tune_tblock_max(const Space *s);
/* The key's generator for rq when its space allows tblock up to tblock_max (1: the one-step
 * tuning of the same program and grid), in buf of len bytes. */
void tune_key_generator(const TuneRequest *rq, int tblock_max, char *buf, int len);
/* rq's key, its gpu and cuda empty, its generator written in generator (len bytes): the
 * program text it holds is returned malloc'd for the caller to free (NULL, out of memory:
 * the program's name stands in). */
char *tune_key_init(const TuneRequest *rq, TuneDbKey *key, char *generator, int len);

/* ---- choice.c: how a configuration becomes the answer ------------------------------------ */

/* text (from the database, "what") as the answer when it parses and fits the program and grid:
 * 0; else -1 with a warning. */
int tune_take_config(Tuning *t, const char *text, const char *what);
/* The request's own configuration as the answer, with a warning that says why nothing was
 * tuned: 0, or -1 when it does not fit the program and grid. */
int tune_keep_untuned(Tuning *t, const char *because);
/* "30 s", "30 s simulated or 200 variants", "200 variants" */
void tune_budget_text(const TuneBudget *b, int simulated, char *buf, int len);
const char *tune_elem_name(const IrProgram *p);
void tune_today(char *buf, int len); /* YYYY-MM-DD, UTC */

/* ---- policy_db.c: the tuning database and the GPU lock ------------------------------------ */

/* The database's record of t->key as the answer, when there is a usable one: 0; else 1 (a
 * damaged record is reported by name). gpu: the GPU to name where the record names none. */
int tune_db_use(Tuning *t, const char *gpu);
/* For a search over pb whose space may fuse steps (tblock above 1): the record of the one-step
 * tuning of the same program, grid, type, GPU and CUDA (t->key with the generator's tblock<=1),
 * when its configuration parses and pb accepts it: 0 with it in *c and the record in *e; else
 * 1 (a damaged record or one that does not parse is said on t->d). */
int tune_db_one_step(Tuning *t, const TuneProblem *pb, Config *c, TuneDbEntry *e);
/* Offers a result to the database, which keeps a faster record of the key. */
void tune_db_offer(Tuning *t, const char *cfg, double ms, const char *gpu);
/* Takes the lock of the GPU id (a warning when it cannot be had, and the run goes on), then
 * reads the database again: the holder may have tuned this very key. 0: locked, go on; 1: the
 * record is the answer now (and the lock is released). */
int tune_db_lock_gpu(Tuning *t, TuneLock *l, const char *id, const char *name);
/* Without a GPU: the newest record of the program and grid made on any GPU that fits, else the
 * request's configuration. 0, or -1. */
int tune_without_gpu(Tuning *t, const char *reason);

/* ---- search.c: the strategy loop --------------------------------------------------------- */

typedef struct {
    TuneStrategy *st;
    FILE *log;
    TuneJournal *journal; /* NULL: none (a recording, or it could not be opened) */
    TuneHistory h;        /* with what the journal held */
} TuneSearch;

/* Makes the strategy over pb, opens the --tune-log and, when resume, loads the key's journal
 * into s->h and opens it for this run's measurements. 0, or -1 (said on t->d; nothing open). */
int tune_search_open(Tuning *t, const TuneProblem *pb, int resume, TuneSearch *s);
/* tune_run with the budget, the progress line, the log and the journal. */
void tune_search_run(Tuning *t, TuneSearch *s, const TuneProblem *pb, const TuneEvaluator *ev,
                     TuneResult *res);
void tune_search_close(TuneSearch *s);

/* ---- stop.c: Ctrl-C during the search ---------------------------------------------------- */

/* inner, proposing nothing more once Ctrl-C was pressed: tune_run then stops after the batch in
 * flight. Freeing it frees inner. */
TuneStrategy *tune_stoppable(TuneStrategy *inner);
/* From arm to disarm, the first Ctrl-C is noted (tune_stop_requested) and the next ends the
 * process as usual. */
void tune_stop_arm(void);
void tune_stop_disarm(void);
int tune_stop_requested(void);

/* ---- finalists.c: the search's best few, checked ----------------------------------------- */

#define TUNE_FINALISTS 4 /* re-timed with care at the end, with the plain kernel */

typedef struct {
    Config config;
    double search_ms, ms; /* ms: re-timed, -1 when that failed */
} TuneFinalist;

/* The TUNE_FINALISTS fastest measured configurations of h and the plain one, re-timed with more
 * care, fastest first (those whose re-timing failed last): their count, and the plain one's
 * time in *plain_ms (-1: failed). */
int tune_finalists_retime(GpuEval *g, const TuneHistory *h, const Space *space, TuneFinalist *f,
                          double *plain_ms);
/* The first of f[0..n) that computes what the plain kernel computes on the full grid (the plain
 * kernel itself passes), each that does not said on d: its index, or -1. With a log (--tune-log),
 * a line for each finalist: the winner's status "chosen", the others' "final" and why. */
int tune_finalists_pick(GpuEval *g, const Space *space, const TuneFinalist *f, int n, Diag *d, FILE *log);

/* ---- replay_record.c: --tune-record ------------------------------------------------------ */

typedef struct {
    GpuEval *g;
    FILE *out;
    TuneEvaluator inner;
} TuneRecorder;

/* Opens t->rq->record, writes the replay header, and turns *ev (g's evaluator) into one that
 * also writes each measurement there. 0, or -1 (said on t->d). */
int tune_record_open(Tuning *t, GpuEval *g, TuneRecorder *r, TuneEvaluator *ev);
void tune_record_close(TuneRecorder *r);

/* ---- policy_replay.c, policy_gpu.c: the two ways of measuring ---------------------------- */

int tune_replay(Tuning *t);
int tune_with_gpu(Tuning *t);

#endif
