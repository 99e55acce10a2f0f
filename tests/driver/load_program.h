/* The first stencil of a .st file, lowered to IR, for the driver tests; NULL (with the
 * diagnostics on stderr) where it does not read, parse or lower. */
#ifndef STC_TEST_LOAD_PROGRAM_H
#define STC_TEST_LOAD_PROGRAM_H
#include "../../frontend/ast.h"
#include "../../ir/ir.h"

IrProgram *load_program(const char *path, Arena *arena);

#endif
