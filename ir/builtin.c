/* The built-in names of the language (docs/language.md, "Coordinates"): the point's global
 * index along each axis, the grid's interior size and the step number. A declaration of the
 * same name shadows a built-in, so a program that names a field or a param x keeps working. */
#include "build.h"

#include <string.h>

static const IrBuiltin builtins[] = {
    {"x", N_COORD, 0},  {"y", N_COORD, 1},  {"z", N_COORD, 2},  {"nx", N_EXTENT, 0},
    {"ny", N_EXTENT, 1}, {"nz", N_EXTENT, 2}, {"step", N_STEP, 0},
};

const IrBuiltin *ir_builtin_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(builtins[i].name, name) == 0)
            return &builtins[i];
    return NULL;
}

const char *ir_builtin_name(IrOp op, int axis)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (builtins[i].op == op && (op == N_STEP || builtins[i].axis == axis))
            return builtins[i].name;
    return "?";
}

/* The grids a built-in needs: 1 for step, axis + 1 for the others. */
int ir_builtin_dims(const IrBuiltin *b) { return b->op == N_STEP ? 1 : b->axis + 1; }
