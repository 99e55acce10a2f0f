/* Constructors of the kernel representation (kir.h). */
#include "kir.h"

#include <stdarg.h>
#include <stdio.h>

static KExpr *node(Kb *b, KExprKind kind)
{
    KExpr *e = arena_alloc(b->arena, sizeof *e);
    e->kind = kind;
    return e;
}

KExpr *k_int(Kb *b, long long v)
{
    KExpr *e = node(b, KE_INT);
    e->ival = v;
    return e;
}

KExpr *k_uint(Kb *b, long long v)
{
    KExpr *e = k_int(b, v);
    e->unsigned_lit = 1;
    return e;
}

KExpr *k_real(Kb *b, double v)
{
    KExpr *e = node(b, KE_REAL);
    e->fval = v;
    e->elem = b->elem;
    return e;
}

KExpr *k_var(Kb *b, const char *name)
{
    KExpr *e = node(b, KE_VAR);
    e->name = name;
    return e;
}

KExpr *k_varf(Kb *b, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return k_var(b, arena_strdup(b->arena, buf));
}

KExpr *k_thread(Kb *b, int axis)
{
    KExpr *e = node(b, KE_THREAD);
    e->axis = axis;
    return e;
}

KExpr *k_block(Kb *b, int axis)
{
    KExpr *e = node(b, KE_BLOCK);
    e->axis = axis;
    return e;
}

KExpr *k_block_ends_first(Kb *b, int axis)
{
    KExpr *e = k_block(b, axis);
    e->ival = 1;
    return e;
}

KExpr *k_block_faces_first(Kb *b, int axis)
{
    KExpr *e = k_block(b, axis);
    e->ival = 2;
    return e;
}

KExpr *k_un(Kb *b, KOp op, KExpr *a)
{
    KExpr *e = node(b, KE_UNARY);
    e->op = op;
    e->a = a;
    return e;
}

KExpr *k_bin(Kb *b, KOp op, KExpr *x, KExpr *y)
{
    KExpr *e = node(b, KE_BINARY);
    e->op = op;
    e->a = x;
    e->b = y;
    return e;
}

KExpr *k_add(Kb *b, KExpr *x, KExpr *y) { return k_bin(b, KO_ADD, x, y); }
KExpr *k_sub(Kb *b, KExpr *x, KExpr *y) { return k_bin(b, KO_SUB, x, y); }
KExpr *k_mul(Kb *b, KExpr *x, KExpr *y) { return k_bin(b, KO_MUL, x, y); }

KExpr *k_plus(Kb *b, KExpr *x, long long c)
{
    if (c == 0)
        return x;
    return k_bin(b, c < 0 ? KO_SUB : KO_ADD, x, k_int(b, c < 0 ? -c : c));
}

KExpr *k_plus_scaled(Kb *b, KExpr *x, long long c, KExpr *stride)
{
    if (c == 0)
        return x;
    long long mag = c < 0 ? -c : c;
    KExpr *term = mag == 1 ? stride : k_mul(b, k_int(b, mag), stride);
    return k_bin(b, c < 0 ? KO_SUB : KO_ADD, x, term);
}

KExpr *k_select(Kb *b, KExpr *c, KExpr *x, KExpr *y)
{
    KExpr *e = node(b, KE_SELECT);
    e->a = c;
    e->b = x;
    e->c = y;
    return e;
}

KExpr *k_cast(Kb *b, const char *type, KExpr *a)
{
    KExpr *e = node(b, KE_CAST);
    e->name = type;
    e->a = a;
    return e;
}

KExpr *k_index(Kb *b, KExpr *array, KExpr *index)
{
    KExpr *e = node(b, KE_INDEX);
    e->a = array;
    e->b = index;
    return e;
}

KExpr *k_call(Kb *b, const char *fn, int nargs, ...)
{
    KExpr *e = node(b, KE_CALL);
    e->name = fn;
    e->nargs = nargs;
    e->args = arena_alloc(b->arena, sizeof *e->args * (size_t)(nargs + 1));
    va_list ap;
    va_start(ap, nargs);
    for (int i = 0; i < nargs; i++)
        e->args[i] = va_arg(ap, KExpr *);
    va_end(ap);
    return e;
}

KExpr *k_brace(Kb *b, const char *type, KExpr **lanes, int n)
{
    KExpr *e = node(b, KE_BRACE);
    e->name = type;
    e->nargs = n;
    e->args = arena_alloc(b->arena, sizeof *e->args * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        e->args[i] = lanes[i];
    return e;
}

KExpr *k_member(Kb *b, KExpr *a, const char *name)
{
    KExpr *e = node(b, KE_MEMBER);
    e->a = a;
    e->name = name;
    return e;
}

KExpr *k_and(Kb *b, KExpr *x, KExpr *y)
{
    if (!x || !y)
        return x ? x : y;
    return k_bin(b, KO_LAND, x, y);
}

KExpr *k_or(Kb *b, KExpr *x, KExpr *y)
{
    if (!x || !y)
        return x ? x : y;
    return k_bin(b, KO_LOR, x, y);
}

/* ---- statements ---- */

static KStmt *stmt(Kb *b, KStmtKind kind)
{
    KStmt *s = arena_alloc(b->arena, sizeof *s);
    s->kind = kind;
    return s;
}

KStmt *k_decl(Kb *b, int quals, const char *type, const char *name, KExpr *init)
{
    KStmt *s = stmt(b, KS_DECL);
    s->quals = quals;
    s->type = type;
    s->name = name;
    s->init = init;
    return s;
}

KStmt *k_array(Kb *b, int quals, const char *type, const char *name, long long extent)
{
    KStmt *s = k_decl(b, quals | KQ_ARRAY, type, name, NULL);
    s->extent = extent;
    return s;
}

KStmt *k_assign(Kb *b, KExpr *lhs, KExpr *rhs)
{
    KStmt *s = stmt(b, KS_ASSIGN);
    s->lhs = lhs;
    s->rhs = rhs;
    return s;
}

KStmt *k_if(Kb *b, KExpr *cond)
{
    KStmt *s = stmt(b, KS_IF);
    s->cond = cond;
    return s;
}

KStmt *k_for(Kb *b, const char *var, KExpr *start, KExpr *limit, KExpr *step, int unroll)
{
    KStmt *s = stmt(b, KS_FOR);
    s->name = var;
    s->init = start;
    s->cond = limit;
    s->step = step;
    s->unroll = unroll;
    return s;
}

KStmt *k_scope(Kb *b) { return stmt(b, KS_BLOCK); }
KStmt *k_return(Kb *b) { return stmt(b, KS_RETURN); }
KStmt *k_continue(Kb *b) { return stmt(b, KS_CONTINUE); }
KStmt *k_break(Kb *b) { return stmt(b, KS_BREAK); }
KStmt *k_barrier(Kb *b) { return stmt(b, KS_BARRIER); }
KStmt *k_copy_commit(Kb *b) { return stmt(b, KS_COPY_COMMIT); }

KStmt *k_copy_wait(Kb *b, int pending)
{
    KStmt *s = stmt(b, KS_COPY_WAIT);
    s->extent = pending;
    return s;
}

KStmt *k_copy(Kb *b, KExpr *dst, KExpr *src, KExpr *cond, const char *T)
{
    KStmt *s = stmt(b, KS_COPY);
    s->lhs = dst;
    s->rhs = src;
    s->cond = cond;
    s->type = T;
    return s;
}

KStmt *k_comment(Kb *b, const char *text)
{
    KStmt *s = stmt(b, KS_COMMENT);
    s->name = text;
    return s;
}

void k_push(Kb *b, KBlock *block, KStmt *s) { *ARENA_PUSH(b->arena, block->items, block->n, block->cap) = s; }

void k_push_init(Kb *b, KStmt *array, KExpr *value)
{
    *ARENA_PUSH(b->arena, array->inits, array->ninits, array->cap_inits) = value;
}

KExpr *k_let(Kb *b, KBlock *block, const char *type, const char *name, KExpr *init)
{
    k_push(b, block, k_decl(b, KQ_CONST, type, name, init));
    return k_var(b, name);
}

/* ---- kernels ---- */

KKernel *k_kernel(Kb *b, const char *name, int maxreg, int threads)
{
    KKernel *k = arena_alloc(b->arena, sizeof *k);
    k->name = name;
    k->maxreg = maxreg;
    k->threads = threads;
    return k;
}

void k_param(Kb *b, KKernel *k, const char *type, const char *name, int pointer, int writes)
{
    *ARENA_PUSH(b->arena, k->params, k->nparams, k->cap) = (KParam){type, name, pointer, writes};
}

const char *k_elem_name(ElemType t) { return ir_elem_name(t); }

/* ---- appended: warp shuffles, compound assignment, expression statements ---- */

KExpr *k_shuffle(Kb *b, KShuffle kind, KExpr *value, KExpr *lane)
{
    KExpr *e = node(b, KE_SHUFFLE);
    e->shuffle = kind;
    e->a = value;
    e->b = lane;
    return e;
}

KStmt *k_assign_add(Kb *b, KExpr *lhs, KExpr *rhs)
{
    KStmt *s = k_assign(b, lhs, rhs);
    s->quals = 1;
    return s;
}

KStmt *k_eval(Kb *b, KExpr *e)
{
    KStmt *s = stmt(b, KS_EVAL);
    s->rhs = e;
    return s;
}
