/* The autotuner: search strategies over a Space (GeST, random, genetic, exhaustive), the driver
 * loop that asks a strategy for configurations and feeds it measurements, the tuning database
 * and the replay of recorded measurements. Nothing here touches a GPU: the measurement is a
 * callback (the runtime's pipeline, or replay), so every part runs and is tested without one.
 *
 * Prefixes: tune_ (driver loop, history, strategies), tunedb_ (database), replay_ (replay). */
#ifndef STC_TUNE_H
#define STC_TUNE_H
#include <stdio.h>

#include "../codegen/config.h"
#include "../codegen/space.h"
#include "../util/diag.h"

/* ---- callbacks ---------------------------------------------------------------------------- */

/* 1 if c may be evaluated (static constraints hold); else 0 and a reason in why. */
typedef int (*TuneValidFn)(void *ctx, const Config *c, char *why, int whylen);
/* Measures c: 0 with *ms set, or nonzero with a reason in why (compile, launch, verify...). */
typedef int (*TuneEvalFn)(void *ctx, const Config *c, double *ms, char *why, int whylen);

/* The adapter for the real space: ctx is a const Space *, calls space_check. */
int tune_space_valid(void *space, const Config *c, char *why, int whylen);

/* What is known of a variant before it runs (tuner/guide.h): the GPU's limits and the learned
 * model (TuneKnobs.guide). */
typedef struct TuneGuide TuneGuide;

/* What is tuned: the space (values per parameter) and which points of it are valid. */
typedef struct {
    const Space *space;
    TuneValidFn valid;
    void *valid_ctx;
} TuneProblem;

/* c in pb's space (each value one its parameter takes) and valid there: what a configuration
 * from outside the search (a prior, TuneKnobs.first) must be before it is proposed. */
int tune_problem_accepts(const TuneProblem *pb, const Config *c);

/* ---- history of measurements ------------------------------------------------------------- */

typedef struct {
    Config config;
    int ok;           /* 1: measured; 0: failed (why says how) */
    double ms;        /* when ok */
    char why[160];
    double elapsed_s; /* tuning time (the run's clock) when it finished; -1 when loaded */
} TuneSample;

typedef struct TuneSeen TuneSeen; /* a hash set of configurations */

typedef struct {
    TuneSample *items;
    int n, cap;
    int best;         /* index of the fastest ok sample, -1 if none */
    int nok;
    TuneSeen *seen;
} TuneHistory;

void tune_history_init(TuneHistory *h);
void tune_history_free(TuneHistory *h);
/* Appends a result (a config already in the history is ignored: returns -1), else its index. */
int tune_history_add(TuneHistory *h, const Config *c, int ok, double ms, const char *why,
                     double elapsed_s);
int tune_history_seen(const TuneHistory *h, const Config *c);

/* ---- strategies --------------------------------------------------------------------------- */

#define TUNE_MAX_FIRST 2 /* TuneKnobs.first */

typedef struct {
    unsigned long long seed;
    /* GeST */
    int dataset;           /* random evaluations before grouping (paper: 15-20); default 16 */
    int groups;            /* parameter groups (paper: 4-5); default 5 */
    double ar, lr;         /* adjustment ratio, lowest ratio; default 0.1, 0.1 */
    int quota;             /* evaluations per round; default 8 */
    int fill;              /* 1: a round that leaves room in the evaluator's batch is topped up,
                            * first from the groups still holding unseen settings around the
                            * best, then at random; 0 (default): the paper's round only */
    int ratio_by_size;     /* 1: initial ratios by group combinations (paper); 0: equal */
    int grouping_front;    /* 1: grow groups from the low-CV end (brief variant); 0: paper */
    int grouping_balanced; /* 1: no group but the presets beyond ceil(free parameters / groups)
                            * members (with 16 samples most pairs' CVs are 0 or undefined, and
                            * the paper's grouping can put 14 of 23 parameters with the
                            * thread-block dims); 0 (default): paper */
    int priors;            /* the dataset starts with up to this many prior configurations
                            * (tuner/priors.c; 0: a purely random dataset, as in the paper);
                            * default 4 */
    /* Configurations GeST times before its priors and the model's ranking, each that is in the
     * space, valid and not measured yet: the one-step tuning's winner from the tuning database,
     * for a run that may fuse steps (tuner/search.c), so that such a run never ends below the
     * one-step figure but by timing noise. Random, genetic and exhaustive ignore them. */
    Config first[TUNE_MAX_FIRST];
    int nfirst;
    /* genetic (OpenTuner-like) */
    int ga_subpops, ga_pop; /* 2 x 16 */
    double ga_cross, ga_mut; /* 0.8, 0.005 per gene */
    int ga_tournament;      /* 3 */
    int ga_elite;           /* 1 per sub-population */
    int ga_migrate;         /* generations between migrations; 5 */
    /* exhaustive */
    long exhaustive_max;    /* refuse above this many valid points; default 200000 */
    /* NULL (default), or what prunes variants the GPU's limits make hopeless and ranks
     * proposals by the learned model: tune_strategy_new wraps the strategy in it, and GeST's
     * starting configurations come from the model instead of the priors table (guide.h) */
    TuneGuide *guide;
} TuneKnobs;

void tune_knobs_default(TuneKnobs *k);
/* Applies "key=value,..." (--gest): dataset, groups, ar, lr, quota, priors, front (grouping
 * from the low-CV end, 0/1), by_size (initial ratios by group size, 0/1), fill (0/1), balance
 * (balanced groups, 0/1). 0, or -1 with a message naming the key in err. */
int tune_knobs_parse(TuneKnobs *k, const char *text, char *err, int errlen);

typedef struct TuneStrategy TuneStrategy;
struct TuneStrategy {
    const char *name;
    /* Proposes up to max configurations, each valid and never in h nor proposed before;
     * returns how many, 0 when the strategy has nothing left to try. The driver evaluates them
     * and calls observe for each before calling propose again. */
    int (*propose)(TuneStrategy *s, const TuneHistory *h, Config *out, int max);
    /* One measured (or failed) configuration, also those loaded from a journal at the start. */
    void (*observe)(TuneStrategy *s, const TuneSample *r);
    void (*destroy)(TuneStrategy *s);
};

/* "gest", "random", "genetic" or "exhaustive". NULL with a message in err when the name is
 * unknown or the strategy refuses the space (exhaustive above exhaustive_max). The problem
 * must outlive the strategy. */
TuneStrategy *tune_strategy_new(const char *name, const TuneProblem *pb, const TuneKnobs *k,
                                char *err, int errlen);
void tune_strategy_free(TuneStrategy *s);
extern const char *const tune_strategy_names[]; /* NULL-terminated */

/* ---- the driver loop ---------------------------------------------------------------------- */

typedef struct {
    double seconds; /* 0: no time limit */
    long count;     /* 0: no count limit; counts every evaluation in the history */
} TuneBudget;

typedef struct {
    long evaluated, valid; /* in the history: all / measured ok */
    double best_ms;        /* -1 when nothing measured yet */
    const Config *best;    /* NULL when nothing measured yet */
    double elapsed_s;
    double time_left_s;    /* -1 without a time budget */
    long count_left;       /* -1 without a count budget */
    int done;              /* 1 on the last call */
} TuneProgress;

/* Seconds on a monotonic clock: the wall clock of budgets, progress and the GPU pipeline. */
double tune_now_s(void);

typedef void (*TuneProgressFn)(void *ctx, const TuneProgress *p);
/* The default progress line, "tuning: 12 evaluated, 12 valid, best ...", through diag_progress
 * (how often it shows is the Diag's business). ctx is the Diag. */
void tune_progress_line(void *diag, const TuneProgress *p);

typedef struct {
    TuneEvalFn evaluate;
    void *ctx;
    /* Optional: measures n configurations at once (parallel compiles); fills ok[i], ms[i],
     * why[i] (160 chars each). When set, the loop proposes up to batch at a time. ok[i] < 0:
     * not measured, because the deadline (set_deadline) came first; the loop records nothing
     * for it and stops. */
    void (*evaluate_batch)(void *ctx, const Config *cs, int n, int *ok, double *ms,
                           char (*why)[160]);
    int batch;
    /* Optional: the batches that follow must end within seconds (<= 0: no limit); the loop
     * sets what is left of a time budget before each batch and clears it at the end. */
    void (*set_deadline)(void *ctx, double seconds);
    /* Optional clock (seconds); replay passes its simulated clock. NULL: monotonic time. */
    double (*clock)(void *ctx);
    void *clock_ctx;
} TuneEvaluator;

typedef struct TuneJournal TuneJournal; /* a key's journal in the tuning database */

typedef struct {
    TuneBudget budget;
    int quiet;              /* no progress output at all */
    TuneProgressFn progress; /* NULL: tune_progress_line on diag */
    void *progress_ctx;
    Diag *diag;             /* where the default progress line goes (NULL: nowhere) */
    FILE *log;              /* --tune-log: one JSON line per evaluation, or NULL */
    TuneJournal *journal;   /* tunedb journal: the same lines, written one by one, or NULL */
} TuneRunOptions;

typedef enum { TUNE_STOP_COUNT, TUNE_STOP_TIME, TUNE_STOP_EXHAUSTED } TuneStop;

typedef struct {
    int found;       /* 1 when some configuration measured ok */
    Config best;
    double best_ms;
    long evaluated;  /* in this run (not counting resumed ones) */
    long valid;      /* ok in this run */
    double elapsed_s;
    TuneStop stop;
} TuneResult;

/* Runs the strategy until the budget is spent or it has nothing left. h may already hold
 * results (a resumed journal): they are fed to the strategy first and never re-evaluated.
 * A strategy serves one run (make a new one for the next).
 * Returns 0 (also when nothing measured ok: see res->found). */
int tune_run(const TuneProblem *pb, TuneStrategy *st, const TuneEvaluator *ev, TuneHistory *h,
             const TuneRunOptions *o, TuneResult *res);

/* One JSON line: {"config":"...","ms":1.234|null,"status":"ok"|"fail","reason":"...",
 * "elapsed_s":...}. */
void tune_log_line(FILE *f, const TuneSample *r);
/* A --tune-log line of the search's end (status "chosen", or "final" for a finalist not chosen,
 * with the reason): {"config":...,"ms":...,"search_ms":...,"status":...,"reason":...}; ms, the
 * longer re-timing (<= 0: it failed, null), search_ms the search's short one (<= 0: none, the
 * plain kernel timed only at the end). No elapsed_s: the search's clock stopped before. */
void tune_log_final(FILE *f, const Config *c, double ms, double search_ms, const char *status,
                    const char *reason);
/* Parses such a line (dims for config_parse). Returns 0, or -1 when it is not one. */
int tune_log_parse(const char *line, int dims, TuneSample *r);

/* ---- tuning database ---------------------------------------------------------------------- */

typedef struct {
    const char *program;    /* the IR dump text (or source text) */
    long grid[3];
    const char *elem_type;  /* "float", "double" */
    const char *gpu;        /* device name */
    const char *cuda;       /* CUDA version */
    const char *generator;  /* stencilc version + anything that changes the emitted code */
} TuneDbKey;

typedef struct {
    char config[512];       /* config_format text */
    double ms;
    char date[32];          /* ISO 8601, UTC */
    char gpu[128];
} TuneDbEntry;

/* $XDG_CACHE_HOME/stencilc, else ~/.cache/stencilc; override wins when not NULL. */
void tunedb_dir(const char *override, char *buf, int len);
/* 16 hex digits naming the key. */
void tunedb_key_hash(const TuneDbKey *k, char out[17]);
/* The program as the database knows it: the IR dump (what the code depends on, not comments or
 * formatting of the source). malloc'd; NULL when out of memory. */
char *tunedb_program_text(const IrProgram *p);
/* The hash of a program text that a record's program_hash line holds (16 hex digits). */
void tunedb_program_hash(const char *program, char out[17]);
/* 0 found; 1 missing (or the file is another key's: a hash collision, or stale: another
 * generator's); -1 damaged or unreadable, with "FILE: what is wrong" in err. A record is read
 * only from a regular file of bounded size; its ms must be a positive, finite time. */
int tunedb_lookup(const char *dir, const TuneDbKey *k, TuneDbEntry *e, char *err, int errlen);
/* The newest record of k's program, grid, type and generator made on any GPU (k's gpu and
 * cuda are ignored) that accept (NULL: any) takes, so a newer record accept refuses never
 * hides an older good one. Damaged files are reported on d by name and skipped.
 * 0 with it in *out, 1 when there is none. */
int tunedb_find_any_gpu(const char *dir, const TuneDbKey *k, int (*accept)(void *ctx, const TuneDbEntry *e),
                        void *ctx, TuneDbEntry *out, Diag *d);
/* Offers a result, under the database's lock (creates dir): written (temp file + fsync +
 * rename + fsync of the directory) unless the file already holds a record of this key at
 * least as fast, which stays (then *kept, when not NULL, is that record). A damaged record, or
 * one of another generator, is replaced. 0 written, 1 kept, -1 error (e->ms not a positive
 * finite time, or the write failed; message in err). */
int tunedb_store(const char *dir, const TuneDbKey *k, const TuneDbEntry *e, TuneDbEntry *kept,
                 char *err, int errlen);
/* The key's journal, opened for appending (creates dir; ends a line a crash tore); NULL with
 * err on failure. Each append is one whole line, written under the database's lock. */
TuneJournal *tunedb_journal_open(const char *dir, const TuneDbKey *k, char *err, int errlen);
int tunedb_journal_append(TuneJournal *j, const TuneSample *r); /* 0 or -1 */
void tunedb_journal_close(TuneJournal *j);                      /* NULL is fine */
/* Loads the key's journal into h (lines that do not parse, e.g. a torn last line or a time
 * that is not positive and finite, are skipped). Returns how many were loaded (0 when there
 * is no journal; a journal that is not a regular file is reported on d and not read). */
int tunedb_journal_load(const char *dir, const TuneDbKey *k, int dims, TuneHistory *h, Diag *d);

/* ---- locks between stencilc processes (tuner/lock.c) -------------------------------------- */

typedef struct {
    int fd;
    int holder; /* the file names its holder (cleared on release) */
} TuneLock;

/* An exclusive flock on path (created readable and writable by all; never a symlink nor a
 * special file), released when the process ends however it ends. When another process holds
 * it and what and d are not NULL, says on d "stencilc: waiting for WHAT: <what the holder
 * wrote>" and waits. holder (may be NULL): a line written into the file while this process
 * holds it. 0, or -1 with err. */
int tune_lock_take(TuneLock *l, const char *path, const char *what, const char *holder, Diag *d,
                   char *err, int errlen);
void tune_lock_release(TuneLock *l);
/* $TMPDIR (else /tmp)/stencilc-gpu-ID.lock, ID made safe for a file name. */
void tune_gpu_lock_path(const char *gpu_id, char *buf, int len);
/* The lock of the GPU gpu_id (its PCI bus id; a replay's: its recorded name), held while this
 * process times on it; doing says what for (e.g. "stencilc tuning 'heat' of heat.st"). A wait
 * is said on d. */
int tune_gpu_lock(TuneLock *l, const char *gpu_id, const char *gpu_name, const char *doing, Diag *d,
                  char *err, int errlen);

/* ---- replay of recorded measurements ------------------------------------------------------ */

typedef struct Replay Replay;

/* File: a header '#stencilc-replay<TAB>program=NAME<TAB>grid=NxN[xN]<TAB>gpu=NAME' (more
 * key=value fields allowed), then one line per config: 'CONFIG<TAB>MS' or
 * 'CONFIG<TAB>fail<TAB>REASON', each optionally followed by '<TAB>cost=SECONDS' (the recorded
 * compile+run time; default 0.5). Lines starting with '#' and blank lines are skipped.
 * NULL with 'FILE:LINE: message' in err on a bad file. */
Replay *replay_load(const char *path, char *err, int errlen);
void replay_free(Replay *rp);
const char *replay_header(const Replay *rp, const char *key); /* NULL if absent */
int replay_dims(const Replay *rp);
int replay_count(const Replay *rp);
/* The best recorded ok time, -1 if none. */
double replay_best_ms(const Replay *rp, Config *best);
/* A space holding, per parameter, the values the recorded configs use (prog = NULL). */
void replay_space(const Replay *rp, Space *s);
/* Validity for replay: recorded (ok or failed). ctx is the Replay. */
int replay_valid(void *rp, const Config *c, char *why, int whylen);

/* The replay evaluator with its simulated clock: each evaluation advances the clock by the
 * recorded cost (0.5 s when not recorded). Reset before each run. */
typedef struct {
    const Replay *rp;
    double now_s;
} ReplayRun;

void replay_run_init(ReplayRun *r, const Replay *rp);
/* Fills ev with the replay evaluator and clock over r. */
void replay_evaluator(ReplayRun *r, TuneEvaluator *ev);
/* One tuning run of st against the recording, from a fresh simulated clock: tune_run with the
 * replay evaluator. h is initialised here; the caller frees it. */
void replay_tune(const Replay *rp, const TuneProblem *pb, TuneStrategy *st, const TuneRunOptions *ro,
                 TuneHistory *h, TuneResult *res);

/* Runs each strategy over seeds 1..nseeds (knobs->seed + i) with the budget (time on the
 * simulated clock) and prints a table: strategy, mean best ms, mean speed-up vs random,
 * fraction of seeds where it is best or within 2%. 'random' always runs as the reference.
 * When valid is NULL, replay_valid is used. Returns 0, or -1 with err. */
int replay_compare(FILE *out, const Replay *rp, const TuneProblem *pb_or_null,
                   const char *const *strategies, int nstrategies, int nseeds, TuneBudget budget,
                   const TuneKnobs *knobs, char *err, int errlen);
/* `stencilc replay FILE [--strategy S] [--seeds N] [--budget T]`: loads the file and compares
 * S (and random), or every strategy when S is NULL; with no budget, 60 s. 0, or -1 with err. */
int replay_compare_file(FILE *out, const char *path, const char *strategy, int nseeds,
                        TuneBudget budget, const TuneKnobs *knobs, char *err, int errlen);

#endif
