/* The learned model of variant speed: gradient-boosted regression trees over the static feature
 * vector (feat.h), trained on recorded tuning measurements, shipped as a text file with
 * stencilc and evaluated here in C (no Python at run time).
 *
 * What it predicts: for a program on a GPU, how much slower than the program's fastest variant a
 * variant is, as log2(ms / best ms) clipped to [0, MODEL_CLIP] ("l2" loss), or how likely it is
 * to be among the program's fastest 20% ("top20" loss, the labelling of seed 003). Either way a
 * lower score is a faster variant; only the order of scores within one program means anything.
 *
 * Prefix: model_. GPU-free. */
#ifndef STC_MODEL_H
#define STC_MODEL_H
#include <stdio.h>

#include "feat.h"

#define MODEL_CLIP 3.0 /* log2 of the slowdown beyond which variants are all "slow" (8x) */

/* ---- data: measured variants with their features ------------------------------------------- */

/* One program measured on one GPU (a recording, a reference search, a journal). */
typedef struct {
    char name[64];   /* the program (benchmark name) */
    char gpu[128];   /* the GPU's name as recorded */
    double best_ms;  /* fastest ok measurement of the group, -1 if none */
} ModelGroup;

typedef struct {
    int group;
    int ok;           /* 0: failed (compile, launch, verify) */
    double ms;
    int source;       /* which file it came from (0: a recording, 1: a reference, ...) */
    char config[160];
    float f[FEAT_COUNT];
} ModelSample;

typedef struct {
    ModelGroup *groups;
    int ngroups, cap_groups;
    ModelSample *samples;
    long n, cap;
} ModelData;

void model_data_init(ModelData *d);
void model_data_free(ModelData *d);
/* The index of group (name, gpu), added when new. */
int model_data_group(ModelData *d, const char *name, const char *gpu);
/* Appends a sample (features as computed by feat_variant). */
void model_data_add(ModelData *d, int group, int ok, double ms, int source, const char *config,
                    const double f[FEAT_COUNT]);
/* Sets each group's best_ms from its samples. */
void model_data_finish(ModelData *d);
/* The data as TSV: a header naming the features, then one line per sample. */
int model_data_write(FILE *out, const ModelData *d);
/* Appends the TSV of path (written by model_data_write; features matched by name, those the file
 * lacks are 0). 0, or -1 with 'PATH:LINE: message' in err. */
int model_data_read(ModelData *d, const char *path, char *err, int errlen);

/* ---- the model ----------------------------------------------------------------------------- */

typedef struct {
    int feat;       /* FeatId split on; -1 for a leaf */
    float thr;      /* go left when f[feat] <= thr */
    int left, right;
    float value;    /* a leaf's contribution */
} ModelNode;

typedef struct Model Model;

typedef enum { MODEL_L2, MODEL_TOP20 } ModelLoss;

typedef struct {
    ModelLoss loss;
    int trees;      /* default 300 */
    int depth;      /* default 5 */
    double rate;    /* learning rate, default 0.1 */
    double lambda;  /* L2 regularisation of leaf values, default 1 */
    int min_leaf;   /* smallest leaf, in samples of an average group's weight; default 20 */
    int max_per_group; /* samples drawn per group (equal weight per group); default 3000 */
    double clip;    /* l2: targets above this log2 slowdown count as this; default MODEL_CLIP */
    unsigned long long seed;
    const char *gpu; /* non-NULL: train on the measurements of this GPU only (model_gpu_matches) */
    int nfeatures;  /* > 0: train on these features only (feature_ids) */
    int feature_ids[FEAT_COUNT];
} ModelParams;

void model_params_default(ModelParams *p);
/* Whether a recorded GPU name (ModelGroup.gpu) is the GPU `want` names: the same row of the
 * occupancy table (occ_gpu_find) where both are in it, else `want` a part of `recorded`. */
int model_gpu_matches(const char *recorded, const char *want);

/* Trains on the samples whose group keep[] marks (NULL: all) and, with p->gpu, was measured on
 * that GPU. NULL on failure (no data). */
Model *model_train(const ModelData *d, const int *keep, const ModelParams *p);
void model_free(Model *m);
/* The score of a feature vector: lower is faster (see the top of this file). */
double model_score(const Model *m, const double f[FEAT_COUNT]);
/* The score as a predicted slowdown over the program's best (l2 loss: 2^score; top20: 1). */
double model_slowdown(const Model *m, double score);

/* Text file: 'stencilc-model 1', key lines (loss, features, gpus, note), then the trees.
 * model_load: NULL with 'PATH:LINE: message' in err. */
int model_save(const Model *m, const char *path, char *err, int errlen);
Model *model_load(const char *path, char *err, int errlen);
/* The GPUs whose measurements trained it (comma-separated), and the note (data, date). */
const char *model_gpus(const Model *m);
const char *model_note(const Model *m);
void model_set_info(Model *m, const char *gpus, const char *note);
ModelLoss model_loss(const Model *m);
/* Exemplars: configurations that were fastest for the programs the model was trained on (the
 * `per_group` fastest of each group of d that keep marks; model_train keeps 3 of each), stored in
 * the file: candidates for a new program. */
void model_add_exemplars(Model *m, const ModelData *d, const int *keep, int per_group);
/* Support: the kernel families that ran within 15% of the best for some program of d that keep
 * marks, by kind of program (dimensions, star, box or neither); model_train records it. */
void model_add_support(Model *m, const ModelData *d, const int *keep);
/* Whether the family of the variant of features f is supported for its kind of program: 0 only
 * where it was measured on programs of that kind and never came within 15% of their best (1
 * where no program of that kind measured it, or the model predates support). The zero-run
 * ranking puts unsupported families last: the model's scores for them extrapolate from other
 * kinds (retimed streaming, a 3D box's best, scored fastest for 3D stars, where it never won). */
int model_supports(const Model *m, const double f[FEAT_COUNT]);
/* Whether the model measured the family of f's variant on programs of its kind at all (0 also
 * where the model predates support): where it did not, its score of that family is a guess. */
int model_measured(const Model *m, const double f[FEAT_COUNT]);
/* The exemplars of dimension dims, parsed: up to max into out; returns how many. */
int model_exemplars(const Model *m, int dims, Config *out, int max);
/* How often each feature was split on (counts[FEAT_COUNT]). */
void model_feature_use(const Model *m, int *counts);

/* The model file stencilc reads: $STENCILC_MODEL, else the one installed with it
 * (<datadir>/stencilc/model.txt), else the source tree's data/model.txt. */
const char *model_default_path(void);

/* ---- leave-one-program-out evaluation ------------------------------------------------------ */

typedef struct {
    char name[64], gpu[128];
    double best_ms;
    double pick_ms;     /* the measured time of the variant the model ranks first (-1: it failed) */
    double top5_ms;     /* the fastest of its first five */
    double plain_ms;    /* the plain kernel's measurement, -1 when not measured */
    int candidates;
} ModelLooRow;

/* For each program (name) of d: trains on the others (on every GPU's measurements of them, or with
 * p->gpu on that GPU's only), ranks this one's measured variants on each GPU that measured it
 * (those of `source` only when source >= 0) and reports the first one's time against the best.
 * Rows in rows[ngroups]; returns how many. progress (NULL: none) gets a line per program. */
int model_loo(const ModelData *d, const ModelParams *p, int source, ModelLooRow *rows,
              FILE *progress);
/* The table and the summary: within 15% (and 5%) of the best on how many, geometric means; with
 * rows of several GPUs, the summary of each GPU's rows after that of all. */
void model_loo_print(FILE *out, const ModelLooRow *rows, int n);

#endif
