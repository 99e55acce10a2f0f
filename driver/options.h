/* The command line of stencilc. */
#ifndef STC_OPTIONS_H
#define STC_OPTIONS_H

#include "../tuner/tune.h"

typedef enum {
    CMD_COMPILE, /* stencilc FILE.st -o OUT.cu */
    CMD_CHECK,   /* stencilc check FILE.st: run the interpreter, print a summary */
    CMD_BENCH,   /* stencilc bench FILE.st: time the kernel it would emit */
    CMD_REPLAY,  /* stencilc replay RECORD.tsv: compare strategies on recorded measurements */
} Command;

#define OPT_MAX_FILES 64 /* --init and --save given at most this often */

typedef struct {
    Command cmd;
    const char *input;
    const char *output;       /* -o; default NAME.cu in the current directory */
    const char *stencil;      /* --stencil */
    int type;                 /* --type: -1 = as the file says, else ElemType */
    long grid[3];             /* --grid; 0 = from the file */
    int ngrid;
    long steps;               /* --steps; 0 = from the file */
    const char *config;       /* --config */
    const char *name;         /* --name: the C prefix of the emitted symbols (default: the stencil's) */
    const char *header;       /* --header: the header's path (default: the output's, with .h) */
    const char *init[OPT_MAX_FILES]; /* check --init FIELD=FILE.npy */
    int ninit;
    const char *save[OPT_MAX_FILES]; /* check --save DIR or --save FIELD=FILE.npy */
    int nsave;
    int list_space, dump_ast, dump_ir, validate;
    int distributed;          /* --distributed: also the NCCL multi-GPU API (codegen/emit_dist.c) */
    long procs[3];            /* --procs: the process grid a distributed tuning is for */
    int nprocs;
    long depth;               /* --depth: its steps between exchanges; 0 = not given (chosen) */
    const char *link;         /* --link nvlink|GBPS: the link the exchange depth is chosen for */
    int fast_math;            /* --fast-math: approximate float arithmetic in the optimized
                                 kernels, verified at a looser tolerance */
    int same_bits;            /* --same-bits: explicitly rounded arithmetic, the same bits in
                                 every kernel (codegen/kir_rounded.c) */
    int autotune, quiet;
    double budget_s;          /* --budget 60s */
    long budget_count;        /* --budget 200 */
    const char *strategy;     /* --strategy */
    const char *gest;         /* --gest: GeST's knobs, "key=value,..." */
    const char *tune_log, *tune_db, *replay;
    unsigned seed;
    int seeds;                /* replay: how many seeds */
    int no_write;             /* internal: parse and check only */
    const char *target;       /* --target GPU: with --autotune, the model's prediction for that
                                 GPU (or sm_XY), nothing timed (driver/step_predict.c) */
    const char *model;        /* --model FILE: the learned model (default: model_default_path) */
    int guide;                /* --guide: the model ranks GeST's proposals and gives its start */
    const char *tune_record;  /* hidden --tune-record FILE: measure a large sample of the space
                                 on the GPU and write it in the replay format (implies
                                 --autotune) */
} Options;

/* What --version prints, and the generator field of the tuning database's key and of a
 * --tune-record file: the version and a digest of the sources that decide the emitted code
 * (scripts/generator_id.py), so that a record made by another generator misses the cache even
 * where the version number stayed the same. */
const char *options_generator_name(void);

/* Parses argv. Returns 0 to go on, 1 when --help/--version was printed (exit 0), 2 on a usage
 * error (said on d). */
int options_parse(int argc, char **argv, Options *o, Diag *d);

/* Options that conflict, or that need another to mean anything: 2 with a message naming both
 * (on d), else 0 (options_check.c). options_parse calls it last. */
int options_check_conflicts(const Options *o, Diag *d);

/* The tuner's knobs (--seed, --gest) and budget (--budget) that the options ask for. */
void options_tuning(const Options *o, TuneKnobs *knobs, TuneBudget *budget);

#endif
