/* Prints an AST back as source text that parses to the same AST (parentheses only where the
 * precedence needs them). */
#include "ast.h"

#include <stdlib.h>
#include <string.h>

enum { PREC_COND = 1, PREC_OR, PREC_AND, PREC_CMP, PREC_ADD, PREC_MUL, PREC_UNARY, PREC_PRIMARY };

static const char *const keywords[] = {
    "stencil", "grid", "type", "size", "steps", "param", "const", "state", "coef", "temp", "levels",
    "boundary", "fixed", "constant", "periodic", "clamp", "mirror", "let", "float", "double",
};

static int is_plain_name(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return 0;
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (strcmp(s, keywords[i]) == 0)
            return 0;
    return 1;
}

static int op_prec(AstOp op)
{
    switch (op) {
    case OP_OR: return PREC_OR;
    case OP_AND: return PREC_AND;
    case OP_LT: case OP_LE: case OP_GT: case OP_GE: case OP_EQ: case OP_NE: return PREC_CMP;
    case OP_ADD: case OP_SUB: return PREC_ADD;
    case OP_MUL: case OP_DIV: return PREC_MUL;
    default: return PREC_UNARY;
    }
}

static const char *op_text(AstOp op)
{
    static const char *const text[] = {
        [OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/", [OP_LT] = "<", [OP_LE] = "<=",
        [OP_GT] = ">", [OP_GE] = ">=", [OP_EQ] = "==", [OP_NE] = "!=", [OP_AND] = "&&", [OP_OR] = "||",
        [OP_NEG] = "-", [OP_PLUS] = "+", [OP_NOT] = "!",
    };
    return (unsigned)op < sizeof text / sizeof *text && text[op] ? text[op] : "?";
}

static int expr_prec(const AstExpr *e)
{
    switch (e->kind) {
    case AST_COND: return PREC_COND;
    case AST_BINARY: return op_prec(e->op);
    case AST_UNARY: return PREC_UNARY;
    default: return PREC_PRIMARY;
    }
}

/* The shortest decimal form that reads back as the same double, always with '.' or 'e'. */
static void print_real(FILE *out, double v)
{
    char buf[64];
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    double mag = v < 0 ? -v : v;
    if (strchr(buf, 'e') && mag >= 1e-4 && mag < 1e16) /* 600.0 reads better than 6e+02 */
        for (int decimals = 1; decimals <= 20; decimals++) {
            snprintf(buf, sizeof buf, "%.*f", decimals, v);
            if (strtod(buf, NULL) == v)
                break;
        }
    fputs(buf, out);
    if (!strpbrk(buf, ".eEni"))
        fputs(".0", out);
}

static void print_expr(FILE *out, const AstExpr *e, int min_prec);

static void print_list(FILE *out, AstExpr *const *items, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            fputs(", ", out);
        print_expr(out, items[i], PREC_COND);
    }
}

static void print_expr(FILE *out, const AstExpr *e, int min_prec)
{
    int prec = expr_prec(e);
    if (prec < min_prec)
        fputc('(', out);
    switch (e->kind) {
    case AST_NUM:
        if (e->num_is_int)
            fprintf(out, "%.0f", e->num);
        else
            print_real(out, e->num);
        break;
    case AST_NAME:
    case AST_READ:
        fputs(e->name, out);
        if (e->level)
            fprintf(out, "@%d", e->level);
        if (e->kind == AST_READ) {
            fputc('[', out);
            print_list(out, e->args, e->nargs);
            fputc(']', out);
        }
        break;
    case AST_CALL:
        fprintf(out, "%s(", e->name);
        print_list(out, e->args, e->nargs);
        fputc(')', out);
        break;
    case AST_UNARY:
        fputs(op_text(e->op), out);
        /* "- -x" rather than "--x": the language has no "--", but people read it as one */
        if (e->a->kind == AST_UNARY || (e->a->kind == AST_NUM && e->a->num < 0))
            fputc(' ', out);
        print_expr(out, e->a, PREC_UNARY);
        break;
    case AST_BINARY:
        print_expr(out, e->a, prec);
        fprintf(out, " %s ", op_text(e->op));
        print_expr(out, e->b, prec + 1);
        break;
    case AST_COND:
        print_expr(out, e->a, PREC_OR);
        fputs(" ? ", out);
        print_expr(out, e->b, PREC_COND);
        fputs(" : ", out);
        print_expr(out, e->c, PREC_COND);
        break;
    }
    if (prec < min_prec)
        fputc(')', out);
}

static void print_decl(FILE *out, const AstDecl *d)
{
    static const char *const roles[] = {[ROLE_STATE] = "state", [ROLE_COEF] = "coef", [ROLE_TEMP] = "temp"};
    static const char *const bcs[] = {[BC_FIXED] = "fixed", [BC_CONSTANT] = "constant", [BC_PERIODIC] = "periodic",
                                      [BC_CLAMP] = "clamp", [BC_MIRROR] = "mirror"};
    switch (d->kind) {
    case DECL_PARAM:
    case DECL_CONST:
        fprintf(out, "  %s %s", d->kind == DECL_PARAM ? "param" : "const", d->name);
        if (d->value) {
            fputs(" = ", out);
            print_expr(out, d->value, PREC_COND);
        }
        break;
    case DECL_FIELD:
        fprintf(out, "  %s %s", roles[d->role], d->name);
        if (d->levels)
            fprintf(out, " levels %d", d->levels);
        if (d->has_bc) {
            fputs(" boundary ", out);
            for (int a = 0; a < d->bc_axes && a < 3; a++) {
                fputs(a ? ", " : "", out);
                for (int face = 0; face <= d->bc_split[a]; face++) {
                    const AstBc *bc = &d->bc[a][face];
                    fprintf(out, "%s%s", face ? " | " : "", bcs[bc->kind]);
                    if (bc->kind == BC_CONSTANT && bc->value) {
                        fputc('(', out);
                        print_expr(out, bc->value, PREC_COND);
                        fputc(')', out);
                    }
                }
            }
        }
        break;
    }
    fputs(";\n", out);
}

static void print_stmt(FILE *out, const AstStmt *s)
{
    fprintf(out, "  %s%s = ", s->kind == STMT_LET ? "let " : s->kind == STMT_REDUCE ? "reduce " : "", s->name);
    print_expr(out, s->value, PREC_COND);
    fputs(";\n", out);
}

static void print_stencil(FILE *out, const AstStencil *st)
{
    if (is_plain_name(st->name))
        fprintf(out, "stencil %s {\n", st->name);
    else
        fprintf(out, "stencil \"%s\" {\n", st->name);
    if (st->dims)
        fprintf(out, "  grid %dd;\n", st->dims);
    if (st->has_type)
        fprintf(out, "  type %s;\n", st->type == ELEM_DOUBLE ? "double" : "float");
    if (st->nsize) {
        fputs("  size ", out);
        for (int i = 0; i < st->nsize; i++)
            fprintf(out, "%s%ld", i ? ", " : "", st->size[i]);
        fputs(";\n", out);
    }
    if (st->steps)
        fprintf(out, "  steps %ld;\n", st->steps);
    int d = 0;
    for (int s = 0; s < st->nstmts; s++) {
        for (; d < st->stmt_after_decls[s] && d < st->ndecls; d++)
            print_decl(out, &st->decls[d]);
        print_stmt(out, &st->stmts[s]);
    }
    for (; d < st->ndecls; d++)
        print_decl(out, &st->decls[d]);
    fputs("}\n", out);
}

void ast_print(FILE *out, const AstFile *file)
{
    for (int i = 0; i < file->nstencils; i++) {
        if (i)
            fputc('\n', out);
        print_stencil(out, &file->stencils[i]);
    }
}
