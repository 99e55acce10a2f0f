/* Reductions (`reduce name = kind(expr);`) of examples/wave3d_energy.st: lowered from source and
 * computed by the interpreter on a small odd grid against plain loops over its buffers written
 * here (an offset into the periodic halo, the older level, a coef, a param); a NaN anywhere makes
 * sum, max and min NaN; --dump-ir shows them; the coordinates x, y and nx in a reduction
 * (tests/programs/reduce_fused.st). The printed form is in tests/frontend (test_parse's
 * round trip). */
#include "../driver/load_program.h"
#include "interp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

/* The three reductions of wave3d_energy.st, by loops over the interior of g's newest buffers. */
static void by_hand(const InterpGrid *g, double want[3])
{
    const double *u = g->buf[0][g->newest[0]], *old = g->buf[0][(g->newest[0] + 2) % 3], *k = g->buf[1][0];
    double c2 = g->params[0];
    want[0] = 0;
    want[1] = -INFINITY;
    want[2] = INFINITY;
    for (int z = 0; z < g->n[2]; z++)
        for (int y = 0; y < g->n[1]; y++)
            for (int x = 0; x < g->n[0]; x++) {
                long at = interp_index(g, x, y, z);
                double dt = u[at] - old[at], dx = u[interp_index(g, x + 1, y, z)] - u[at];
                double dz = old[at] - u[interp_index(g, x, y, z - 1)];
                want[0] += 0.5 * dt * dt + c2 * k[at] * dx * dx;
                want[1] = fabs(u[at]) > want[1] ? fabs(u[at]) : want[1];
                want[2] = dz < want[2] ? dz : want[2];
            }
}

/* tests/programs/reduce_fused.st's centre = sum(x * u + y) and low = min(u - nx): the
 * coordinates of a reduction are the interior index and size, as in the step. */
static void check_coordinates(Arena *a)
{
    IrProgram *p = load_example("../tests/programs/reduce_fused.st", a);
    CHECK(p && p->nreduces == 5 && strcmp(p->reduces[2].name, "centre") == 0);
    if (!p)
        return;
    const int n[3] = {11, 7, 1};
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, 3);
    interp_run(g, 2);
    const double *u = g->buf[0][g->newest[0]];
    double centre = 0, low = INFINITY, got[5];
    for (int y = 0; y < n[1]; y++)
        for (int x = 0; x < n[0]; x++) {
            double v = u[interp_index(g, x, y, 0)];
            centre += x * v + y;
            low = v - n[0] < low ? v - n[0] : low;
        }
    interp_reduce(g, got, NULL);
    CHECK(fabs(got[2] - centre) <= 1e-12 * fabs(centre));
    CHECK(got[3] == low);
    interp_grid_free(g);
}

int main(void)
{
    Arena *a = arena_new();
    IrProgram *p = load_example("wave3d_energy.st", a);
    CHECK(p != NULL);
    if (!p)
        return 1;
    CHECK(p->nreduces == 3);
    CHECK(p->reduces[0].kind == RED_SUM && p->reduces[1].kind == RED_MAX && p->reduces[2].kind == RED_MIN);
    CHECK(strcmp(p->reduces[2].name, "low") == 0);
    CHECK(p->nstages == 1); /* the reductions are not stages of the step */

    char dump[16384] = {0};
    FILE *mem = fmemopen(dump, sizeof dump - 1, "w");
    ir_dump(mem, p);
    fclose(mem);
    CHECK(strstr(dump, "reduce peak (after the step):\n") && strstr(dump, "    max of %"));
    CHECK(strstr(dump, "read u@-1[0,0,0]") && strstr(dump, "read u[0,0,-1]"));

    const int n[3] = {9, 7, 5};
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
    CHECK(got[1] == want[1] && got[2] == want[2]); /* max and min are exact */

    g->buf[0][g->newest[0]][interp_index(g, 4, 3, 2)] = NAN;
    interp_reduce(g, got, NULL);
    CHECK(isnan(got[0]) && isnan(got[1]) && isnan(got[2]));

    interp_grid_free(g);
    check_coordinates(a);
    arena_free(a);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}
