/* dist_ref: the interpreter's side of the distributed tests (tests/dist/run_gpu.sh). Writes the
 * initial data of a program on a global grid and the interpreter's answer after some steps, in
 * the format dist_check.cu reads:
 *
 *   dist_ref FILE.st STENCIL float|double NX NY NZ STEPS INIT.bin REF.bin
 *
 * Each file: int32 n[3], int32 count, float64 tolerance, then `count` padded buffers of float64
 * (the one-GPU layout): INIT holds, per state field then per coef field in the program's order,
 * the starting values (all levels of a state field start equal); REF holds each state field's
 * newest buffer after STEPS steps, then the interpreter's reductions after them: int32 count,
 * count float64 values (in declaration order), count float64 scales (interp_reduce's: a sum's
 * sum of |x|, a min's or max's |value|). Float programs start from float-representable values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/interp.h"
#include "../../runtime/rt.h"
#include "../runtime/example_programs.h"

static int write_buffers(const char *path, const InterpGrid *g, int coefs, double tol)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    const IrProgram *p = g->prog;
    int count = 0;
    for (int i = 0; i < p->nfields; i++)
        count += p->fields[i].role == ROLE_STATE || (coefs && p->fields[i].role == ROLE_COEF);
    fwrite(g->n, sizeof(int), 3, f);
    fwrite(&count, sizeof(int), 1, f);
    fwrite(&tol, sizeof(double), 1, f);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->nfields; i++) {
            FieldRole want = pass == 0 ? ROLE_STATE : ROLE_COEF;
            if (p->fields[i].role != want || (pass == 1 && !coefs))
                continue;
            fwrite(g->buf[i][g->newest[i]], sizeof(double), (size_t)g->total, f);
        }
    return fclose(f);
}

/* The reductions on g's state, appended to path. */
static int append_reductions(const char *path, const InterpGrid *g)
{
    int n = g->prog->nreduces;
    double *v = calloc((size_t)n + 1, sizeof *v), *scale = calloc((size_t)n + 1, sizeof *scale);
    FILE *f = fopen(path, "ab");
    int ok = v && scale && f;
    if (ok) {
        interp_reduce(g, v, scale);
        ok = fwrite(&n, sizeof n, 1, f) == 1 && fwrite(v, sizeof *v, (size_t)n, f) == (size_t)n &&
             fwrite(scale, sizeof *scale, (size_t)n, f) == (size_t)n;
    }
    free(v);
    free(scale);
    return f && fclose(f) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 10) {
        fprintf(stderr, "usage: dist_ref FILE.st STENCIL float|double NX NY NZ STEPS INIT.bin REF.bin\n");
        return 2;
    }
    Arena *arena = arena_new();
    Diag diag;
    Source src;
    AstFile file;
    if (ex_parse_file(argv[1], arena, &diag, &src, &file) != 0)
        return 1;
    const AstStencil *st = NULL;
    for (int i = 0; i < file.nstencils; i++)
        if (!strcmp(file.stencils[i].name, argv[2]))
            st = &file.stencils[i];
    if (!st) {
        fprintf(stderr, "dist_ref: no stencil %s in %s\n", argv[2], argv[1]);
        return 1;
    }
    ElemType type = !strcmp(argv[3], "double") ? ELEM_DOUBLE : ELEM_FLOAT;
    IrProgram *prog = ex_lower(argv[1], st, type, arena, &diag);
    if (!prog)
        return 1;
    int n[3] = {atoi(argv[4]), atoi(argv[5]), atoi(argv[6])};
    int steps = atoi(argv[7]);
    InterpGrid *g = interp_grid_new(prog, n);
    interp_fill_random(g, 12345);
    if (type == ELEM_FLOAT)
        for (int f = 0; f < prog->nfields; f++)
            for (int l = 0; l < (prog->fields[f].role == ROLE_STATE ? prog->fields[f].levels : 1); l++)
                for (long i = 0; i < g->total; i++)
                    g->buf[f][l][i] = (double)(float)g->buf[f][l][i];
    double tol = rt_tolerance(prog, steps);
    if (write_buffers(argv[8], g, 1, tol) != 0)
        return 1;
    interp_run(g, steps);
    if (write_buffers(argv[9], g, 0, tol) != 0 || append_reductions(argv[9], g) != 0)
        return 1;
    interp_grid_free(g);
    arena_free(arena);
    return 0;
}
