/* The model's insides, shared by model.c (scoring, the file) and model_train.c. */
#ifndef STC_MODEL_INT_H
#define STC_MODEL_INT_H
#include "model.h"

typedef struct {
    ModelNode *nodes; /* nodes[0] is the root; children come after their parent */
    int nnodes;
} ModelTree;

typedef struct {
    int dims;
    char config[160];
} ModelExemplar;

/* The kernel families of feat.h's d_family_* (plain, tile, stream, retime, temporal). */
#define MODEL_FAMILIES 5

struct Model {
    ModelExemplar *exemplars; /* the fastest variants of the programs it was trained on */
    int nexemplars;
    /* By kind of program, [dims][shape] (shape 0: neither star nor box, 1: star, 2: box), bit
     * k for family k: seen, measured on a program of that kind it was trained on; won, within
     * 15% of such a program's best */
    unsigned char seen[4][3], won[4][3];
    int has_support;          /* 0: a model file from before (every family allowed) */
    ModelLoss loss;
    double base;
    ModelTree *trees;
    int ntrees;
    char gpus[512];
    char note[512];
};

/* The support lines of the model file ("support DIMS SHAPE SEEN WON"): written after the
 * exemplars; read: 0, or -1 on a malformed line. */
void model_write_support(const Model *m, FILE *f);
int model_read_support(Model *m, const char *line);

#endif
