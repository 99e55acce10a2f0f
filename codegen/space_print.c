/* --list-space: the parameters of the table of passes with their values on the space, written
 * as --config takes them, the constraints with their reasons, and the size of the space. */
#include "pass.h"

#include <stdio.h>

static void print_values(FILE *out, const Space *s, const CgParam *r, int index)
{
    char label[32], values[256];
    snprintf(label, sizeof label, r->kind == PK_TRIPLE ? "%s %c" : "%s", r->key, "xyz"[index]);
    int n = space_values_text(s, r, index, values, sizeof values);
    fprintf(out, "  %-9s %s%s\n", label, values, n == 1 ? "   (fixed)" : "");
}

static void print_constraints(FILE *out, const SpaceConstraint *k)
{
    for (; k && k->name; k++)
        fprintf(out, "  %-13s %s\n", k->name, k->reason);
}

void space_print(FILE *out, const Space *s)
{
    fprintf(out, "tuning space of %s (%dD, grid %ld x %ld x %ld):\n",
            s->prog && s->prog->name ? s->prog->name : "?", s->prog ? s->prog->dims : 3,
            s->n[0], s->n[1], s->n[2]);
    for (int i = 0; i < cg_param_count(); i++) {
        const CgParam *r = cg_param_at(i, NULL);
        for (int k = 0; k < (r->kind == PK_TRIPLE ? 3 : 1); k++)
            print_values(out, s, r, k);
    }
    fprintf(out, "constraints:\n");
    print_constraints(out, space_constraints);
    for (int i = 0; i < cg_npasses; i++)
        print_constraints(out, cg_passes[i]->constraints);
    int exact = 0;
    double valid = space_valid_count(s, &exact);
    fprintf(out, "configurations: %.0f in the product, %s%.0f valid\n", space_total(s),
            exact ? "" : "about ", valid);
}
