/* `stencilc check`: runs the interpreter on a small odd-sized grid with random data and prints
 * what the fields look like afterwards, so a person can see that a program behaves. */
#include "interp.h"

#include <math.h>
#include <stdlib.h>

int ir_check_size(const IrProgram *p, int n[3])
{
    static const int base[3] = {37, 29, 23};
    for (int d = 0; d < 3; d++) {
        n[d] = 1;
        if (d < p->dims) {
            n[d] = base[d];
            if (n[d] < 2 * p->halo[d] + 1)
                n[d] = 2 * p->halo[d] + 1; /* odd, and wider than the halo */
        }
    }
    double elems = 1;
    for (int d = 0; d < 3; d++)
        elems *= (double)n[d] + 2.0 * p->halo[d];
    return elems * p->nfields > 64.0 * 1024 * 1024 ? -1 : 0;
}

void ir_check_heading(FILE *out, const InterpGrid *g, int steps, unsigned seed)
{
    const IrProgram *p = g->prog;
    fprintf(out, "check %s: grid", p->name ? p->name : "?");
    for (int d = 0; d < p->dims; d++)
        fprintf(out, "%s%d", d ? " x " : " ", g->n[d]);
    fprintf(out, ", halo");
    for (int d = 0; d < p->dims; d++)
        fprintf(out, "%s%d", d ? "," : " ", p->halo[d]);
    fprintf(out, ", %d step%s, seed %u, double precision\n", steps, steps == 1 ? "" : "s", seed);
}

int ir_check_summary(FILE *out, const InterpGrid *g)
{
    const IrProgram *p = g->prog;
    const int *n = g->n;
    int bad = 0;
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fd = &p->fields[f];
        if (fd->role == ROLE_TEMP && !fd->materialized)
            continue;
        const double *b = g->buf[f][g->newest[f]];
        double lo = INFINITY, hi = -INFINITY, sum = 0, check = 0;
        long count = 0, nonfinite = 0;
        for (int k = 0; k < n[2]; k++)
            for (int j = 0; j < n[1]; j++)
                for (int i = 0; i < n[0]; i++) {
                    double v = b[interp_index(g, i, j, k)];
                    if (!isfinite(v)) {
                        nonfinite++;
                        continue;
                    }
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                    sum += v;
                    /* Position-weighted, so a transposed or shifted result shows. */
                    check += v * (double)(1 + (i + 2 * j + 3 * k) % 7);
                    count++;
                }
        const char *role = fd->role == ROLE_STATE ? "state" : fd->role == ROLE_COEF ? "coef" : "temp";
        fprintf(out, "  %-12s %-5s min %-12.6g max %-12.6g mean %-12.6g checksum %.10e\n",
                fd->name, role, count ? lo : 0.0, count ? hi : 0.0,
                count ? sum / (double)count : 0.0, check);
        if (nonfinite) {
            fprintf(out, "  warning: %s holds %ld NaN or Inf value%s\n", fd->name, nonfinite,
                    nonfinite == 1 ? "" : "s");
            bad = 1;
        }
    }
    if (p->nreduces) {
        double *r = calloc((size_t)p->nreduces, sizeof *r);
        interp_reduce(g, r, NULL);
        for (int i = 0; i < p->nreduces; i++)
            fprintf(out, "  %-12s %-5s %.10e\n", p->reduces[i].name, ir_reduce_kind_name(p->reduces[i].kind), r[i]);
        free(r);
    }
    return bad;
}

int ir_check_report(FILE *out, const IrProgram *p, unsigned seed, int steps, InterpTick tick, void *ctx)
{
    int n[3];
    if (ir_check_size(p, n) != 0) {
        fprintf(out, "check %s: the halo (%d,%d,%d) makes the test grid too large to run\n",
                p->name ? p->name : "?", p->halo[0], p->halo[1], p->halo[2]);
        return 1;
    }
    if (steps <= 0)
        steps = 10;
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, seed);
    if (interp_run_ticking(g, steps, tick, ctx) < steps) {
        interp_grid_free(g);
        return 2;
    }
    ir_check_heading(out, g, steps, seed);
    int bad = ir_check_summary(out, g);
    interp_grid_free(g);
    return bad;
}
