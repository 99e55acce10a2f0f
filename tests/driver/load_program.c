#include "load_program.h"

#include <stdio.h>
#include <stdlib.h>

IrProgram *load_program(const char *path, Arena *arena)
{
    Diag diag;
    Source src;
    diag_init(&diag, NULL, stderr);
    if (source_read(path, arena, &diag, &src) != 0)
        return NULL;
    diag_init(&diag, &src, stderr);
    AstFile file;
    if (parse_source(&src, arena, &diag, &file) != 0 || file.nstencils < 1)
        return NULL;
    return ir_lower(&file.stencils[0], arena, &diag);
}

IrProgram *load_example(const char *rel, Arena *arena)
{
    const char *root = getenv("STC_SOURCE_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s", root ? root : ".", rel);
    return load_program(path, arena);
}

Config load_config(const IrProgram *p, const char *text)
{
    Config c;
    char err[256];
    if (config_parse(text, p->dims, &c, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", text, err);
        abort();
    }
    return c;
}
