/* `stencilc model` (driver/step_model.c) and its extract command (driver/model_extract.c). */
#ifndef STC_MODEL_CMD_H
#define STC_MODEL_CMD_H

#include "../tuner/occupancy.h"
#include "../util/diag.h"

/* Where the model's commands report (step_model sets it up): errors, warnings and what they do. */
extern Diag *model_diag;

/* argv[0] is "model"; returns the exit status. */
int step_model(int argc, char **argv);
int model_extract(const char *out, const char *const *src, int nsrc, const char *gpu_name, int compile,
                  const char *kernels, const char *db, const char *const *programs, int nprograms,
                  const char *const *inputs, int ninputs);
/* The table's row for a GPU name or architecture; an unknown one is reported (NULL). */
const OccGpu *find_gpu_named(const char *name);

#endif
