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

struct Model {
    ModelExemplar *exemplars; /* the fastest variants of the programs it was trained on */
    int nexemplars;
    ModelLoss loss;
    double base;
    ModelTree *trees;
    int ntrees;
    char gpus[512];
    char note[512];
};

#endif
