/* libFuzzer target: any bytes as a .st file through the front end (and, as they land, the
 * later passes). Diagnostics go to /dev/null; a crash, hang, leak or sanitizer report is a bug. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

/* Passes after parsing; each takes a file that parsed without errors. */
static void run_later_passes(const AstFile *file, Arena *arena, Diag *diag)
{
    (void)file, (void)arena, (void)diag;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    Arena *arena = arena_new();
    char *text = arena_alloc(arena, size + 1); /* zeroed: text[size] is the NUL the lexer wants */
    memcpy(text, data, size);
    Source src = {"fuzz.st", text, (long)size};
    Diag diag;
    diag_init(&diag, &src, sink);
    AstFile file;
    if (parse_source(&src, arena, &diag, &file) == 0) {
        /* A file that parses must print as source that parses to the same text again. */
        char *printed = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&printed, &len);
        ast_print(mem, &file);
        fclose(mem);
        AstFile again;
        Source src2 = {"printed.st", printed, (long)len};
        diag.src = &src2;
        if (parse_source(&src2, arena, &diag, &again) != 0)
            __builtin_trap();
        diag.src = &src;
        free(printed);
        run_later_passes(&file, arena, &diag);
    }
    arena_free(arena);
    return 0;
}
