/* The example programs as the runtime tests walk them: a file read and parsed, then each of its
 * stencils lowered in float and in double. */
#ifndef STC_TEST_EXAMPLE_PROGRAMS_H
#define STC_TEST_EXAMPLE_PROGRAMS_H
#include "ast.h"
#include "ir.h"

/* Reads path into *src and parses it into *file (diagnostics to stderr through *diag, which then
 * refers to *src: keep both while lowering). Returns 0, or -1 after printing "FAIL path: ..." to
 * stdout. */
int ex_parse_file(const char *path, Arena *arena, Diag *diag, Source *src, AstFile *file);
/* Stencil st of the file lowered with its element type forced to `type`; NULL (after printing
 * "FAIL path: does not lower") when lowering fails. */
IrProgram *ex_lower(const char *path, const AstStencil *st, ElemType type, Arena *arena, Diag *diag);

#endif
