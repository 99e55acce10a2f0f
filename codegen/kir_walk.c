/* Walking the kernel representation: the module's items, and counts over a kernel's statements
 * and expressions, so that tests check what a kernel is made of rather than how it is spelled. */
#include "kir.h"

#include <string.h>

void k_module_add(Kb *b, KModule *m, const KStmt *global, const KKernel *kernel)
{
    *ARENA_PUSH(b->arena, m->items, m->n, m->cap) = (KItem){global, kernel};
}

const KKernel *k_module_kernel(const KModule *m, const char *name)
{
    for (int i = 0; m && i < m->n; i++)
        if (m->items[i].kernel && strcmp(m->items[i].kernel->name, name) == 0)
            return m->items[i].kernel;
    return NULL;
}

/* Calls visit on every statement of block, depth first, in order, until it returns nonzero. */
static int walk(const KBlock *b, int (*visit)(const KStmt *s, void *ctx), void *ctx)
{
    for (int i = 0; i < b->n; i++) {
        const KStmt *s = b->items[i];
        if (visit(s, ctx) || walk(&s->body, visit, ctx) || walk(&s->els, visit, ctx))
            return 1;
    }
    return 0;
}

typedef struct {
    KStmtKind kind;
    int n, seen;
    const KStmt *found;
} Find;

static int count_visit(const KStmt *s, void *ctx)
{
    Find *f = ctx;
    if (s->kind == f->kind && f->seen++ == f->n) {
        f->found = s;
        return f->n >= 0;
    }
    return 0;
}

int kir_count_stmts(const KBlock *b, KStmtKind kind)
{
    Find f = {kind, -1, 0, NULL};
    walk(b, count_visit, &f);
    return f.seen;
}

const KStmt *kir_find_stmt(const KBlock *b, KStmtKind kind, int n)
{
    Find f = {kind, n, 0, NULL};
    walk(b, count_visit, &f);
    return f.found;
}

static int count_index(const KExpr *e, const char *array)
{
    if (!e)
        return 0;
    int n = e->kind == KE_INDEX && e->a->kind == KE_VAR && strcmp(e->a->name, array) == 0;
    n += count_index(e->a, array) + count_index(e->b, array) + count_index(e->c, array);
    for (int i = 0; i < e->nargs; i++)
        n += count_index(e->args[i], array);
    return n;
}

typedef struct {
    const char *array;
    int n;
} IndexCount;

static int index_visit(const KStmt *s, void *ctx)
{
    IndexCount *c = ctx;
    c->n += count_index(s->init, c->array) + count_index(s->lhs, c->array) + count_index(s->rhs, c->array) +
            count_index(s->cond, c->array) + count_index(s->step, c->array);
    return 0;
}

int kir_count_index(const KBlock *b, const char *array)
{
    IndexCount c = {array, 0};
    walk(b, index_visit, &c);
    return c.n;
}
