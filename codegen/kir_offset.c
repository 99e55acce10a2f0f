/* A copy of a kernel whose blocks along some axes are numbered from offsets (kir.h,
 * kir_offset_blocks): launched on a sub-box of the original's grid, its blocks compute exactly
 * what the original's blocks of the same numbers compute. The distributed code runs the edge
 * blocks of a kernel apart from the interior this way (codegen/emit_dist_overlap.c). */
#include "kir.h"

#include <string.h>

typedef struct {
    Kb *b;
    unsigned axes;          /* bit d: grid axis d is offset */
    const char *param[3];   /* the offset of grid axis d */
} Offset;

static KExpr *copy_expr(const Offset *o, const KExpr *e)
{
    if (!e)
        return NULL;
    if (e->kind == KE_BLOCK && (o->axes >> e->axis & 1))
        return k_add(o->b, k_block(o->b, e->axis), k_var(o->b, o->param[e->axis]));
    if (e->kind == KE_BLOCK && e->ival == 2) /* faces first: a permutation of the whole grid only */
        return k_block(o->b, e->axis);
    KExpr *c = arena_alloc(o->b->arena, sizeof *c);
    *c = *e;
    c->a = copy_expr(o, e->a);
    c->b = copy_expr(o, e->b);
    c->c = copy_expr(o, e->c);
    if (e->nargs > 0) {
        c->args = arena_alloc(o->b->arena, (size_t)e->nargs * sizeof *c->args);
        for (int i = 0; i < e->nargs; i++)
            c->args[i] = copy_expr(o, e->args[i]);
    }
    return c;
}

static void copy_block(const Offset *o, KBlock *to, const KBlock *from);

static KStmt *copy_stmt(const Offset *o, const KStmt *s)
{
    KStmt *c = arena_alloc(o->b->arena, sizeof *c);
    *c = *s;
    c->init = copy_expr(o, s->init);
    c->lhs = copy_expr(o, s->lhs);
    c->rhs = copy_expr(o, s->rhs);
    c->cond = copy_expr(o, s->cond);
    c->step = copy_expr(o, s->step);
    if (s->ninits > 0) {
        c->inits = arena_alloc(o->b->arena, (size_t)s->ninits * sizeof *c->inits);
        c->cap_inits = s->ninits;
        for (int i = 0; i < s->ninits; i++)
            c->inits[i] = copy_expr(o, s->inits[i]);
    }
    copy_block(o, &c->body, &s->body);
    copy_block(o, &c->els, &s->els);
    return c;
}

static void copy_block(const Offset *o, KBlock *to, const KBlock *from)
{
    memset(to, 0, sizeof *to);
    for (int i = 0; i < from->n; i++)
        k_push(o->b, to, copy_stmt(o, from->items[i]));
}

KKernel *kir_offset_blocks(Kb *b, const KKernel *k, const char *name, unsigned axes, const char *param)
{
    Offset o = {b, axes, {NULL, NULL, NULL}};
    KKernel *c = k_kernel(b, name, k->maxreg, k->threads);
    c->comment = arena_printf(b->arena, "%s with its blocks along %s%s%s numbered from %s*: a sub-box of its grid", k->name,
                              axes & 1 ? "x" : "", axes & 2 ? "y" : "", axes & 4 ? "z" : "", param);
    for (int i = 0; i < k->nparams; i++)
        k_param(b, c, k->params[i].type, k->params[i].name, k->params[i].pointer, k->params[i].writes);
    for (int d = 0; d < 3; d++)
        if (axes >> d & 1) {
            o.param[d] = arena_printf(b->arena, "%s%c_", param, "xyz"[d]);
            k_param(b, c, "unsigned", o.param[d], 0, 0);
        }
    copy_block(&o, &c->body, &k->body);
    return c;
}
