/* Whether a step is symmetric along an axis: its writes unchanged when every read's offset
 * along the axis is negated. Fused steps under mirror (and clamp of radius 1) use it
 * (codegen/opt_temporal_geom.c): a symmetric step keeps a grid extended by reflection
 * reflected, so the extension's points can be computed like interior ones.
 *
 * Each write's value is written in a canonical form, once as it is and once reflected, and
 * the two compared. The form writes a sum (additions, subtractions, negations) as a sorted list
 * of signed terms, a product as a sorted list of factors, and sorts the operands of the other
 * commutative operations, so c1*u[-1,0] + c1*u[1,0] - 2*c1*u + ... compares equal to its
 * reflection in whatever order it was written. It does not expand products or cancel terms:
 * a symmetric step written another way ((u[1,0] - u)^2 + (u - u[-1,0])^2) may be missed (the
 * fused steps then take the slower mapped form), never the reverse. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

/* Forms longer than this give up (a DAG's expansion can grow exponentially): not symmetric. */
#define FORM_MAX (1 << 20)

typedef struct {
    const IrStage *st;
    int axis;
    char **memo[2]; /* the form of each node, as it is [0] and reflected [1] */
    int failed;
} Forms;

static int commutes(IrOp op)
{
    return op == N_MIN || op == N_MAX || op == N_EQ || op == N_NE || op == N_AND || op == N_OR || op == N_HYPOT;
}

/* Sums (add, subtract, negate) and products are flat lists of terms, a sum's signed. */
static int sums(IrOp op) { return op == N_ADD || op == N_SUB || op == N_NEG; }

typedef struct {
    const char *text;
    int neg;
} Term;

static int by_text(const void *a, const void *b)
{
    const Term *x = a, *y = b;
    int c = strcmp(x->text, y->text);
    return c ? c : x->neg - y->neg;
}

static const char *form(Forms *fm, int i, int r);

static void term(Forms *fm, int i, int r, int neg, Term *terms, int *n, int cap)
{
    if (*n >= cap) {
        fm->failed = 1;
        return;
    }
    terms[(*n)++] = (Term){form(fm, i, r), neg};
}

/* The terms of node i, a term of a sum (neg: subtracted) or of a product (op N_MUL). */
static void terms_of(Forms *fm, int i, int r, IrOp op, int neg, Term *terms, int *n, int cap)
{
    if (i < 0 || i >= fm->st->nnodes || fm->failed)
        return;
    const IrNode *nd = &fm->st->nodes[i];
    if (op == N_MUL ? nd->op != N_MUL : !sums(nd->op)) {
        term(fm, i, r, neg, terms, n, cap);
        return;
    }
    terms_of(fm, nd->a, r, op, neg ^ (nd->op == N_NEG), terms, n, cap);
    if (nd->op != N_NEG)
        terms_of(fm, nd->b, r, op, neg ^ (nd->op == N_SUB), terms, n, cap);
}

/* The form's text, owned by the memo (every form is at least a leaf's name: never empty). */
static char *text(Forms *fm, StrBuf *sb)
{
    if (!sb->data || sb->len > FORM_MAX) {
        fm->failed = 1;
        sb_free(sb);
        return NULL;
    }
    return sb->data;
}

static void leaf(StrBuf *sb, const IrNode *nd, int axis, int r)
{
    switch (nd->op) {
    case N_CONST:
        sb_printf(sb, "%a", nd->value);
        return;
    case N_READ: {
        int off[3] = {nd->off[0], nd->off[1], nd->off[2]};
        if (r)
            off[axis] = -off[axis];
        sb_printf(sb, "r%d.%d(%d,%d,%d)", nd->field, nd->level, off[0], off[1], off[2]);
        return;
    }
    case N_COORD: /* reflected, the axis's coordinate is another: never the same */
        sb_printf(sb, "coord%d%s", nd->param, r && nd->param == axis ? "'" : "");
        return;
    default: /* param, extent, step: by their index */
        sb_printf(sb, "%s%d", ir_op_name(nd->op), nd->param);
    }
}

static const char *form(Forms *fm, int i, int r)
{
    if (i < 0 || i >= fm->st->nnodes || fm->failed)
        return "";
    if (fm->memo[r][i])
        return fm->memo[r][i];
    const IrNode *nd = &fm->st->nodes[i];
    int arity = ir_op_arity(nd->op);
    StrBuf sb = {0};
    if (arity == 0) {
        leaf(&sb, nd, fm->axis, r);
    } else {
        enum { CAP = 256 };
        Term terms[CAP];
        int n = 0;
        const char *head = ir_op_name(nd->op);
        if (sums(nd->op) || nd->op == N_MUL) {
            terms_of(fm, i, r, nd->op == N_MUL ? N_MUL : N_ADD, 0, terms, &n, CAP);
            head = nd->op == N_MUL ? "mul" : "sum";
        } else {
            const int ops[3] = {nd->a, nd->b, nd->c};
            for (int k = 0; k < arity; k++)
                term(fm, ops[k], r, 0, terms, &n, CAP);
        }
        if (sums(nd->op) || nd->op == N_MUL || commutes(nd->op))
            qsort(terms, (size_t)n, sizeof terms[0], by_text);
        sb_printf(&sb, "%s(", head);
        for (int k = 0; k < n; k++)
            sb_printf(&sb, "%s%s%s", k ? "," : "", terms[k].neg ? "-" : "", terms[k].text);
        sb_puts(&sb, ")");
    }
    fm->memo[r][i] = text(fm, &sb);
    return fm->memo[r][i] ? fm->memo[r][i] : "";
}

static int stage_symmetric(const IrStage *st, int axis)
{
    Forms fm = {st, axis, {calloc((size_t)st->nnodes + 1, sizeof(char *)), calloc((size_t)st->nnodes + 1, sizeof(char *))}, 0};
    int same = fm.memo[0] && fm.memo[1];
    for (int w = 0; w < st->nwrites && same && !fm.failed; w++)
        same = strcmp(form(&fm, st->writes[w].node, 0), form(&fm, st->writes[w].node, 1)) == 0;
    same &= !fm.failed;
    for (int r = 0; r < 2; r++) {
        for (int i = 0; fm.memo[r] && i < st->nnodes; i++)
            free(fm.memo[r][i]);
        free(fm.memo[r]);
    }
    return same;
}

int ir_step_symmetric(const IrProgram *p, int axis)
{
    if (axis < 0 || axis >= p->dims)
        return 0;
    for (int s = 0; s < p->nstages; s++)
        if (!stage_symmetric(&p->stages[s], axis))
            return 0;
    return 1;
}
