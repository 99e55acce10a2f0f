/* The CUDA printer of the kernel representation: the one place that turns kernels into text.
 * Expressions are printed with the parentheses C's precedence needs and no others, so the text
 * means what the tree means; statements four spaces a level. */
#include "kir.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { PREC_SELECT = 3, PREC_LOR = 4, PREC_LAND = 5, PREC_BOR = 6, PREC_BAND = 8, PREC_EQ = 9, PREC_REL = 10,
       PREC_ADD = 12, PREC_MUL = 13, PREC_UNARY = 15, PREC_POSTFIX = 16, PREC_PRIMARY = 17 };

static const struct {
    const char *text;
    int prec;
} ops[] = {
    [KO_NEG] = {"-", PREC_UNARY},  [KO_NOT] = {"!", PREC_UNARY},  [KO_ADDR] = {"&", PREC_UNARY},
    [KO_DEREF] = {"*", PREC_UNARY}, [KO_BOR] = {"|", PREC_BOR},   [KO_MUL] = {"*", PREC_MUL},
    [KO_DIV] = {"/", PREC_MUL},    [KO_MOD] = {"%", PREC_MUL},    [KO_ADD] = {"+", PREC_ADD},
    [KO_SUB] = {"-", PREC_ADD},    [KO_LT] = {"<", PREC_REL},     [KO_LE] = {"<=", PREC_REL},
    [KO_GT] = {">", PREC_REL},     [KO_GE] = {">=", PREC_REL},    [KO_EQ] = {"==", PREC_EQ},
    [KO_NE] = {"!=", PREC_EQ},     [KO_LAND] = {"&&", PREC_LAND}, [KO_LOR] = {"||", PREC_LOR},
    [KO_BAND] = {"&", PREC_BAND},
};

static int prec(const KExpr *e)
{
    switch (e->kind) {
    case KE_INT: return e->ival < 0 ? PREC_UNARY : PREC_PRIMARY;
    case KE_UNARY:
    case KE_CAST: return PREC_UNARY;
    case KE_BINARY: return ops[e->op].prec;
    case KE_SELECT: return PREC_SELECT;
    case KE_INDEX:
    case KE_CALL:
    case KE_BRACE:
    case KE_MEMBER:
    case KE_SHUFFLE: return PREC_POSTFIX;
    default: return PREC_PRIMARY; /* a negative KE_REAL prints its own parentheses */
    }
}

static void expr_at(StrBuf *out, const KExpr *e, int min_prec)
{
    int paren = prec(e) < min_prec;
    if (paren)
        sb_puts(out, "(");
    kir_cuda_expr(out, e);
    if (paren)
        sb_puts(out, ")");
}

/* A constant printed exactly in its type (a float constant as the float it rounds to). */
static void real(StrBuf *out, double v, ElemType t)
{
    int is_float = t == ELEM_FLOAT;
    if (isnan(v)) {
        sb_puts(out, is_float ? "__int_as_float(0x7fffffff)" : "__longlong_as_double(0x7ff8000000000000LL)");
        return;
    }
    if (is_float && isinf((float)v))
        v = (float)v; /* a double constant beyond float range rounds to infinity */
    if (isinf(v)) {
        sb_puts(out, v < 0 ? "(-" : "");
        sb_puts(out, is_float ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000LL)");
        sb_puts(out, v < 0 ? ")" : "");
        return;
    }
    char num[64];
    /* 9 significant digits identify a float exactly, 17 a double. */
    snprintf(num, sizeof num, is_float ? "%.9g" : "%.17g", is_float ? (double)(float)v : v);
    int negative = num[0] == '-';
    sb_printf(out, "%s%s%s%s%s", negative ? "(" : "", num, strpbrk(num, ".eE") ? "" : ".0",
              is_float ? "f" : "", negative ? ")" : "");
}

/* name(args) or name{args} */
static void call(StrBuf *out, const KExpr *e, const char *open, const char *close)
{
    sb_printf(out, "%s%s", e->name, open);
    for (int i = 0; i < e->nargs; i++) {
        sb_puts(out, i ? ", " : "");
        expr_at(out, e->args[i], PREC_SELECT);
    }
    sb_puts(out, close);
}

/* A warp shuffle over the whole warp. */
static void shuffle(StrBuf *out, const KExpr *e)
{
    static const char *const fn[] = {[KSH_IDX] = "__shfl_sync", [KSH_UP] = "__shfl_up_sync",
                                     [KSH_DOWN] = "__shfl_down_sync"};
    sb_printf(out, "%s(0xffffffffu, ", fn[e->shuffle]);
    expr_at(out, e->a, PREC_SELECT);
    sb_puts(out, ", ");
    expr_at(out, e->b, PREC_SELECT);
    sb_puts(out, ")");
}

/* k_block_faces_first: of the linear block number L, the first 2*gridDim.y blocks are the x
 * faces' (odd ones the last column), the rest the columns 1 .. gridDim.x - 2 row by row; row r
 * is (r + gridDim.y - 1) % gridDim.y, the last, then the first, then the others. */
static void faces_first(StrBuf *out, int axis)
{
    const char *L = "(blockIdx.x + blockIdx.y * gridDim.x)";
    if (axis == 0) {
        sb_printf(out, "(gridDim.x <= 2u ? blockIdx.x : %s < 2u * gridDim.y ? ((%s & 1u) != 0u ? gridDim.x - 1u : 0u) "
                  ": 1u + (%s - 2u * gridDim.y) %% (gridDim.x - 2u))", L, L, L);
        return;
    }
    sb_printf(out, "(((gridDim.x <= 2u ? blockIdx.y : %s < 2u * gridDim.y ? %s >> 1 : (%s - 2u * gridDim.y) / (gridDim.x - 2u))"
              " + gridDim.y - 1u) %% gridDim.y)", L, L, L);
}

static void unary(StrBuf *out, const KExpr *e)
{
    sb_puts(out, ops[e->op].text);
    /* -(-x) must not print as --x */
    int min = e->a->kind == KE_UNARY || (e->a->kind == KE_INT && e->a->ival < 0) ? PREC_PRIMARY : PREC_UNARY;
    expr_at(out, e->a, min);
}

/* An operand of a bitwise op that is another binary op is parenthesized, as gcc's -Wparentheses
 * asks: `(step - 1) & 1`, not `step - 1 & 1`. */
static int operand_prec(const KExpr *e, const KExpr *operand, int min)
{
    int bitwise = e->op == KO_BAND || e->op == KO_BOR;
    return bitwise && operand->kind == KE_BINARY && operand->op != e->op ? PREC_PRIMARY : min;
}

void kir_cuda_expr(StrBuf *out, const KExpr *e)
{
    static const char xyz[3] = {'x', 'y', 'z'};
    int p = prec(e);
    switch (e->kind) {
    case KE_INT: sb_printf(out, "%lld%s", e->ival, e->unsigned_lit ? "u" : ""); return;
    case KE_REAL: real(out, e->fval, e->elem); return;
    case KE_VAR: sb_puts(out, e->name); return;
    case KE_THREAD: sb_printf(out, "threadIdx.%c", xyz[e->axis]); return;
    case KE_BLOCK:
        if (e->ival == 2)
            faces_first(out, e->axis);
        else if (e->ival)
            sb_printf(out, "(blockIdx.%c == 0u ? 0u : blockIdx.%c == 1u ? gridDim.%c - 1u : blockIdx.%c - 1u)",
                xyz[e->axis], xyz[e->axis], xyz[e->axis], xyz[e->axis]);
        else
            sb_printf(out, "blockIdx.%c", xyz[e->axis]);
        return;
    case KE_UNARY: unary(out, e); return;
    case KE_BINARY: /* left-associative: the right operand needs parentheses at equal precedence */
        expr_at(out, e->a, operand_prec(e, e->a, p));
        sb_printf(out, " %s ", ops[e->op].text);
        expr_at(out, e->b, operand_prec(e, e->b, p + 1));
        return;
    case KE_SELECT:
        expr_at(out, e->a, p + 1);
        sb_puts(out, " ? ");
        expr_at(out, e->b, p);
        sb_puts(out, " : ");
        expr_at(out, e->c, p);
        return;
    case KE_CAST:
        sb_printf(out, "(%s)", e->name);
        expr_at(out, e->a, PREC_UNARY);
        return;
    case KE_INDEX:
        expr_at(out, e->a, PREC_POSTFIX);
        sb_puts(out, "[");
        kir_cuda_expr(out, e->b);
        sb_puts(out, "]");
        return;
    case KE_CALL: call(out, e, "(", ")"); return;
    case KE_BRACE: call(out, e, "{", "}"); return;
    case KE_MEMBER:
        expr_at(out, e->a, PREC_POSTFIX);
        sb_printf(out, ".%s", e->name);
        return;
    case KE_SHUFFLE: shuffle(out, e); return;
    }
}

/* ---- statements ---- */

static void indent(StrBuf *out, int depth)
{
    for (int i = 0; i < depth; i++)
        sb_puts(out, "    ");
}

static void decl(StrBuf *out, const KStmt *s)
{
    const char *extern_ = (s->quals & KQ_ARRAY) && s->extent == 0 ? "extern " : "";
    sb_printf(out, "%s%s%s%s", extern_, s->quals & KQ_SHARED ? "__shared__ " : "",
              s->quals & KQ_CONSTANT ? "__constant__ " : "", s->quals & KQ_CONST ? "const " : "");
    if (s->align)
        sb_printf(out, "__align__(%d) ", s->align);
    size_t tl = strlen(s->type);
    sb_printf(out, "%s%s%s", s->type, tl && s->type[tl - 1] == '*' ? "" : " ", s->name); /* T *p */
    if (s->quals & KQ_ARRAY)
        sb_printf(out, s->extent ? "[%lld]" : "[]", s->extent);
    if (s->init) {
        sb_puts(out, " = ");
        kir_cuda_expr(out, s->init);
    }
    if (s->ninits) {
        sb_puts(out, " = {");
        for (int i = 0; i < s->ninits; i++) {
            sb_puts(out, i == 0 ? "\n    " : i % 6 == 0 ? ",\n    " : ", ");
            kir_cuda_expr(out, s->inits[i]);
        }
        sb_puts(out, "}");
    }
    sb_puts(out, ";\n");
}

static void stmt(StrBuf *out, const KStmt *s, int depth);

/* A body of one simple statement is printed without braces on its own line. */
static int simple(const KBlock *b)
{
    if (b->n != 1)
        return 0;
    KStmtKind k = b->items[0]->kind;
    return k == KS_RETURN || k == KS_CONTINUE || k == KS_ASSIGN || k == KS_BREAK;
}

static void body(StrBuf *out, const KBlock *b, int depth)
{
    if (simple(b)) {
        sb_puts(out, "\n");
        stmt(out, b->items[0], depth + 1);
        return;
    }
    sb_puts(out, " {\n");
    kir_cuda_block(out, b, depth + 1);
    indent(out, depth);
    sb_puts(out, "}\n");
}

/* An else holding one if alone is printed as `else if`, so a chain of tests stays flat. */
static void if_stmt(StrBuf *out, const KStmt *s, int depth)
{
    sb_puts(out, "if (");
    kir_cuda_expr(out, s->cond);
    sb_puts(out, ")");
    if (s->els.n == 0) {
        body(out, &s->body, depth);
        return;
    }
    sb_puts(out, " {\n");
    kir_cuda_block(out, &s->body, depth + 1);
    indent(out, depth);
    if (s->els.n == 1 && s->els.items[0]->kind == KS_IF) {
        sb_puts(out, "} else ");
        if_stmt(out, s->els.items[0], depth);
        return;
    }
    sb_puts(out, "} else {\n");
    kir_cuda_block(out, &s->els, depth + 1);
    indent(out, depth);
    sb_puts(out, "}\n");
}

static void for_stmt(StrBuf *out, const KStmt *s, int depth)
{
    if (s->unroll) {
        if (s->unroll > 0)
            sb_printf(out, "#pragma unroll %d\n", s->unroll);
        else
            sb_puts(out, "#pragma unroll\n");
        indent(out, depth);
    }
    sb_printf(out, "for (int %s = ", s->name);
    kir_cuda_expr(out, s->init);
    sb_printf(out, "; %s %s ", s->name, s->inclusive ? "<=" : "<");
    expr_at(out, s->cond, PREC_REL + 1);
    if (s->step) {
        sb_printf(out, "; %s += ", s->name);
        kir_cuda_expr(out, s->step);
        sb_puts(out, ")");
    } else {
        sb_printf(out, "; %s++)", s->name);
    }
    body(out, &s->body, depth);
}

/* KS_COPY: cp.async of one element (4 or 8 bytes, zero-filled where cond is false: no byte is
 * read), or on GPUs before sm_80 (and in the host pass) a plain copy. */
static void copy_stmt(StrBuf *out, const KStmt *s, int depth)
{
    int bytes = strcmp(s->type, "double") == 0 ? 8 : 4;
    sb_puts(out, "#if __CUDA_ARCH__ >= 800\n");
    indent(out, depth);
    sb_printf(out, "asm volatile(\"cp.async.ca.shared.global [%%0], [%%1], %d, %%2;\" :: \"r\"((unsigned)"
              "__cvta_generic_to_shared(&", bytes);
    kir_cuda_expr(out, s->lhs);
    sb_puts(out, ")), \"l\"(");
    kir_cuda_expr(out, s->rhs);
    sb_puts(out, "), \"r\"((");
    kir_cuda_expr(out, s->cond);
    sb_printf(out, ") ? %d : 0) : \"memory\");\n#else\n", bytes);
    indent(out, depth);
    kir_cuda_expr(out, s->lhs);
    sb_puts(out, " = (");
    kir_cuda_expr(out, s->cond);
    sb_puts(out, ") ? *(");
    kir_cuda_expr(out, s->rhs);
    sb_printf(out, ") : (%s)0;\n#endif\n", s->type);
}

/* An asm statement for sm_80 and later (nothing before); opens with a directive at the line's start. */
static void sm80_asm(StrBuf *out, int depth, const char *text)
{
    sb_puts(out, "#if __CUDA_ARCH__ >= 800\n");
    indent(out, depth);
    sb_printf(out, "asm volatile(\"%s;\" ::: \"memory\");\n#endif\n", text);
}

static void stmt(StrBuf *out, const KStmt *s, int depth)
{
    int directive = s->kind == KS_COPY || s->kind == KS_COPY_COMMIT || s->kind == KS_COPY_WAIT;
    if (!directive) /* the copies open with a directive, at the line's start */
        indent(out, depth);
    switch (s->kind) {
    case KS_DECL: decl(out, s); return;
    case KS_ASSIGN:
        kir_cuda_expr(out, s->lhs);
        sb_puts(out, s->quals ? " += " : " = ");
        kir_cuda_expr(out, s->rhs);
        sb_puts(out, ";\n");
        return;
    case KS_IF: if_stmt(out, s, depth); return;
    case KS_FOR: for_stmt(out, s, depth); return;
    case KS_BLOCK:
        sb_puts(out, "{\n");
        kir_cuda_block(out, &s->body, depth + 1);
        indent(out, depth);
        sb_puts(out, "}\n");
        return;
    case KS_RETURN: sb_puts(out, "return;\n"); return;
    case KS_CONTINUE: sb_puts(out, "continue;\n"); return;
    case KS_BARRIER: sb_puts(out, "__syncthreads();\n"); return;
    case KS_COMMENT: sb_printf(out, "/* %s */\n", s->name); return;
    case KS_EVAL:
        kir_cuda_expr(out, s->rhs);
        sb_puts(out, ";\n");
        return;
    case KS_BREAK: sb_puts(out, "break;\n"); return;
    case KS_COPY: copy_stmt(out, s, depth); return;
    case KS_COPY_COMMIT: sm80_asm(out, depth, "cp.async.commit_group"); return;
    case KS_COPY_WAIT: {
        char text[48];
        snprintf(text, sizeof text, "cp.async.wait_group %lld", s->extent);
        sm80_asm(out, depth, text);
        return;
    }
    }
}

void kir_cuda_block(StrBuf *out, const KBlock *block, int depth)
{
    for (int i = 0; i < block->n; i++)
        stmt(out, block->items[i], depth);
}

void kir_cuda_global(StrBuf *out, const KStmt *d) { stmt(out, d, 0); }

void kir_cuda_kernel_head(StrBuf *out, const KKernel *k)
{
    if (k->comment)
        sb_printf(out, "/* %s */\n", k->comment);
    sb_puts(out, "extern \"C\" __global__ void ");
    /* __maxnreg__ and __launch_bounds__ cannot be combined: a register cap replaces the bound. */
    if (k->maxreg > 1)
        sb_printf(out, "__maxnreg__(%d)\n", k->maxreg);
    else
        sb_printf(out, "__launch_bounds__(%d)\n", k->threads);
    sb_printf(out, "%s(", k->name);
    for (int i = 0; i < k->nparams; i++) {
        const KParam *p = &k->params[i];
        sb_puts(out, i ? ",\n    " : "\n    ");
        if (p->pointer)
            sb_printf(out, "%s%s *__restrict__ %s", p->writes ? "" : "const ", p->type, p->name);
        else
            sb_printf(out, "const %s %s", p->type, p->name);
    }
    sb_puts(out, ")\n{\n");
}

void kir_cuda_kernel(StrBuf *out, const KKernel *k)
{
    kir_cuda_kernel_head(out, k);
    kir_cuda_block(out, &k->body, 1);
    sb_puts(out, "}\n\n");
}
