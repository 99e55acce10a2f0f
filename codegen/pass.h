/* The table of passes (codegen/passes.c) and the shape of its rows. A pass is one file
 * (codegen/pass_*.c) that defines its row: its name, its parameters (the keys of --config, with
 * their values and their documentation), its constraints with their reasons, when it applies
 * and its builder. Config parsing and printing, --list-space, the space and its constraints,
 * plan_build's choice of kernel and docs/config.md's parameter table all read the table. */
#ifndef STC_PASS_H
#define STC_PASS_H
#include "opt.h"

/* ---- a parameter: one key of --config ---- */

typedef enum {
    PK_BOOL,   /* on/off (also 1/0, yes/no): 1 = off, 2 = on */
    PK_NUMBER, /* a positive integer */
    PK_TRIPLE, /* XxYxZ: one id per axis (first, first+1, first+2); missing components are 1 */
    PK_CHOICE, /* one of the row's words, each setting its two ids (stream=z: P_STREAM 2, P_SD 2) */
} CgParamKind;

enum {
    PF_POW2 = 1,  /* a number (each component of a triple) is a power of two */
    PF_OFF = 2,   /* 'off' and 'none' mean 1 */
    PF_STEPS = 4, /* at most the run's step count (space_set_steps) */
    PF_SHOWN = 8, /* config_format always writes it (tb: its default depends on the grid) */
};

typedef struct {
    const char *word;
    int v[2]; /* the values of the row's ids */
    int dims; /* the smallest grid dimension where the space offers it */
} CgWord;

typedef struct {
    const char *key; /* as --config takes it */
    CgParamKind kind;
    ParamId first;   /* its id; a triple's x, a choice's first */
    int pos;         /* where config_format writes it (and docs and --list-space list it): the
                        configuration line of emitted files and tuning records keeps its order */
    unsigned flags;  /* PF_* */
    /* Its values in the space: on a grid of at least `dims` dimensions (a triple: on each axis
     * the grid has) the list, else 1. A choice takes its words' values instead; `values_of`,
     * where set, computes them from the program and grid. */
    int dims;
    const int *values;
    int nvalues;
    void (*values_of)(const Space *s, SpaceParam *sp);
    const CgWord *words; /* PK_CHOICE */
    int nwords;
    const char *id2;     /* PK_CHOICE: the name of its second id (config_param_name) */
    const char *doc_values; /* docs/config.md: the values --config takes */
    const char *doc;        /* docs/config.md: what it does */
} CgParam;

/* ---- a constraint ---- */

/* 1 when c satisfies it, else 0 with the detail in why. */
typedef int (*SpaceConstraintFn)(const Space *s, const Config *c, char *why, int whylen);
typedef struct {
    const char *name;
    SpaceConstraintFn check;
    const char *reason; /* why the constraint exists (--list-space lists it) */
} SpaceConstraint;

/* The space's own constraints, checked before the passes' (space.c). */
extern const SpaceConstraint space_constraints[];
/* The values of r's id (index) on s as --config takes them, separated by spaces (a choice:
 * its words); returns how many. */
int space_values_text(const Space *s, const CgParam *r, int index, char *buf, int len);

/* ---- a pass ---- */

/* params and constraints end with an empty row ({0}). */
typedef struct CgPass {
    const char *name;
    const CgParam *params;
    const SpaceConstraint *constraints; /* checked in table order, after the space's own */
    /* Whether c asks for this pass (NULL: always). The first pass of the table that has a
     * builder and applies builds the stage kernels, so a pass need not test the others. */
    int (*applies)(const Config *c);
    /* Emits a stage kernel (opt.h). NULL with `applies` set: not implemented yet, so its
     * parameters stay 1; NULL without: parameters every kernel shares (the launch). */
    CgStageEmitter build;
} CgPass;

/* The table, in precedence order (passes.c). */
extern const CgPass *const cg_passes[];
extern const int cg_npasses;

/* The pass that builds the stage kernels of c: the first with a builder that applies. */
const CgPass *cg_pass_for(const Config *c);
/* Whether p builds c's stage kernels (its constraints then apply). */
int cg_pass_builds(const CgPass *p, const Config *c);
/* Whether c sets any of p's parameters (to something other than 1). */
int cg_pass_params_set(const CgPass *p, const Config *c);

/* The number of parameter rows, and the row at pos (NULL if none) with its pass. */
int cg_param_count(void);
const CgParam *cg_param_at(int pos, const CgPass **pass);
/* How many ids the row sets: 3 for a triple, 2 for a choice, else 1. */
int cg_param_ids(const CgParam *r);
/* The row that holds id, and the axis (triple) or index (choice) of id in it. */
const CgParam *cg_param_of(ParamId id, int *index);
/* The row's value v of id (first + index) in the words --config takes ("on", "off", "64"). */
void cg_param_value_text(const CgParam *r, int index, int v, char *buf, int len);
/* docs/config.md's table of parameters (pass_doc.c). */
void cg_params_markdown(FILE *out);

#endif
