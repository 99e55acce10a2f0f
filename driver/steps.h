/* The steps of the pipeline that main.c strings together. Each reports its own errors and
 * returns 0 on success, STEP_USAGE where the command line asked for something impossible (an
 * unknown stencil, a --config that does not parse: exit status 2), else -1. */
#ifndef STC_STEPS_H
#define STC_STEPS_H
#include "../codegen/dist_model.h"
#include "../codegen/plan.h"
#include "../codegen/space.h"
#include "../frontend/ast.h"
#include "options.h"

#define STEP_USAGE 2

typedef struct {
    const Options *opt;
    Arena *arena;
    Source src;
    Diag diag;
    AstFile ast;
    const AstStencil *stencil;
    IrProgram *prog;
    long grid[3];    /* interior size for tuning and bench */
    long global[3];  /* --procs: the global grid that grid is one rank's part of */
    long steps;
    Space space;
    Config config;
    char config_origin[1024]; /* how the config was chosen, for the emitted files' first line */
    char config_text[512];   /* config_format of config */
    Plan *plan;
    const char *cu_path, *h_path; /* the outputs, once step_check_outputs has named them */
    const CgDistChoice *dist; /* --procs: the recommended exchange depth and overlap */
    const char *h_include;        /* the header's name in the .cu's #include (out_paths.c) */
} Job;

int step_read_and_parse(Job *job);
void step_dump_ast(Job *job);
int step_lower(Job *job);
int step_check(Job *job);
int step_choose_config(Job *job);
int step_autotune(Job *job);
/* --autotune --target GPU: the learned model's choice for GPU, nothing timed (step_predict.c). */
int step_predict(Job *job);
int step_build_plan(Job *job);
/* The plan that bench and the exchange-depth model time and verify under job->config: job->plan,
 * or for a distributed job whose fused steps wrap or reflect its part's (plan_build_part). NULL,
 * with why, if it cannot be built. */
const Plan *step_timed_plan(Job *job, char *why, int whylen);
int step_bench(Job *job);
/* --distributed --procs: the exchange depth and overlap to recommend (step_dist.c). */
int step_dist_choose(Job *job);
/* Names the outputs and refuses them where they are the input or not regular files: before
 * tuning, so that a long run does not end in a refusal; step_emit checks again. */
int step_check_outputs(Job *job);
int step_emit(Job *job);
int step_replay(Job *job);

#endif
