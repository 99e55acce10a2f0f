/* Lowering of one stencil's AST to the IR: name resolution in source order, the semantic checks
 * of docs/language.md, stage splitting, and the flop count of the source as written. Lowering
 * keeps going after an error (an erroneous value is node -1) so one run reports every error. */
#include "build.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util/nearest.h"
#include "../util/strbuf.h"

enum { MAX_FIELDS = 64, MAX_OFFSET = 255 };

typedef enum { SYM_PARAM, SYM_CONST, SYM_FIELD, SYM_LET, SYM_REDUCE } SymKind;

typedef struct {
    const char *name;
    SymKind kind;
    int index;  /* into params, consts, fields (-1: not stored) or lets */
    Loc loc;
    int used;
} Sym;

typedef struct {
    const AstExpr *value;
    int bad;          /* its definition had errors: uses stay quiet */
    int is_const;
    int stage, node;  /* the node of its value in that stage (rebuilt in later stages) */
    long long flops;  /* as written, lets inside expanded */
    uint64_t nz_mask; /* fields it reads at a non-zero offset */
} Let;

typedef struct {
    const AstStencil *st;
    IrProgram *p;
    Arena *arena;
    Diag *diag;
    Sym *syms;
    int nsyms, cap_syms;
    int *htab; /* symbol index + 1 */
    int hcap;
    double *consts;
    int nconsts, cap_consts;
    Let *lets;
    int nlets, cap_lets;
    int dims_known;
    IrBuilder b;
    int cur;                   /* current stage */
    uint64_t temps_here;       /* temps written in the current stage */
    int temp_node[MAX_FIELDS]; /* their value nodes */
    Loc write_loc[MAX_FIELDS];
    int read_in_source[MAX_FIELDS]; /* some expression reads it (a register temp included) */
    int quiet;                 /* rebuilding a let already checked: no diagnostics */
    const char *builtin_used[8]; /* built-ins used so far, by name (a later declaration is refused) */
    Loc builtin_loc[8];
    int nbuiltin_used;
    int in_reduce;             /* lowering a reduction's expression (ir/ir.h, IrReduce) */
    long long flops_written;
} Lower;

/* ---- symbols ---- */

static unsigned str_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int sym_find(const Lower *L, const char *name)
{
    if (!name)
        return -1;
    unsigned h = str_hash(name) & (unsigned)(L->hcap - 1);
    while (L->htab[h]) {
        int i = L->htab[h] - 1;
        if (strcmp(L->syms[i].name, name) == 0)
            return i;
        h = (h + 1) & (unsigned)(L->hcap - 1);
    }
    return -1;
}

static void sym_rehash(Lower *L)
{
    int cap = L->hcap ? L->hcap * 2 : 64;
    int *t = arena_alloc(L->arena, sizeof(int) * (size_t)cap);
    for (int i = 0; i < L->nsyms; i++) {
        unsigned h = str_hash(L->syms[i].name) & (unsigned)(cap - 1);
        while (t[h])
            h = (h + 1) & (unsigned)(cap - 1);
        t[h] = i + 1;
    }
    L->htab = t;
    L->hcap = cap;
}

/* Declares name, or reports STC-101 and returns -1 when it is taken. */
static int sym_add(Lower *L, const char *name, SymKind kind, int index, Loc loc)
{
    if (!name)
        return -1;
    int old = sym_find(L, name);
    if (old >= 0) {
        diag_error(L->diag, loc, STC_E_REDECLARED, "'%s' is already declared", name);
        diag_note(L->diag, L->syms[old].loc, "'%s' was declared here", name);
        return -1;
    }
    for (int i = 0; i < L->nbuiltin_used; i++)
        if (strcmp(L->builtin_used[i], name) == 0) {
            diag_error(L->diag, loc, STC_E_REDECLARED,
                       "'%s' is declared after a use of the built-in '%s'; declare it before", name, name);
            diag_note(L->diag, L->builtin_loc[i], "the built-in '%s' was used here", name);
            return -1;
        }
    Sym *s = ARENA_PUSH(L->arena, L->syms, L->nsyms, L->cap_syms);
    s->name = name;
    s->kind = kind;
    s->index = index;
    s->loc = loc;
    if (2 * L->nsyms >= L->hcap)
        sym_rehash(L);
    else {
        unsigned h = str_hash(name) & (unsigned)(L->hcap - 1);
        while (L->htab[h])
            h = (h + 1) & (unsigned)(L->hcap - 1);
        L->htab[h] = L->nsyms;
    }
    return L->nsyms - 1;
}

static const char *kind_word(const Lower *L, const Sym *s)
{
    switch (s->kind) {
    case SYM_PARAM: return "param";
    case SYM_CONST: return "const";
    case SYM_LET: return "let";
    case SYM_REDUCE: return "reduction";
    case SYM_FIELD:
        if (s->index < 0)
            return "field";
        switch (L->p->fields[s->index].role) {
        case ROLE_STATE: return "state field";
        case ROLE_COEF: return "coef field";
        case ROLE_TEMP: return "temp field";
        }
    }
    return "name";
}

#define REPORT(L, loc, code, ...) \
    do { if (!(L)->quiet) diag_error((L)->diag, (loc), (code), __VA_ARGS__); } while (0)

/* "'x' is not declared" at loc, saying where when x is declared later in the stencil (a
 * declaration comes before the statements that use it), or the nearest declared name. */
static void undeclared(Lower *L, Loc loc, const char *name)
{
    if (L->quiet)
        return;
    for (int i = 0; i < L->st->ndecls; i++) {
        const AstDecl *d = &L->st->decls[i];
        if (strcmp(d->name, name) == 0 && d->loc.line) {
            diag_error(L->diag, loc, STC_E_UNDECLARED, "'%s' is not declared yet: its declaration, at line %d, "
                       "comes after this use; move it above the statements that use it", name, d->loc.line);
            return;
        }
    }
    const char **names = arena_alloc(L->arena, sizeof *names * (size_t)(L->nsyms + 1));
    for (int i = 0; i < L->nsyms; i++)
        names[i] = L->syms[i].name;
    size_t len = strlen(name); /* one or two letters are near every short name: no guess */
    const char *near = len > 2 ? text_nearest(name, names, L->nsyms, len > 3 ? 2 : 1) : NULL;
    if (near)
        diag_error(L->diag, loc, STC_E_UNDECLARED, "'%s' is not declared; did you mean '%s'?", name, near);
    else
        diag_error(L->diag, loc, STC_E_UNDECLARED, "'%s' is not declared", name);
}

/* ---- functions ---- */

/* A function of the language: its operation and operand count (ir/ops.def). */
typedef struct {
    IrOp op;
    int arity;
} Func;

/* "unknown function 'fabs'; did you mean 'abs'?", or the list of the functions there are. */
static void unknown_function(Lower *L, const AstExpr *e)
{
    const char *names[N_OP_COUNT];
    int n = 0;
    StrBuf list = {0};
    for (int op = 0; op < N_OP_COUNT; op++)
        if (ir_op(op)->fn) {
            sb_printf(&list, "%s%s", n ? ", " : "", ir_op(op)->fn);
            names[n++] = ir_op(op)->fn;
        }
    const char *near = text_nearest(e->name, names, n, strlen(e->name) > 3 ? 2 : 1);
    if (near)
        diag_error(L->diag, e->loc, STC_E_BAD_CALL, "unknown function '%s'; did you mean '%s'?", e->name, near);
    else
        diag_error(L->diag, e->loc, STC_E_BAD_CALL, "unknown function '%s' (the functions are %s)", e->name, list.data);
    sb_free(&list);
}

/* The language's function of that name; arity 0 when there is none. */
static Func func_find(const char *name)
{
    for (int op = 0; name && op < N_OP_COUNT; op++)
        if (ir_op(op)->fn && strcmp(ir_op(op)->fn, name) == 0)
            return (Func){(IrOp)op, ir_op(op)->arity};
    return (Func){N_CONST, 0};
}

static IrOp binary_op(AstOp op)
{
    switch (op) {
    case OP_ADD: return N_ADD;
    case OP_SUB: return N_SUB;
    case OP_MUL: return N_MUL;
    case OP_DIV: return N_DIV;
    case OP_LT: return N_LT;
    case OP_LE: return N_LE;
    case OP_GT: return N_GT;
    case OP_GE: return N_GE;
    case OP_EQ: return N_EQ;
    case OP_NE: return N_NE;
    case OP_AND: return N_AND;
    case OP_OR: return N_OR;
    default: return N_ADD;
    }
}

/* ---- compile-time constants ---- */

/* 1: *out holds the value; 0: not constant (nothing reported); -1: an error was reported.
 * With quiet set, nothing is reported and names are not marked used. */
static int const_eval(Lower *L, const AstExpr *e, double *out, int quiet);

/* const_eval of a name: a declared constant's value; 0 for a parameter, a coordinate or the step;
 * an error for a field or an undeclared name. */
static int const_name(Lower *L, const AstExpr *e, double *out, int quiet)
{
    int s = sym_find(L, e->name);
    if (s < 0 && ir_builtin_find(e->name))
        return 0; /* a coordinate or the step: not a compile-time constant */
    if (s < 0) {
        if (!quiet)
            undeclared(L, e->loc, e->name);
        return -1;
    }
    if (!quiet)
        L->syms[s].used = 1;
    if (L->syms[s].kind == SYM_CONST && e->level == 0) {
        *out = L->consts[L->syms[s].index];
        return 1;
    }
    if (L->syms[s].kind == SYM_FIELD) {
        if (!quiet)
            diag_error(L->diag, e->loc, STC_E_FIELD_AS_VALUE, "'%s' is a field; a constant is expected here",
                       e->name);
        return -1;
    }
    return 0;
}

/* const_eval of a call: every argument evaluated (so that each error is reported), then the
 * function's arity checked. */
static int const_call(Lower *L, const AstExpr *e, double *out, int quiet)
{
    const Func fn = func_find(e->name), *f = fn.arity ? &fn : NULL;
    double v[3] = {0, 0, 0};
    int res = 1;
    for (int i = 0; i < e->nargs; i++) {
        double t = 0;
        int ri = const_eval(L, e->args[i], &t, quiet);
        if (ri < 0)
            res = -1;
        else if (ri == 0 && res == 1)
            res = 0;
        if (i < 3)
            v[i] = t;
    }
    if (!f || f->arity != e->nargs) {
        if (!quiet && !f)
            unknown_function(L, e);
        else if (!quiet)
            diag_error(L->diag, e->loc, STC_E_BAD_CALL, "'%s' takes %d argument%s, not %d", e->name, f->arity,
                       f->arity == 1 ? "" : "s", e->nargs);
        return -1;
    }
    if (res == 1)
        *out = ir_eval_op(f->op, v[0], v[1], v[2]);
    return res;
}

/* const_eval of a binary operator or a condition (e->c set): its operands, then the value. */
static int const_operands(Lower *L, const AstExpr *e, double *out, int quiet)
{
    double a = 0, b = 0, c = 0;
    int ra = const_eval(L, e->a, &a, quiet), rb = const_eval(L, e->b, &b, quiet);
    int rc = e->kind == AST_COND ? const_eval(L, e->c, &c, quiet) : 1;
    if (ra < 0 || rb < 0 || rc < 0)
        return -1;
    if (e->kind == AST_BINARY && rb && b == 0.0 && e->op == OP_DIV) {
        if (!quiet)
            diag_error(L->diag, e->loc, STC_E_DIV_BY_ZERO, "division by zero in a constant expression");
        return -1;
    }
    if (!ra || !rb || !rc)
        return 0;
    *out = e->kind == AST_COND ? (a != 0.0 ? b : c) : ir_eval_op(binary_op(e->op), a, b, 0);
    return 1;
}

static int const_eval(Lower *L, const AstExpr *e, double *out, int quiet)
{
    double a = 0;
    int r;
    if (!e)
        return -1;
    switch (e->kind) {
    case AST_NUM:
        *out = e->num;
        return 1;
    case AST_NAME:
        return const_name(L, e, out, quiet);
    case AST_READ:
        if (!quiet)
            diag_error(L->diag, e->loc, STC_E_FIELD_AS_VALUE, "a field read where a constant is expected");
        return -1;
    case AST_UNARY:
        if ((r = const_eval(L, e->a, &a, quiet)) != 1)
            return r;
        *out = e->op == OP_NEG ? -a : e->op == OP_NOT ? (a == 0.0) : a;
        return 1;
    case AST_BINARY:
    case AST_COND:
        return const_operands(L, e, out, quiet);
    case AST_CALL:
        return const_call(L, e, out, quiet);
    }
    return 0;
}

/* Evaluates a constant the language requires (const value, bc value, param default). */
static int require_const(Lower *L, const AstExpr *e, const char *what, double *out)
{
    int r = const_eval(L, e, out, 0);
    if (r == 0)
        diag_error(L->diag, e->loc, STC_E_NOT_CONST, "%s must be a constant expression", what);
    return r == 1 ? 0 : -1;
}

/* Evaluates the offsets of a read into off[3]. Reports problems unless quiet; -1 on error. */
static int eval_offsets(Lower *L, const AstExpr *e, int off[3], int quiet)
{
    int ok = 0;
    off[0] = off[1] = off[2] = 0;
    int dims = L->p->dims;
    if (L->dims_known && e->nargs != dims) {
        if (!quiet)
            diag_error(L->diag, e->loc, STC_E_DIM_MISMATCH,
                       "'%s' is read with %d offset%s on a %dd grid; give one per dimension",
                       e->name, e->nargs, e->nargs == 1 ? "" : "s", dims);
        ok = -1;
    }
    for (int i = 0; i < e->nargs; i++) {
        double v = 0;
        int r = const_eval(L, e->args[i], &v, quiet);
        if (r == 0 || (r == 1 && (v != floor(v) || !isfinite(v)))) {
            if (!quiet)
                diag_error(L->diag, e->args[i]->loc, STC_E_OFFSET_NOT_INT,
                           "an offset must be a constant integer expression");
            ok = -1;
        } else if (r < 0) {
            ok = -1;
        } else if (fabs(v) > MAX_OFFSET) {
            if (!quiet)
                diag_error(L->diag, e->args[i]->loc, STC_E_RADIUS_TOO_BIG,
                           "offset %.0f is larger than the limit %d", v, MAX_OFFSET);
            ok = -1;
        } else if (i < 3) {
            off[i] = (int)v;
        }
    }
    return ok;
}

/* ---- scanning the source expression (lets expanded through their summaries) ---- */

/* The fields read at a non-zero offset: a statement reading a temp of the current stage that
 * way starts a new stage. */
static uint64_t nz_reads(Lower *L, const AstExpr *e)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case AST_NUM:
        return 0;
    case AST_NAME: {
        int s = sym_find(L, e->name);
        if (s >= 0 && L->syms[s].kind == SYM_LET)
            return L->lets[L->syms[s].index].nz_mask;
        return 0;
    }
    case AST_READ: {
        int s = sym_find(L, e->name), off[3];
        if (s < 0 || L->syms[s].kind != SYM_FIELD || L->syms[s].index < 0)
            return 0;
        eval_offsets(L, e, off, 1);
        return off[0] || off[1] || off[2] ? (uint64_t)1 << L->syms[s].index : 0;
    }
    case AST_UNARY:
        return nz_reads(L, e->a);
    case AST_BINARY:
        return nz_reads(L, e->a) | nz_reads(L, e->b);
    case AST_COND:
        return nz_reads(L, e->a) | nz_reads(L, e->b) | nz_reads(L, e->c);
    case AST_CALL: {
        uint64_t m = 0;
        for (int i = 0; i < e->nargs; i++)
            m |= nz_reads(L, e->args[i]);
        return m;
    }
    }
    return 0;
}

static long long sat_add(long long a, long long b)
{
    return a + b > INT_MAX ? INT_MAX : a + b;
}

/* Flops as the literature counts them: every operation written, lets expanded; operations
 * on compile-time constants only are folded and cost nothing. */
static long long count_flops(Lower *L, const AstExpr *e, int *is_const)
{
    *is_const = 0;
    if (!e)
        return 0;
    long long n = 0;
    int ca = 1, cb = 1, cc = 1;
    switch (e->kind) {
    case AST_NUM:
        *is_const = 1;
        return 0;
    case AST_NAME: {
        int s = sym_find(L, e->name);
        if (s >= 0 && L->syms[s].kind == SYM_CONST)
            *is_const = 1;
        if (s >= 0 && L->syms[s].kind == SYM_LET) {
            const Let *l = &L->lets[L->syms[s].index];
            *is_const = l->is_const;
            return l->flops;
        }
        return 0;
    }
    case AST_READ:
        return 0;
    case AST_UNARY:
        n = count_flops(L, e->a, &ca);
        *is_const = ca;
        return ca ? 0 : sat_add(n, e->op == OP_PLUS ? 0 : 1);
    case AST_BINARY:
        n = sat_add(count_flops(L, e->a, &ca), count_flops(L, e->b, &cb));
        break;
    case AST_COND:
        n = sat_add(count_flops(L, e->a, &ca), count_flops(L, e->b, &cb));
        n = sat_add(n, count_flops(L, e->c, &cc));
        break;
    case AST_CALL:
        for (int i = 0; i < e->nargs; i++) {
            int ci;
            n = sat_add(n, count_flops(L, e->args[i], &ci));
            ca &= ci;
        }
        break;
    }
    *is_const = ca && cb && cc;
    return *is_const ? 0 : sat_add(n, 1);
}

/* ---- lowering expressions ---- */

static int lower_expr(Lower *L, const AstExpr *e);

static int field_read(Lower *L, int f, int level, const int off[3], Loc loc)
{
    if (f < 0)
        return -1;
    IrField *fd = &L->p->fields[f];
    L->read_in_source[f] = 1;
    if (level != 0) {
        if (level != -1 || fd->role != ROLE_STATE || fd->levels < 3) {
            if (fd->role != ROLE_STATE)
                REPORT(L, loc, STC_E_NO_TIME_LEVEL,
                       "'%s' is a %s field: it has no older time level",
                       fd->name, fd->role == ROLE_COEF ? "coef" : "temp");
            else if (level != -1)
                REPORT(L, loc, STC_E_NO_TIME_LEVEL,
                       "'%s@%d': only the previous level, @-1, can be read", fd->name, level);
            else
                REPORT(L, loc, STC_E_NO_TIME_LEVEL,
                       "'%s@-1' needs 'levels 3' in the declaration of '%s'", fd->name,
                       fd->name);
            return -1;
        }
    }
    if (fd->role == ROLE_TEMP && L->in_reduce) {
        REPORT(L, loc, STC_E_REDUCE_READ,
               "'%s' is a temp field: it does not outlive the step, so a reduction cannot read it", fd->name);
        return -1;
    }
    if (fd->role == ROLE_TEMP) {
        if (fd->write_stage < 0) {
            REPORT(L, loc, STC_E_TEMP_BEFORE_WRITE,
                   "temp '%s' is read before it is written in the step", fd->name);
            return -1;
        }
        if (fd->write_stage == L->cur && !off[0] && !off[1] && !off[2])
            return L->temp_node[f];
    }
    return irb_read(&L->b, f, level, off);
}

static int let_value(Lower *L, int li)
{
    Let *l = &L->lets[li];
    if (l->bad)
        return -1;
    if (l->stage != L->cur) {
        /* Defined in an earlier stage: rebuild it here (its temps are now memory reads). */
        int q = L->quiet;
        L->quiet = 1;
        l->node = lower_expr(L, l->value);
        L->quiet = q;
        l->stage = L->cur;
    }
    return l->node;
}

/* x, y, z, nx, ny, nz or step where no declaration has the name (ir/builtin.c). */
static int lower_builtin(Lower *L, const AstExpr *e, const IrBuiltin *bi)
{
    if (e->level != 0) {
        REPORT(L, e->loc, STC_E_NOT_A_FIELD, "'%s' is a built-in value, not a field: it has no time levels",
               e->name);
        return -1;
    }
    if (L->in_reduce && bi->op == N_STEP) { /* NAME_reduce runs on the fields at any time */
        REPORT(L, e->loc, STC_E_REDUCE_READ, "'step' is the number of the step being computed; a reduction "
               "runs on the fields after it, with no step number: pass what it needs as a param");
        return -1;
    }
    if (ir_builtin_dims(bi) > L->p->dims) {
        REPORT(L, e->loc, STC_E_UNDECLARED, "'%s' is not declared; the built-in '%s' needs a %dd grid, and this one is %dd",
               e->name, e->name, ir_builtin_dims(bi), L->p->dims);
        return -1;
    }
    if (!L->quiet && L->nbuiltin_used < 8) {
        int seen = 0;
        for (int i = 0; i < L->nbuiltin_used; i++)
            seen |= strcmp(L->builtin_used[i], bi->name) == 0;
        if (!seen) {
            L->builtin_used[L->nbuiltin_used] = bi->name;
            L->builtin_loc[L->nbuiltin_used++] = e->loc;
        }
    }
    return irb_builtin(&L->b, bi->op, bi->axis);
}

static int lower_name(Lower *L, const AstExpr *e)
{
    int s = sym_find(L, e->name);
    if (s < 0 && ir_builtin_find(e->name))
        return lower_builtin(L, e, ir_builtin_find(e->name));
    if (s < 0) {
        undeclared(L, e->loc, e->name);
        return -1;
    }
    Sym *sym = &L->syms[s];
    if (!L->quiet)
        sym->used = 1;
    if (e->level != 0 && sym->kind != SYM_FIELD) {
        REPORT(L, e->loc, STC_E_NOT_A_FIELD, "'%s' is a %s, not a field: it has no time levels",
               e->name, kind_word(L, sym));
        return -1;
    }
    static const int zero[3] = {0, 0, 0};
    if (sym->kind == SYM_LET && L->in_reduce) {
        REPORT(L, e->loc, STC_E_REDUCE_READ,
               "'%s' is a let of the step; a reduction reads the fields after the step: write its expression", e->name);
        return -1;
    }
    switch (sym->kind) {
    case SYM_REDUCE:
        REPORT(L, e->loc, STC_E_REDUCE_IN_STEP,
               "'%s' is a reduction: its value exists only after the step (NAME_reduce in the C API)", e->name);
        return -1;
    case SYM_PARAM:
        if (!L->quiet)
            L->p->params[sym->index].used = 1;
        return irb_param(&L->b, sym->index);
    case SYM_CONST:
        return irb_const(&L->b, L->consts[sym->index]);
    case SYM_LET:
        return let_value(L, sym->index);
    case SYM_FIELD:
        return field_read(L, sym->index, e->level, zero, e->loc);
    }
    return -1;
}

static int lower_read(Lower *L, const AstExpr *e)
{
    int s = sym_find(L, e->name), off[3];
    if (s < 0 && ir_builtin_find(e->name)) {
        REPORT(L, e->loc, STC_E_NOT_A_FIELD, "'%s' is a built-in value, not a field: it cannot be indexed",
               e->name);
        return -1;
    }
    if (s < 0) {
        undeclared(L, e->loc, e->name);
        return -1;
    }
    Sym *sym = &L->syms[s];
    if (!L->quiet)
        sym->used = 1;
    if (sym->kind != SYM_FIELD) {
        REPORT(L, e->loc, STC_E_NOT_A_FIELD, "'%s' is a %s, not a field: it cannot be indexed",
               e->name, kind_word(L, sym));
        return -1;
    }
    if (eval_offsets(L, e, off, L->quiet) < 0)
        return -1;
    return field_read(L, sym->index, e->level, off, e->loc);
}

static int reduce_kind(const char *name);

static int lower_call(Lower *L, const AstExpr *e)
{
    const Func fn = func_find(e->name), *f = fn.arity ? &fn : NULL;
    if (reduce_kind(e->name) >= 0 && (!f || e->nargs == 1)) { /* sum(x), min(x): meant over the grid */
        if (f)
            REPORT(L, e->loc, STC_E_BAD_CALL, "'%s' takes %d arguments, not 1; over the whole grid it is a "
                   "reduction, its own statement: 'reduce NAME = %s(...);'", e->name, f->arity, e->name);
        else
            REPORT(L, e->loc, STC_E_REDUCE_IN_STEP, "'%s' is a reduction over the grid, not a value at a point: "
                   "write it as its own statement, 'reduce NAME = %s(...);'", e->name, e->name);
        return -1;
    }
    int args[3] = {-1, -1, -1}, ok = 1;
    for (int i = 0; i < e->nargs; i++) {
        int v = lower_expr(L, e->args[i]);
        if (v < 0)
            ok = 0;
        if (i < 3)
            args[i] = v;
    }
    if (!f) {
        int s = sym_find(L, e->name);
        if (s >= 0)
            REPORT(L, e->loc, STC_E_BAD_CALL, "'%s' is a %s, not a function", e->name,
                   kind_word(L, &L->syms[s]));
        else if (!L->quiet)
            unknown_function(L, e);
        return -1;
    }
    if (f->arity != e->nargs) {
        REPORT(L, e->loc, STC_E_BAD_CALL, "'%s' takes %d argument%s, not %d", e->name, f->arity,
               f->arity == 1 ? "" : "s", e->nargs);
        return -1;
    }
    return ok ? irb_op(&L->b, f->op, args[0], args[1], args[2]) : -1;
}

static int lower_expr(Lower *L, const AstExpr *e)
{
    if (!e)
        return -1;
    switch (e->kind) {
    case AST_NUM:
        return irb_const(&L->b, e->num);
    case AST_NAME:
        return lower_name(L, e);
    case AST_READ:
        return lower_read(L, e);
    case AST_UNARY: {
        int a = lower_expr(L, e->a);
        if (e->op == OP_PLUS)
            return a;
        return irb_op(&L->b, e->op == OP_NOT ? N_NOT : N_NEG, a, -1, -1);
    }
    case AST_BINARY: {
        int a = lower_expr(L, e->a), b = lower_expr(L, e->b);
        if (e->op == OP_DIV && b >= 0 && L->b.stage->nodes[b].op == N_CONST && L->b.stage->nodes[b].value == 0.0) {
            REPORT(L, e->loc, STC_E_DIV_BY_ZERO, "division by zero: the divisor is a constant zero");
            return -1;
        }
        return irb_op(&L->b, binary_op(e->op), a, b, -1);
    }
    case AST_COND: {
        int a = lower_expr(L, e->a), b = lower_expr(L, e->b), c = lower_expr(L, e->c);
        return irb_op(&L->b, N_SELECT, a, b, c);
    }
    case AST_CALL:
        return lower_call(L, e);
    }
    return -1;
}

/* ---- declarations ---- */

/* One face's condition; constant(v)'s value must be a constant. */
static IrBc lower_face(Lower *L, const AstBc *bc)
{
    IrBc face = {bc->kind, 0.0};
    double v = 0;
    if (bc->kind != BC_CONSTANT)
        return face;
    if (!bc->value)
        diag_error(L->diag, bc->loc, STC_E_NOT_CONST, "boundary constant needs a value");
    else if (require_const(L, bc->value, "a boundary value", &v) == 0)
        face.value = v;
    return face;
}

/* A field's boundary (docs/language.md): one condition for every face, or one per axis, each
 * for both faces or `low | high`; periodic joins the two faces of its axis. Axes the grid does
 * not have repeat its last one (ir.h). */
static void lower_boundary(Lower *L, const AstDecl *d, IrField *f)
{
    int dims = L->p->dims, n = d->has_bc ? d->bc_axes : 1;
    ir_bc_set(f, BC_FIXED, 0);
    if (!d->has_bc)
        return;
    if (n != 1 && L->dims_known && n != dims) {
        static const char *const axes[] = {"", "x", "x, y", "x, y, z"};
        diag_error(L->diag, d->bc_loc, STC_E_BAD_BOUNDARY,
                   "'boundary' gives %d conditions for a %dd grid: give one for every face, or one per "
                   "axis (%s)", n, dims, axes[dims]);
        return;
    }
    for (int a = 0; a < 3; a++) {
        if (a >= n) {
            memcpy(f->bc_face[a], f->bc_face[n - 1], sizeof f->bc_face[a]);
            continue;
        }
        f->bc_face[a][0] = lower_face(L, &d->bc[a][0]);
        f->bc_face[a][1] = d->bc_split[a] ? lower_face(L, &d->bc[a][1]) : f->bc_face[a][0];
        if ((d->bc[a][0].kind == BC_PERIODIC) != (d->bc[a][1].kind == BC_PERIODIC)) {
            const AstBc *p = &d->bc[a][d->bc[a][0].kind == BC_PERIODIC ? 0 : 1];
            diag_error(L->diag, p->loc, STC_E_BAD_BOUNDARY,
                       "periodic joins the low and the high face of an axis: write it alone for %s "
                       "('periodic'), not for one face", n == 1 ? "every axis" : (const char *[]){"x", "y", "z"}[a]);
        }
    }
}

static void declare(Lower *L, const AstDecl *d)
{
    IrProgram *p = L->p;
    double v = 0;
    switch (d->kind) {
    case DECL_PARAM: {
        IrParam prm = {d->name, 0, 0, 0};
        if (d->value && require_const(L, d->value, "a param's default", &v) == 0) {
            prm.def = v;
            prm.has_default = 1;
        }
        if (sym_add(L, d->name, SYM_PARAM, p->nparams, d->loc) >= 0)
            *ARENA_PUSH(L->arena, p->params, p->nparams, p->cap_params) = prm;
        return;
    }
    case DECL_CONST:
        if (d->value)
            require_const(L, d->value, "a const's value", &v);
        if (sym_add(L, d->name, SYM_CONST, L->nconsts, d->loc) >= 0)
            *ARENA_PUSH(L->arena, L->consts, L->nconsts, L->cap_consts) = v;
        return;
    case DECL_FIELD: {
        IrField f;
        memset(&f, 0, sizeof f);
        f.name = d->name;
        f.role = d->role;
        f.levels = d->role == ROLE_STATE ? 2 : 1;
        f.write_stage = -1;
        f.loc = d->loc;
        f.materialized = d->role != ROLE_TEMP;
        /* The parser reports levels on other roles and counts other than 2 or 3. */
        if (d->role == ROLE_STATE && (d->levels == 2 || d->levels == 3))
            f.levels = d->levels;
        lower_boundary(L, d, &f);
        int index = p->nfields < MAX_FIELDS ? p->nfields : -1;
        if (sym_add(L, d->name, SYM_FIELD, index, d->loc) < 0)
            return;
        if (index < 0) {
            diag_error(L->diag, d->loc, STC_E_TOO_MANY_FIELDS,
                       "too many fields: at most %d are supported", MAX_FIELDS);
            return;
        }
        *ARENA_PUSH(L->arena, p->fields, p->nfields, p->cap_fields) = f;
        return;
    }
    }
}

/* ---- statements ---- */

static void new_stage(Lower *L)
{
    IrProgram *p = L->p;
    IrStage *s = ARENA_PUSH(L->arena, p->stages, p->nstages, p->cap_stages);
    memset(s, 0, sizeof *s);
    L->cur = p->nstages - 1;
    irb_begin(&L->b, s, L->arena);
    L->temps_here = 0;
}

static void lower_let(Lower *L, const AstStmt *st)
{
    int errors = L->diag->errors;
    Let l;
    memset(&l, 0, sizeof l);
    l.value = st->value;
    l.flops = count_flops(L, st->value, &l.is_const);
    l.nz_mask = nz_reads(L, st->value);
    l.node = lower_expr(L, st->value);
    l.stage = L->cur;
    l.bad = L->diag->errors != errors || l.node < 0;
    if (sym_add(L, st->name, SYM_LET, L->nlets, st->loc) >= 0)
        *ARENA_PUSH(L->arena, L->lets, L->nlets, L->cap_lets) = l;
}

static void lower_assign(Lower *L, const AstStmt *st)
{
    IrProgram *p = L->p;
    int s = sym_find(L, st->name), f = -1;
    if (s < 0) {
        undeclared(L, st->loc, st->name);
    } else if (L->syms[s].kind != SYM_FIELD) {
        diag_error(L->diag, st->loc, STC_E_WRITE_READONLY, "'%s' is a %s: it cannot be written",
                   st->name, kind_word(L, &L->syms[s]));
    } else if (L->syms[s].index >= 0) {
        f = L->syms[s].index;
        L->syms[s].used = 1;
        IrField *fd = &p->fields[f];
        if (fd->role == ROLE_COEF) {
            diag_error(L->diag, st->loc, STC_E_WRITE_READONLY,
                       "'%s' is a coef field, a read-only input: it cannot be written", st->name);
            f = -1;
        } else if (fd->written) {
            diag_error(L->diag, st->loc, STC_E_WRITTEN_TWICE,
                       "'%s' is written twice in one step", st->name);
            diag_note(L->diag, L->write_loc[f], "first written here");
            f = -1;
        }
    }
    int is_const;
    L->flops_written = sat_add(L->flops_written, count_flops(L, st->value, &is_const));
    int node = lower_expr(L, st->value);
    if (f < 0)
        return;
    IrField *fd = &p->fields[f];
    fd->written = 1;
    fd->write_stage = L->cur;
    L->write_loc[f] = st->loc;
    if (fd->role == ROLE_TEMP) {
        L->temp_node[f] = node;
        L->temps_here |= (uint64_t)1 << f;
    }
    if (node >= 0)
        irb_write(&L->b, f, node, st->loc);
}

/* ---- reductions ---- */

/* The IrReduceKind a call names, or -1. */
static int reduce_kind(const char *name)
{
    for (int k = RED_SUM; name && k <= RED_MAX; k++)
        if (strcmp(name, ir_reduce_kind_name((IrReduceKind)k)) == 0)
            return k;
    return -1;
}

/* The kind of `reduce NAME = kind(expr);`, or -1 with the error reported. */
static int check_reduce_form(Lower *L, const AstExpr *e)
{
    int kind = e->kind == AST_CALL ? reduce_kind(e->name) : -1;
    if (e->kind != AST_CALL)
        diag_error(L->diag, e->loc, STC_E_BAD_REDUCE, "a reduction is written sum(expr), min(expr) or max(expr)");
    else if (kind < 0)
        diag_error(L->diag, e->loc, STC_E_BAD_REDUCE, "unknown reduction '%s'; expected sum, min or max", e->name);
    else if (e->nargs != 1)
        diag_error(L->diag, e->loc, STC_E_BAD_REDUCE, "'%s' reduces one expression, not %d", e->name, e->nargs);
    else
        return kind;
    return -1;
}

/* A reduction's expression in its own stage (ir.h, IrReduce), then its name. */
static void lower_reduce(Lower *L, const AstStmt *st)
{
    int errors = L->diag->errors, kind = check_reduce_form(L, st->value);
    IrReduce r = {st->name, kind < 0 ? RED_SUM : (IrReduceKind)kind, {0}, st->value->loc};
    IrBuilder step = L->b;
    irb_begin(&L->b, &r.stage, L->arena);
    L->in_reduce = 1;
    int node = kind >= 0 ? lower_expr(L, st->value->args[0]) : -1;
    if (node >= 0)
        irb_write(&L->b, -1, node, r.loc);
    L->in_reduce = 0;
    L->b = step;
    if (sym_add(L, st->name, SYM_REDUCE, L->p->nreduces, st->loc) >= 0 && L->diag->errors == errors)
        *ARENA_PUSH(L->arena, L->p->reduces, L->p->nreduces, L->p->cap_reduces) = r;
}

/* A reduction reads only as far as the step's halo (after the analyses): the layout is the step's. */
static int check_reduce_reach(IrProgram *p, Arena *arena, Diag *diag)
{
    static const char axis[] = "xyz";
    int bad = 0;
    for (int i = 0; i < p->nreduces; i++) {
        IrReduce *r = &p->reduces[i];
        ir_stage_compact(&r->stage, arena);
        for (int d = 0; d < 3; d++)
            if (r->stage.radius[d] > p->halo[d]) {
                diag_error(diag, r->loc, STC_E_REDUCE_READ, "reduction '%s' reads %d point%s away along %c, "
                           "beyond the halo of %d that the step's reads give", r->name, r->stage.radius[d],
                           r->stage.radius[d] == 1 ? "" : "s", axis[d], p->halo[d]);
                bad = 1;
                break;
            }
    }
    return bad;
}

static void lower_stmt(Lower *L, const AstStmt *st)
{
    if (st->kind == STMT_REDUCE) {
        lower_reduce(L, st);
        return;
    }
    if (nz_reads(L, st->value) & L->temps_here)
        new_stage(L);
    if (st->kind == STMT_LET)
        lower_let(L, st);
    else
        lower_assign(L, st);
}

/* ---- the header of a stencil ---- */

static void lower_header(Lower *L)
{
    const AstStencil *st = L->st;
    IrProgram *p = L->p;
    p->name = st->name;
    p->type = st->has_type ? st->type : ELEM_FLOAT;
    p->steps = st->steps > 0 ? st->steps : 0;
    if (st->dims < 1 || st->dims > 3) {
        diag_error(L->diag, st->loc, STC_E_NO_GRID, "stencil '%s' has no 'grid' declaration",
                   st->name ? st->name : "?");
        p->dims = 3;
    } else {
        p->dims = st->dims;
        L->dims_known = 1;
    }
    if (st->nsize > 0) {
        int ok = 1;
        if (L->dims_known && st->nsize != p->dims) {
            diag_error(L->diag, st->size_loc, STC_E_BAD_SIZE,
                       "'size' gives %d value%s for a %dd grid", st->nsize,
                       st->nsize == 1 ? "" : "s", p->dims);
            ok = 0;
        }
        for (int d = 0; d < st->nsize && d < 3; d++)
            if (st->size[d] < 1) {
                diag_error(L->diag, st->size_loc, STC_E_BAD_SIZE,
                           "'size' values must be positive");
                ok = 0;
                break;
            }
        for (int d = 0; ok && d < 3; d++)
            p->size[d] = d < p->dims ? st->size[d] : 1;
    }
}

/* ---- after the statements ---- */

static void warn_unused(Lower *L)
{
    for (int i = 0; i < L->nsyms; i++) {
        const Sym *s = &L->syms[i];
        if (s->kind == SYM_FIELD && s->index >= 0) {
            const IrField *f = &L->p->fields[s->index];
            if (!s->used)
                diag_warning(L->diag, s->loc, STC_W_UNUSED_FIELD, "field '%s' is never used",
                             s->name);
            else if (f->role == ROLE_TEMP && f->written && !L->read_in_source[s->index])
                diag_warning(L->diag, s->loc, STC_W_UNUSED_FIELD,
                             "temp '%s' is written but never read", s->name);
            continue;
        }
        if (s->used)
            continue;
        if (s->kind == SYM_PARAM)
            diag_warning(L->diag, s->loc, STC_W_UNUSED_PARAM, "param '%s' is never used",
                         s->name);
        else if (s->kind == SYM_LET)
            diag_warning(L->diag, s->loc, STC_W_UNUSED_LET, "let '%s' is never used", s->name);
        else if (s->kind == SYM_CONST)
            diag_warning(L->diag, s->loc, STC_W_UNUSED_CONST, "const '%s' is never used",
                         s->name);
    }
}

/* Compacts every stage and drops those left without writes (a stage opened by a let whose
 * users came later, say). */
static void finish_stages(IrProgram *p, Arena *arena)
{
    int *map = arena_alloc(arena, sizeof(int) * (size_t)(p->nstages + 1));
    int m = 0;
    for (int s = 0; s < p->nstages; s++) {
        ir_stage_compact(&p->stages[s], arena);
        map[s] = -1;
        if (p->stages[s].nwrites > 0) {
            map[s] = m;
            p->stages[m++] = p->stages[s];
        }
    }
    p->nstages = m;
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].write_stage >= 0)
            p->fields[f].write_stage = map[p->fields[f].write_stage];
}

IrProgram *ir_lower(const AstStencil *st, Arena *arena, Diag *diag)
{
    Lower L;
    memset(&L, 0, sizeof L);
    L.st = st;
    L.arena = arena;
    L.diag = diag;
    L.p = arena_alloc(arena, sizeof *L.p);
    int errors = diag->errors;
    sym_rehash(&L);
    lower_header(&L);
    new_stage(&L);

    int next_decl = 0;
    for (int i = 0; i < st->nstmts; i++) {
        int upto = st->stmt_after_decls ? st->stmt_after_decls[i] : st->ndecls;
        for (; next_decl < upto && next_decl < st->ndecls; next_decl++)
            declare(&L, &st->decls[next_decl]);
        lower_stmt(&L, &st->stmts[i]);
    }
    for (; next_decl < st->ndecls; next_decl++)
        declare(&L, &st->decls[next_decl]);

    IrProgram *p = L.p;
    int any_write = 0;
    for (int f = 0; f < p->nfields; f++)
        any_write |= p->fields[f].written;
    if (!any_write && diag->errors == errors)
        diag_error(diag, st->loc, STC_E_NO_WRITE, "stencil '%s' writes no field in its step",
                   st->name ? st->name : "?");
    if (diag->errors != errors)
        return NULL;

    finish_stages(p, arena);
    p->an.flops_written = (int)L.flops_written;
    ir_analyse(p);
    if (check_reduce_reach(p, arena, diag))
        return NULL;
    warn_unused(&L);

    if (p->size[0] > 0) {
        char why[200];
        int fits = ir_check_grid(p, p->size, why, sizeof why);
        if (fits != 0) {
            diag_error(diag, st->size_loc,
                       fits == IR_GRID_TOO_LARGE ? STC_E_BAD_SIZE : STC_E_RADIUS_TOO_BIG, "%s", why);
            return NULL;
        }
    }
    return p;
}
