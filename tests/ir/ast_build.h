/* Builds stencil ASTs by hand, so the IR tests do not depend on the parser. */
#ifndef STC_TEST_AST_BUILD_H
#define STC_TEST_AST_BUILD_H
#include "ir.h"

#include <stdarg.h>
#include <string.h>

typedef struct {
    Arena *a;
    AstStencil st;
} TB;

static inline void tb_init(TB *t, Arena *a, const char *name, int dims)
{
    memset(t, 0, sizeof *t);
    t->a = a;
    t->st.name = name;
    t->st.dims = dims;
    t->st.loc.line = 1;
    t->st.loc.col = 1;
    t->st.loc.len = 1;
}

static inline AstExpr *tb_expr(TB *t, AstKind k)
{
    AstExpr *e = arena_alloc(t->a, sizeof *e);
    e->kind = k;
    e->loc.line = 1;
    e->loc.col = 1;
    e->loc.len = 1;
    return e;
}

static inline AstExpr *tb_num(TB *t, double v)
{
    AstExpr *e = tb_expr(t, AST_NUM);
    e->num = v;
    return e;
}

static inline AstExpr *tb_name(TB *t, const char *name)
{
    AstExpr *e = tb_expr(t, AST_NAME);
    e->name = name;
    return e;
}

static inline AstExpr *tb_readl(TB *t, const char *name, int level, int dx, int dy, int dz)
{
    AstExpr *e = tb_expr(t, AST_READ);
    e->name = name;
    e->level = level;
    e->nargs = t->st.dims;
    e->args = arena_alloc(t->a, sizeof *e->args * 3);
    int o[3] = {dx, dy, dz};
    for (int d = 0; d < t->st.dims; d++) {
        if (o[d] < 0) {
            e->args[d] = tb_expr(t, AST_UNARY);
            e->args[d]->op = OP_NEG;
            e->args[d]->a = tb_num(t, -o[d]);
        } else {
            e->args[d] = tb_num(t, o[d]);
        }
    }
    return e;
}

static inline AstExpr *tb_read(TB *t, const char *name, int dx, int dy, int dz)
{
    return tb_readl(t, name, 0, dx, dy, dz);
}

static inline AstExpr *tb_bin(TB *t, AstOp op, AstExpr *a, AstExpr *b)
{
    AstExpr *e = tb_expr(t, AST_BINARY);
    e->op = op;
    e->a = a;
    e->b = b;
    return e;
}

static inline AstExpr *tb_un(TB *t, AstOp op, AstExpr *a)
{
    AstExpr *e = tb_expr(t, AST_UNARY);
    e->op = op;
    e->a = a;
    return e;
}

static inline AstExpr *tb_call(TB *t, const char *name, int n, ...)
{
    AstExpr *e = tb_expr(t, AST_CALL);
    e->name = name;
    e->nargs = n;
    e->args = arena_alloc(t->a, sizeof *e->args * (size_t)(n + 1));
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        e->args[i] = va_arg(ap, AstExpr *);
    va_end(ap);
    return e;
}

static inline AstDecl *tb_decl(TB *t, DeclKind k, const char *name)
{
    AstDecl *d = ARENA_PUSH(t->a, t->st.decls, t->st.ndecls, t->st.cap_decls);
    memset(d, 0, sizeof *d);
    d->kind = k;
    d->name = name;
    d->loc.line = 1;
    d->loc.col = 1;
    d->loc.len = 1;
    return d;
}

static inline void tb_field(TB *t, const char *name, FieldRole role, int levels, BoundaryKind bc,
                            double bc_value)
{
    AstDecl *d = tb_decl(t, DECL_FIELD, name);
    d->role = role;
    d->levels = levels;
    d->has_bc = 1;
    d->bc_axes = 1;
    d->bc[0][0] = (AstBc){bc, bc == BC_CONSTANT ? tb_num(t, bc_value) : NULL, d->loc};
    d->bc[0][1] = d->bc[0][0];
}

static inline void tb_param(TB *t, const char *name, double def)
{
    tb_decl(t, DECL_PARAM, name)->value = tb_num(t, def);
}

static inline void tb_const(TB *t, const char *name, double v)
{
    tb_decl(t, DECL_CONST, name)->value = tb_num(t, v);
}

static inline void tb_stmt(TB *t, StmtKind k, const char *name, AstExpr *value)
{
    int n = t->st.nstmts;
    AstStmt *s = ARENA_PUSH(t->a, t->st.stmts, t->st.nstmts, t->st.cap_stmts);
    memset(s, 0, sizeof *s);
    s->kind = k;
    s->name = name;
    s->value = value;
    s->loc.line = 1;
    s->loc.col = 1;
    s->loc.len = 1;
    int cap = t->st.cap_sad;
    arena_grow(t->a, (void **)&t->st.stmt_after_decls, &cap, n, sizeof(int));
    t->st.cap_sad = cap;
    t->st.stmt_after_decls[n] = t->st.ndecls;
}

static inline void tb_let(TB *t, const char *name, AstExpr *v) { tb_stmt(t, STMT_LET, name, v); }
static inline void tb_assign(TB *t, const char *name, AstExpr *v) { tb_stmt(t, STMT_ASSIGN, name, v); }

/* Sum of w_i * name[off_i] (left to right), optionally divided. */
static inline AstExpr *tb_weighted(TB *t, const char *name, int npts, int (*off)[3],
                                   const double *w, double divisor)
{
    AstExpr *sum = NULL;
    for (int i = 0; i < npts; i++) {
        AstExpr *term = tb_bin(t, OP_MUL, tb_num(t, w[i]),
                               tb_read(t, name, off[i][0], off[i][1], off[i][2]));
        sum = sum ? tb_bin(t, OP_ADD, sum, term) : term;
    }
    return divisor != 0 ? tb_bin(t, OP_DIV, sum, tb_num(t, divisor)) : sum;
}

#endif
