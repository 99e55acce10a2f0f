/* parse_check FILE [--print]: reads and parses FILE, prints diagnostics to stderr exactly as
 * stencilc does, and with --print the AST back as source on stdout. Exits 1 on any error.
 * The golden tests of tests/err run it. */
#include <stdio.h>
#include <string.h>

#include "ast.h"

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--print") != 0)) {
        fprintf(stderr, "usage: %s FILE [--print]\n", argv[0]);
        return 2;
    }
    Arena *arena = arena_new();
    Source src = {0};
    Diag diag;
    diag_init(&diag, &src, stderr);
    int failed = source_read(argv[1], arena, &diag, &src) != 0;
    if (!failed) {
        AstFile file;
        failed = parse_source(&src, arena, &diag, &file) != 0;
        if (!failed && argc == 3)
            ast_print(stdout, &file);
    }
    arena_free(arena);
    return failed ? 1 : 0;
}
