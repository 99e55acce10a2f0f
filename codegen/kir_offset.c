/* A copy of a kernel whose blocks along one axis are numbered from an offset (kir.h,
 * kir_offset_blocks): launched on a sub-range of the original's grid, its blocks compute exactly
 * what the original's blocks of the same numbers compute. The distributed code runs the edge
 * chunks of a fused-step kernel apart from the interior this way (codegen/emit_dist.c). */
#include "kir.h"

#include <string.h>

typedef struct {
    Kb *b;
    int axis;
    const char *param;
} Offset;

static KExpr *copy_expr(const Offset *o, const KExpr *e)
{
    if (!e)
        return NULL;
    if (e->kind == KE_BLOCK && e->axis == o->axis)
        return k_add(o->b, k_block(o->b, e->axis), k_var(o->b, o->param));
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

KKernel *kir_offset_blocks(Kb *b, const KKernel *k, const char *name, int axis, const char *param)
{
    Offset o = {b, axis, param};
    KKernel *c = k_kernel(b, name, k->maxreg, k->threads);
    c->comment = arena_printf(b->arena, "%s with its blocks along %c numbered from %s: a sub-range of its grid",
                              k->name, "xyz"[axis], param);
    for (int i = 0; i < k->nparams; i++)
        k_param(b, c, k->params[i].type, k->params[i].name, k->params[i].pointer, k->params[i].writes);
    k_param(b, c, "unsigned", param, 0, 0);
    copy_block(&o, &c->body, &k->body);
    return c;
}
