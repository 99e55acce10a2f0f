/* Helpers of the driver tests: the first stencil of a .st file, lowered to IR (NULL, with the
 * diagnostics on stderr, where it does not read, parse or lower), the same for an example of the
 * source tree, and a configuration from its
 * text (a test's own text: one that does not parse is printed and fails the test). */
#ifndef STC_TEST_LOAD_PROGRAM_H
#define STC_TEST_LOAD_PROGRAM_H
#include "../../frontend/ast.h"
#include "../../codegen/config.h"
#include "../../ir/ir.h"

IrProgram *load_program(const char *path, Arena *arena);
/* load_program of examples/REL under the source tree ($STC_SOURCE_ROOT, which meson sets; else
 * the current folder), e.g. load_example("bench/star2d1r.st", arena). */
IrProgram *load_example(const char *rel, Arena *arena);
Config load_config(const IrProgram *p, const char *text);

#endif
