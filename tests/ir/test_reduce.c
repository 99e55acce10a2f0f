/* Reductions (`reduce name = kind(expr);`): lowered from source, printed back, and computed by
 * the interpreter on a small odd grid against plain loops over its buffers written here; a NaN
 * anywhere makes min, max and sum NaN. */
#include "interp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static const char text[] =
    "stencil r {\n"
    "  grid 2d;\n"
    "  param a = 2;\n"
    "  state u levels 3 boundary periodic;\n"
    "  coef c;\n"
    "  u = u + 0.1 * c * (u[-1,0] + u[1,0] + u[0,1] - 3 * u);\n"
    "  reduce mass = sum(a * u * c);\n"
    "  reduce lo = min(u[1,0] - u@-1);\n"
    "  reduce hi = max(abs(u[0,1]));\n"
    "}\n";

static IrProgram *compile(Arena *a, AstFile *file)
{
    static Source src;
    src.name = "t.st";
    src.text = text;
    src.size = (long)strlen(text);
    Diag dg;
    diag_init(&dg, &src, stderr);
    memset(file, 0, sizeof *file);
    if (parse_source(&src, a, &dg, file) != 0 || file->nstencils != 1)
        return NULL;
    return ir_lower(&file->stencils[0], a, &dg);
}

/* The three reductions of text, by loops over the interior of g's newest buffers. */
static void by_hand(const InterpGrid *g, double want[3])
{
    const double *u = g->buf[0][g->newest[0]], *c = g->buf[1][0];
    const double *old = g->buf[0][(g->newest[0] + 2) % 3];
    want[0] = 0;
    want[1] = INFINITY;
    want[2] = -INFINITY;
    for (int j = 0; j < g->n[1]; j++)
        for (int i = 0; i < g->n[0]; i++) {
            long at = interp_index(g, i, j, 0);
            want[0] += 2 * u[at] * c[at];
            double d = u[interp_index(g, i + 1, j, 0)] - old[at];
            double m = fabs(u[interp_index(g, i, j + 1, 0)]);
            want[1] = d < want[1] ? d : want[1];
            want[2] = m > want[2] ? m : want[2];
        }
}

int main(void)
{
    Arena *a = arena_new();
    AstFile file;
    IrProgram *p = compile(a, &file);
    CHECK(p != NULL);
    if (!p)
        return 1;
    CHECK(p->nreduces == 3);
    CHECK(p->reduces[0].kind == RED_SUM && p->reduces[1].kind == RED_MIN && p->reduces[2].kind == RED_MAX);
    CHECK(strcmp(p->reduces[2].name, "hi") == 0);
    CHECK(p->nstages == 1); /* the reductions are not stages of the step */

    char printed[4096] = {0};
    FILE *mem = fmemopen(printed, sizeof printed - 1, "w");
    ast_print(mem, &file);
    fclose(mem);
    CHECK(strstr(printed, "reduce lo = min(u[1, 0] - u@-1);") || strstr(printed, "reduce lo = min(u[1,0] - u@-1);"));

    const int n[3] = {9, 7, 1};
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, 7);
    interp_run(g, 3);
    double got[3], want[3];
    interp_reduce(g, got, NULL);
    by_hand(g, want);
    for (int i = 0; i < 3; i++) {
        if (fabs(got[i] - want[i]) > 1e-12 * fabs(want[i]))
            fprintf(stderr, "reduction %d: got %.17g, want %.17g\n", i, got[i], want[i]);
        CHECK(fabs(got[i] - want[i]) <= 1e-12 * fabs(want[i]));
    }
    CHECK(got[1] == want[1] && got[2] == want[2]); /* min and max are exact */

    g->buf[0][g->newest[0]][interp_index(g, 4, 3, 0)] = NAN;
    interp_reduce(g, got, NULL);
    CHECK(isnan(got[0]) && isnan(got[1]) && isnan(got[2]));

    interp_grid_free(g);
    arena_free(a);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}
