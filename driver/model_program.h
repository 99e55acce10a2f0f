/* A stencil program loaded for the model's commands (`stencilc model`, --target): parsed,
 * lowered and given its space on a grid, as the pipeline's front half does for FILE.st. */
#ifndef STC_MODEL_PROGRAM_H
#define STC_MODEL_PROGRAM_H

#include "../codegen/space.h"
#include "../ir/ir.h"

typedef struct {
    IrProgram *prog;
    Space space;
    long grid[3];
} ModelProgram;

/* Loads stencil `stencil` (NULL: the file's only one) of path; type -1 keeps the file's; grid
 * NULL (or zeros) takes the file's `size`; steps 0 takes the file's (else 100). Parse errors go
 * to stderr. 0, or -1 with why. */
int model_program_load(const char *path, const char *stencil, int type, const long grid[3],
                       long steps, Arena *arena, ModelProgram *mp, char *why, int whylen);
/* The file of program `name` under one of dirs, in buf: NAME.st, else a .st file there that
 * defines `stencil NAME` (examples/image.st holds four); NULL when none does. */
const char *model_program_find(const char *name, const char *const *dirs, int ndirs, char *buf,
                               int len);

#endif
