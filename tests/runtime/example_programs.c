/* The example programs as the runtime tests walk them (example_programs.h). */
#include "example_programs.h"

#include <stdio.h>


int ex_parse_file(const char *path, Arena *arena, Diag *diag, Source *src, AstFile *file)
{
    diag_init(diag, NULL, stderr);
    if (source_read(path, arena, diag, src) != 0) {
        printf("FAIL %s: unreadable\n", path);
        return -1;
    }
    diag_init(diag, src, stderr);
    if (parse_source(src, arena, diag, file) != 0) {
        printf("FAIL %s: does not parse\n", path);
        return -1;
    }
    return 0;
}

IrProgram *ex_lower(const char *path, const AstStencil *st, ElemType type, Arena *arena, Diag *diag)
{
    AstStencil typed = *st;
    typed.has_type = 1;
    typed.type = type;
    IrProgram *prog = ir_lower(&typed, arena, diag);
    if (!prog)
        printf("FAIL %s: does not lower\n", path);
    return prog;
}
