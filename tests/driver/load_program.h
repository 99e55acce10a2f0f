/* Helpers of the driver tests: the first stencil of a .st file, lowered to IR (NULL, with the
 * diagnostics on stderr, where it does not read, parse or lower), and a configuration from its
 * text (a test's own text: one that does not parse is printed and fails the test). */
#ifndef STC_TEST_LOAD_PROGRAM_H
#define STC_TEST_LOAD_PROGRAM_H
#include "../../frontend/ast.h"
#include "../../codegen/config.h"
#include "../../ir/ir.h"

IrProgram *load_program(const char *path, Arena *arena);
Config load_config(const IrProgram *p, const char *text);

#endif
