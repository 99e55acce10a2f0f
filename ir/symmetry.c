/* Whether a step is symmetric along an axis: its writes unchanged when every read's offset
 * along the axis is negated. Fused steps under mirror (and clamp of radius 1) use it
 * (codegen/opt_temporal_geom.c): a symmetric step keeps a grid extended by reflection
 * reflected, so the extension's points can be computed like interior ones.
 *
 * Each write's value is written in a canonical form, once as it is and once reflected, and
 * the two compared. The form writes a sum (additions, subtractions, negations) as a sorted list
 * of signed terms, a product as a sorted list of factors, and sorts the operands of the other
 * commutative operations, so c1*u[-1,0] + c1*u[1,0] - 2*c1*u + ... compares equal to its
 * reflection in whatever order it was written. A leading '-' negates a form: a sum and its
 * negation get one form with opposite signs, and a product's sign is its factors', so the
 * squares of (u[1,0] - u) and (u - u[-1,0]), or of a central difference, compare equal too.
 * It does not expand products or cancel terms: a symmetric step written another way may be
 * missed (the fused steps then take the slower mapped form), never the reverse. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

/* The forms of one stage may take this many bytes in all (a DAG's expansion can grow
 * exponentially, a long chain of lets quadratically): beyond, not symmetric. */
#define FORMS_MAX (8 << 20)

typedef struct {
    const IrStage *st;
    int axis;
    char **memo[2]; /* the form of each node, as it is [0] and reflected [1] */
    size_t bytes;   /* of the forms so far */
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

/* A node's terms, on the heap: the recursion through nested nodes keeps small frames. */
typedef struct {
    Term *v;
    int n, cap;
} Terms;

static int by_text(const void *a, const void *b)
{
    const Term *x = a, *y = b;
    int c = strcmp(x->text, y->text);
    return c ? c : x->neg - y->neg;
}

static const char *form(Forms *fm, int i, int r);

/* Appends node i's form to t; a term of a sum or a factor of a product (chained) leaves its
 * sign, a leading '-', in neg. */
static void term(Forms *fm, int i, int r, int neg, int chained, Terms *t)
{
    const char *text = form(fm, i, r);
    if (chained && text[0] == '-') {
        text++;
        neg ^= 1;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 8;
        Term *v = realloc(t->v, sizeof *v * (size_t)cap);
        if (!v) {
            fm->failed = 1;
            return;
        }
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = (Term){text, neg};
}

/* The terms of node i, a term of a sum (neg: subtracted) or of a product (op N_MUL). */
static void terms_of(Forms *fm, int i, int r, IrOp op, int neg, Terms *t)
{
    if (i < 0 || i >= fm->st->nnodes || fm->failed)
        return;
    const IrNode *nd = &fm->st->nodes[i];
    if (op == N_MUL ? nd->op != N_MUL : !sums(nd->op)) {
        term(fm, i, r, neg, 1, t);
        return;
    }
    terms_of(fm, nd->a, r, op, neg ^ (nd->op == N_NEG), t);
    if (nd->op != N_NEG)
        terms_of(fm, nd->b, r, op, neg ^ (nd->op == N_SUB), t);
}

/* The form's text, owned by the memo (every form is at least a leaf's name: never empty). */
static char *text(Forms *fm, StrBuf *sb)
{
    fm->bytes += sb->len;
    if (!sb->data || fm->bytes > FORMS_MAX) {
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

/* head(terms): sorted where the operation commutes; a product's factors' signs give the
 * product's, a leading '-'. */
static void list_form(StrBuf *sb, const char *head, Terms *t, int sorted)
{
    int neg = 0;
    for (int k = 0; k < t->n && sorted; k++) {
        neg ^= t->v[k].neg;
        t->v[k].neg = 0;
    }
    if (sorted)
        qsort(t->v, (size_t)t->n, sizeof t->v[0], by_text);
    sb_printf(sb, "%s%s(", neg ? "-" : "", head);
    for (int k = 0; k < t->n; k++)
        sb_printf(sb, "%s%s%s", k ? "," : "", t->v[k].neg ? "-" : "", t->v[k].text);
    sb_puts(sb, ")");
}

/* A sum's form, sum(signed terms, sorted), or where the sum of the negated terms reads first,
 * -sum(those): S and -S then have one form and opposite signs, so (a - b)^2 is the same as
 * (b - a)^2. */
static void sum_form(StrBuf *sb, Terms *t)
{
    StrBuf as_is = {0}, negated = {0};
    qsort(t->v, (size_t)t->n, sizeof t->v[0], by_text);
    list_form(&as_is, "sum", t, 0);
    for (int k = 0; k < t->n; k++)
        t->v[k].neg ^= 1;
    qsort(t->v, (size_t)t->n, sizeof t->v[0], by_text);
    list_form(&negated, "sum", t, 0);
    int flip = as_is.data && negated.data && strcmp(negated.data, as_is.data) < 0;
    if (flip)
        sb_puts(sb, "-");
    sb_puts(sb, flip ? negated.data : as_is.data ? as_is.data : "");
    sb_free(&as_is);
    sb_free(&negated);
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
        Terms t = {0};
        const int ops[3] = {nd->a, nd->b, nd->c};
        if (sums(nd->op))
            terms_of(fm, i, r, N_ADD, 0, &t);
        else if (nd->op == N_MUL)
            terms_of(fm, i, r, N_MUL, 0, &t);
        else
            for (int k = 0; k < arity; k++)
                term(fm, ops[k], r, 0, 0, &t);
        if (sums(nd->op))
            sum_form(&sb, &t);
        else
            list_form(&sb, nd->op == N_MUL ? "mul" : ir_op_name(nd->op), &t, nd->op == N_MUL || commutes(nd->op));
        free(t.v);
    }
    fm->memo[r][i] = text(fm, &sb);
    return fm->memo[r][i] ? fm->memo[r][i] : "";
}

static int stage_symmetric(const IrStage *st, int axis)
{
    Forms fm = {.st = st, .axis = axis};
    for (int r = 0; r < 2; r++)
        fm.memo[r] = calloc((size_t)st->nnodes + 1, sizeof(char *));
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

int ir_step_symmetry(const IrProgram *p)
{
    int mask = 0;
    for (int d = 0; d < p->dims; d++)
        mask |= ir_step_symmetric(p, d) << d;
    return mask;
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
