/* libFuzzer target: any bytes as a .st file through the front end and, for each stencil that
 * lowers without errors, the passes after it: the IR's checks and analyses (and its dump), the
 * reference interpreter on a small grid, and the code generator on the default variant and
 * one drawn from the tuning space. No GPU. Diagnostics go to /dev/null; a crash, hang, leak or
 * sanitizer report is a bug. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "codegen/codegen.h"
#include "ir/ir.h"

static FILE *sink;

/* Plans and emits one variant (a configuration the space accepts). */
static void emit_variant(const IrProgram *prog, const Config *c, Arena *arena)
{
    char why[256];
    Plan *plan = plan_build(prog, c, arena, why, sizeof why);
    if (!plan)
        return;
    StrBuf cu = {0}, h = {0};
    cg_emit(plan, "fuzz", &cu, &h);
    sb_free(&cu);
    sb_free(&h);
}

static void run_later_passes(const AstFile *file, Arena *arena, Diag *diag, const uint8_t *data,
                             size_t size)
{
    for (int i = 0; i < file->nstencils; i++) {
        IrProgram *prog = ir_lower(&file->stencils[i], arena, diag);
        if (!prog)
            continue;
        ir_dump(sink, prog);
        ir_check_report(sink, prog, 1, 2, NULL, NULL); /* says so and skips where the halo is too wide */
        long n[3] = {1, 1, 1}; /* the file's size, else 256 (as test_rt_examples) */
        for (int d = 0; d < prog->dims; d++)
            n[d] = prog->size[d] > 0 ? prog->size[d] : 256;
        char why[256];
        if (ir_check_grid(prog, n, why, sizeof why) != 0) /* the driver stops there too */
            continue;
        Space space;
        space_init(&space, prog, n);
        space_set_steps(&space, 4);
        Config c = config_default(prog->dims);
        emit_variant(prog, &c, arena);
        unsigned long long state = 0x9e3779b97f4a7c15ull; /* a hash of the input: its own draw */
        for (size_t k = 0; k < size; k++)
            state = (state ^ data[k]) * 0x100000001b3ull;
        Rng rng;
        rng_seed(&rng, state);
        if (space_random_valid(&space, &rng, 64, &c))
            emit_variant(prog, &c, arena);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
        run_later_passes(&file, arena, &diag, data, size);
    }
    arena_free(arena);
    return 0;
}
