/* What the reflected fused steps rest on (codegen/opt_temporal_geom.c, TB_WRAP under clamp and
 * mirror): a step that ir_step_symmetric calls symmetric along every axis keeps a reflected
 * grid reflected. Every stencil of examples/, examples/bench/ and tests/programs/ that reads no
 * coordinate or extent runs with every field under mirror (and, of radius 1, under clamp) in
 * the interpreter twice: on a small odd grid, and on that grid extended by K*R points a side
 * whose extension holds the reflection (mirror about the edge point, clamp about the edge's
 * middle), K steps each. Where the step is symmetric the extended run's centre equals the plain
 * run (double, within rounding); some asymmetric step must differ, or the check proves nothing.
 *   test_ir_reflect [SOURCE_ROOT]   (root: $STC_SOURCE_ROOT or .) */
#include "interp.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STEPS = 3 };

static int failures, symmetric_runs, asymmetric_differ;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

/* The point of an axis of n that extended point x holds: mirror about 0 and n-1, clamp (half)
 * about -1/2 and n-1/2. */
static int reflected(BoundaryKind bc, int x, int n)
{
    if (bc == BC_MIRROR)
        return interp_map_coord(BC_MIRROR, x, n);
    int m = 2 * n, r = ((x % m) + m) % m;
    return r >= n ? m - 1 - r : r;
}

/* The largest relative difference between g's state fields and the centre of x's (offset e). */
static double centre_difference(const InterpGrid *g, const InterpGrid *x, const int e[3])
{
    const IrProgram *p = g->prog;
    double worst = 0;
    for (int f = 0; f < p->nfields; f++) {
        if (p->fields[f].role != ROLE_STATE)
            continue;
        const double *a = g->buf[f][g->newest[f]], *b = x->buf[f][x->newest[f]];
        for (int k = 0; k < g->n[2]; k++)
            for (int j = 0; j < g->n[1]; j++)
                for (int i = 0; i < g->n[0]; i++) {
                    double u = a[interp_index(g, i, j, k)], v = b[interp_index(x, i + e[0], j + e[1], k + e[2])];
                    double d = fabs(u - v) / (fabs(u) > 1 ? fabs(u) : 1);
                    worst = d > worst || isnan(d) ? d : worst;
                }
    }
    return worst;
}

/* One run of p with every field under bc: the plain grid against the reflected extension. */
static void run(IrProgram *p, BoundaryKind bc, const char *what)
{
    for (int f = 0; f < p->nfields; f++)
        ir_bc_set(&p->fields[f], bc, 0);
    int n[3] = {1, 1, 1}, e[3] = {0, 0, 0}, nx[3] = {1, 1, 1};
    static const int small[3] = {13, 11, 9};
    for (int d = 0; d < p->dims; d++) {
        n[d] = small[d] > 2 * p->halo[d] + 1 ? small[d] : 2 * p->halo[d] + 1;
        e[d] = STEPS * p->halo[d];
        nx[d] = n[d] + 2 * e[d];
    }
    InterpGrid *g = interp_grid_new(p, n), *x = interp_grid_new(p, nx);
    CHECK(g && x);
    if (!g || !x)
        return;
    interp_fill_random(g, 7);
    for (int f = 0; f < p->nfields; f++)
        for (int l = 0; l < (p->fields[f].role == ROLE_STATE ? p->fields[f].levels : 1); l++)
            for (int k = 0; k < nx[2]; k++)
                for (int j = 0; j < nx[1]; j++)
                    for (int i = 0; i < nx[0]; i++)
                        x->buf[f][l][interp_index(x, i, j, k)] = g->buf[f][l][interp_index(
                            g, reflected(bc, i - e[0], n[0]), reflected(bc, j - e[1], n[1]), reflected(bc, k - e[2], n[2]))];
    for (int f = 0; f < p->nfields; f++)
        x->newest[f] = g->newest[f];
    interp_run(g, STEPS);
    interp_run(x, STEPS);
    double diff = centre_difference(g, x, e);
    int all = (1 << p->dims) - 1;
    if ((p->an.symmetric & all) == all) {
        symmetric_runs++;
        if (!(diff < 1e-12))
            fprintf(stderr, "%s under %s: symmetric, but the reflected extension differs by %g\n", what,
                    ir_bc_name(bc), diff);
        CHECK(diff < 1e-12);
    } else if (diff > 1e-6) {
        asymmetric_differ++;
    } else {
        printf("%s under %s: not shown symmetric, yet its reflected extension agrees (%g)\n", what,
               ir_bc_name(bc), diff);
    }
    interp_grid_free(g);
    interp_grid_free(x);
}

static void check_file(const char *path)
{
    Arena *a = arena_new();
    Diag diag;
    Source src;
    diag_init(&diag, NULL, stderr);
    AstFile file;
    int ok = source_read(path, a, &diag, &src) == 0;
    diag_init(&diag, &src, stderr);
    ok = ok && parse_source(&src, a, &diag, &file) == 0;
    for (int s = 0; ok && s < file.nstencils; s++) {
        for (int kind = 0; kind < 2; kind++) {
            IrProgram *p = ir_lower(&file.stencils[s], a, &diag);
            CHECK(p != NULL);
            if (!p || (ir_program_builtins(p) & ~IR_USES_STEP))
                break;
            BoundaryKind bc = kind ? BC_CLAMP : BC_MIRROR;
            int radius1 = p->halo[0] <= 1 && p->halo[1] <= 1 && p->halo[2] <= 1;
            if (bc == BC_CLAMP && !radius1)
                continue;
            char what[512];
            snprintf(what, sizeof what, "%s: %s", path, file.stencils[s].name);
            run(p, bc, what);
        }
    }
    CHECK(ok);
    arena_free(a);
}

int main(int argc, char **argv)
{
    const char *root = argc > 1 ? argv[1] : getenv("STC_SOURCE_ROOT") ? getenv("STC_SOURCE_ROOT") : ".";
    static const char *const dirs[] = {"examples", "examples/bench", "tests/programs"};
    int files = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char pattern[1024];
        snprintf(pattern, sizeof pattern, "%s/%s/*.st", root, dirs[d]);
        glob_t gl;
        if (glob(pattern, 0, NULL, &gl) != 0)
            continue;
        for (size_t i = 0; i < gl.gl_pathc; i++, files++)
            check_file(gl.gl_pathv[i]);
        globfree(&gl);
    }
    printf("reflect: %d files, %d symmetric runs within rounding, %d asymmetric runs that differ\n", files,
           symmetric_runs, asymmetric_differ);
    CHECK(files > 20 && symmetric_runs > 10 && asymmetric_differ > 10);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}
