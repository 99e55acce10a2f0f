/* Device source of the stage kernels: expressions from IR nodes, loads, the plain kernel. */
#include "emit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stc_config.h"
#include "stc_generator.h"

const char *cg_version(void) { return STC_VERSION " (generator " STC_GENERATOR_ID ")"; }

/* ---- names ---- */

const char *cg_c_identifier(Arena *arena, const char *name)
{
    if (!name || !*name)
        return "stencil";
    size_t len = strlen(name);
    char *out = arena_alloc(arena, len + 3);
    size_t at = 0;
    if (!((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z') || name[0] == '_')) {
        out[at++] = 's';
        out[at++] = '_';
    }
    for (size_t i = 0; i < len; i++) {
        char ch = name[i];
        int ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        out[at++] = ok ? ch : '_';
    }
    out[at] = 0;
    return out;
}

const char *cg_member_name(Arena *arena, const char *name)
{
    static const char *const reserved[] = {
        "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
        "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
        "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
        "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
        "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
        "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
        "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
        "reinterpret_cast", "requires", "restrict", "return", "short", "signed", "sizeof",
        "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
        "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union",
        "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
        "_Bool", "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic", "_Generic",
        "_Noreturn", "_Static_assert", "_Thread_local", "main",
    };
    const char *id = cg_c_identifier(arena, name);
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(id, reserved[i]) == 0)
            return arena_printf(arena, "%s_", id);
    return id;
}

int cg_writing_stage(const IrProgram *p, int f)
{
    for (int s = 0; s < p->nstages; s++)
        for (int w = 0; w < p->stages[s].nwrites; w++)
            if (p->stages[s].writes[w].field == f)
                return s;
    return -1;
}

int cg_field_stored(const IrProgram *p, int f)
{
    const IrField *fd = &p->fields[f];
    if (fd->role != ROLE_TEMP)
        return 1;
    return fd->materialized && cg_writing_stage(p, f) >= 0;
}

/* ---- arguments ---- */

void cg_args_add(CgCtx *ctx, CgArgs *a, PlanArg arg, int writes)
{
    int n = a->nargs;
    *ARENA_PUSH(ctx->arena, a->args, a->nargs, a->cap) = arg;
    int nw = n;
    *ARENA_PUSH(ctx->arena, a->writes, nw, a->cap_w) = (unsigned char)(writes != 0);
}

int cg_args_find(const CgArgs *a, ArgKind kind, int field, int level, int index)
{
    for (int i = 0; i < a->nargs; i++) {
        const PlanArg *p = &a->args[i];
        if (p->kind != kind)
            continue;
        if (kind == ARG_BUF && p->field == field && p->level == level)
            return i;
        if (kind != ARG_BUF && p->index == index)
            return i;
    }
    return -1;
}

void cg_arg_name(const IrProgram *prog, const PlanArg *arg, char *buf, int len)
{
    switch (arg->kind) {
    case ARG_BUF:
        snprintf(buf, (size_t)len, "f_%s_%s%d", prog->fields[arg->field].name,
                 arg->level < 0 ? "lm" : arg->level > 0 ? "lp" : "l", abs(arg->level));
        return;
    case ARG_PARAM:
        snprintf(buf, (size_t)len, "p_%s", prog->params[arg->index].name);
        return;
    case ARG_DIM:
        snprintf(buf, (size_t)len, "n%d", arg->index);
        return;
    case ARG_SIDE:
        snprintf(buf, (size_t)len, "side_%s", arg->index % 2 ? "hi" : "lo");
        return;
    }
}

void cg_emit_signature(CgCtx *ctx, const char *name, const int block[3], const CgArgs *args)
{
    StrBuf *o = ctx->src;
    int threads = block[0] * block[1] * block[2];
    int maxreg = ctx->cfg->v[P_MAXREG];
    sb_puts(o, "extern \"C\" __global__ void ");
    /* __maxnreg__ and __launch_bounds__ cannot be combined: a register cap replaces the bound. */
    if (maxreg > 1)
        sb_printf(o, "__maxnreg__(%d)\n", maxreg);
    else
        sb_printf(o, "__launch_bounds__(%d)\n", threads);
    sb_printf(o, "%s(", name);
    for (int i = 0; i < args->nargs; i++) {
        const PlanArg *a = &args->args[i];
        char an[160];
        cg_arg_name(ctx->prog, a, an, sizeof an);
        sb_puts(o, i ? ",\n    " : "\n    ");
        if (a->kind == ARG_BUF)
            sb_printf(o, "%s%s *__restrict__ %s", args->writes[i] ? "" : "const ", ctx->T, an);
        else if (a->kind == ARG_PARAM)
            sb_printf(o, "const %s %s", ctx->T, an);
        else
            sb_printf(o, "const int %s", an);
    }
    sb_puts(o, ")\n{\n");
}

void cg_emit_strides(CgCtx *ctx)
{
    const IrProgram *p = ctx->prog;
    if (p->dims >= 2)
        sb_printf(ctx->src, "    const long long s1 = (long long)n0 + %d;\n", 2 * p->halo[0]);
    if (p->dims >= 3)
        sb_printf(ctx->src, "    const long long s2 = s1 * ((long long)n1 + %d);\n", 2 * p->halo[1]);
}

/* ---- expressions ---- */

void cg_emit_const(StrBuf *out, double v, ElemType t)
{
    int is_float = t == ELEM_FLOAT;
    if (isnan(v)) {
        sb_puts(out, is_float ? "__int_as_float(0x7fffffff)" : "__longlong_as_double(0x7ff8000000000000LL)");
        return;
    }
    if (isinf(v)) {
        if (v < 0)
            sb_puts(out, "(-");
        sb_puts(out, is_float ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000LL)");
        if (v < 0)
            sb_puts(out, ")");
        return;
    }
    char num[64];
    if (is_float) {
        float f = (float)v;
        if (isinf(f)) { /* a double constant beyond float range rounds to infinity */
            cg_emit_const(out, f > 0 ? INFINITY : -INFINITY, t);
            return;
        }
        /* 9 significant digits identify a float exactly. */
        snprintf(num, sizeof num, "%.9g", (double)f);
    } else {
        snprintf(num, sizeof num, "%.17g", v);
    }
    int needs_point = strpbrk(num, ".eE") == NULL;
    int negative = num[0] == '-';
    if (negative)
        sb_puts(out, "(");
    sb_puts(out, num);
    if (needs_point)
        sb_puts(out, ".0");
    if (is_float)
        sb_puts(out, "f");
    if (negative)
        sb_puts(out, ")");
}

void cg_emit_offset_term(StrBuf *out, int off, const char *stride)
{
    if (off == 0)
        return;
    sb_puts(out, off < 0 ? " - " : " + ");
    int mag = abs(off);
    if (!stride)
        sb_printf(out, "%d", mag);
    else if (mag == 1)
        sb_puts(out, stride);
    else
        sb_printf(out, "%d * %s", mag, stride);
}

void cg_emit_read(CgCtx *ctx, const IrNode *n, StrBuf *out)
{
    if (ctx->read_hook) {
        ctx->read_hook(ctx, n, out);
        return;
    }
    cg_emit_global_read(ctx, n, ctx->idx ? ctx->idx : "idx", out);
}

void cg_emit_global_read(CgCtx *ctx, const IrNode *n, const char *idx, StrBuf *out)
{
    PlanArg a = {ARG_BUF, n->field, n->level, 0};
    char an[160];
    cg_arg_name(ctx->prog, &a, an, sizeof an);
    sb_printf(out, "%s[%s", an, idx);
    cg_emit_offset_term(out, n->off[2], "s2");
    cg_emit_offset_term(out, n->off[1], "s1");
    cg_emit_offset_term(out, n->off[0], NULL);
    sb_puts(out, "]");
}

/* A temp read at zero offset in the stage that writes it is the written value itself (the
 * lowering may keep such reads; the buffer does not hold the value yet). */
static int same_stage_temp_value(const CgCtx *ctx, const IrStage *st, const IrNode *n)
{
    const IrField *f = &ctx->prog->fields[n->field];
    if (f->role != ROLE_TEMP || n->off[0] || n->off[1] || n->off[2])
        return -1;
    for (int w = 0; w < st->nwrites; w++)
        if (st->writes[w].field == n->field)
            return st->writes[w].node;
    return -1;
}

typedef struct {
    CgCtx *ctx;
    const IrStage *st;
    int *uses;     /* per node, recomputed here (not trusted from the IR) */
    char *named;   /* per node: emitted as a variable vN */
    int *alias;    /* per node: node whose value it is (same-stage temp reads), or -1 */
} PointState;

/* The function an op calls; fast (float with --fast-math, in the optimized kernels): the
 * approximate intrinsic where CUDA has one. */
static const char *fn_name(IrOp op, int is_float, int fast)
{
    if (fast && is_float) {
        switch (op) {
        case N_EXP: return "__expf";
        case N_LOG: return "__logf";
        case N_SIN: return "__sinf";
        case N_COS: return "__cosf";
        case N_POW: return "__powf";
        default: break;
        }
    }
    switch (op) {
    case N_SQRT: return is_float ? "sqrtf" : "sqrt";
    case N_RSQRT: return is_float ? "rsqrtf" : "rsqrt";
    case N_EXP: return is_float ? "expf" : "exp";
    case N_LOG: return is_float ? "logf" : "log";
    case N_SIN: return is_float ? "sinf" : "sin";
    case N_COS: return is_float ? "cosf" : "cos";
    case N_ABS: return is_float ? "fabsf" : "fabs";
    case N_FLOOR: return is_float ? "floorf" : "floor";
    case N_POW: return is_float ? "powf" : "pow";
    case N_MIN: return is_float ? "fminf" : "fmin";
    case N_MAX: return is_float ? "fmaxf" : "fmax";
    default: return NULL;
    }
}

static const char *infix(IrOp op)
{
    switch (op) {
    case N_ADD: return "+";
    case N_SUB: return "-";
    case N_MUL: return "*";
    case N_DIV: return "/";
    case N_LT: return "<";
    case N_LE: return "<=";
    case N_GT: return ">";
    case N_GE: return ">=";
    case N_EQ: return "==";
    case N_NE: return "!=";
    default: return NULL;
    }
}

static void emit_value(PointState *ps, int node, StrBuf *out);

/* The expression that computes node (not its name). */
static void emit_expr(PointState *ps, int node, StrBuf *out)
{
    CgCtx *ctx = ps->ctx;
    const IrNode *n = &ps->st->nodes[node];
    const char *T = ctx->T;
    int is_float = ctx->prog->type == ELEM_FLOAT;
    const char *op;
    switch (n->op) {
    case N_CONST:
        cg_emit_const(out, n->value, ctx->prog->type);
        return;
    case N_PARAM:
        sb_printf(out, "p_%s", ctx->prog->params[n->param].name);
        return;
    case N_READ:
        cg_emit_read(ctx, n, out);
        return;
    case N_NEG:
        sb_puts(out, "(-");
        emit_value(ps, n->a, out);
        sb_puts(out, ")");
        return;
    case N_NOT:
        sb_printf(out, "((%s)(", T);
        emit_value(ps, n->a, out);
        sb_printf(out, " == (%s)0))", T);
        return;
    case N_AND:
    case N_OR:
        sb_printf(out, "((%s)(", T);
        emit_value(ps, n->a, out);
        sb_printf(out, " != (%s)0 %s ", T, n->op == N_AND ? "&&" : "||");
        emit_value(ps, n->b, out);
        sb_printf(out, " != (%s)0))", T);
        return;
    case N_SELECT:
        sb_puts(out, "(");
        emit_value(ps, n->a, out);
        sb_printf(out, " != (%s)0 ? ", T);
        emit_value(ps, n->b, out);
        sb_puts(out, " : ");
        emit_value(ps, n->c, out);
        sb_puts(out, ")");
        return;
    default:
        break;
    }
    if (n->op == N_DIV && is_float && ctx->prog->fast_ops) { /* approximate, 2 ulp */
        sb_puts(out, "__fdividef(");
        emit_value(ps, n->a, out);
        sb_puts(out, ", ");
        emit_value(ps, n->b, out);
        sb_puts(out, ")");
        return;
    }
    if ((op = infix(n->op)) != NULL) {
        int compare = n->op >= N_LT && n->op <= N_NE;
        if (compare)
            sb_printf(out, "((%s)", T);
        sb_puts(out, "(");
        emit_value(ps, n->a, out);
        sb_printf(out, " %s ", op);
        emit_value(ps, n->b, out);
        sb_puts(out, compare ? "))" : ")");
        return;
    }
    if ((op = fn_name(n->op, is_float, ctx->prog->fast_ops)) != NULL) {
        sb_printf(out, "%s(", op);
        emit_value(ps, n->a, out);
        if (n->b >= 0 && (n->op == N_POW || n->op == N_MIN || n->op == N_MAX)) {
            sb_puts(out, ", ");
            emit_value(ps, n->b, out);
        }
        sb_puts(out, ")");
        return;
    }
    sb_puts(out, "0 /* unknown op */");
}

/* A use of node: its variable if it has one, else its expression inline. */
static void emit_value(PointState *ps, int node, StrBuf *out)
{
    if (node < 0 || node >= ps->st->nnodes) {
        sb_puts(out, "0");
        return;
    }
    if (ps->alias[node] >= 0)
        node = ps->alias[node];
    if (ps->named[node])
        sb_printf(out, "v%d", node);
    else
        emit_expr(ps, node, out);
}

int cg_node_arity(IrOp op)
{
    if (op == N_CONST || op == N_PARAM || op == N_READ)
        return 0;
    if (op == N_SELECT)
        return 3;
    return op <= N_FLOOR ? 1 : 2;
}

static void count_use(PointState *ps, int node)
{
    if (node < 0 || node >= ps->st->nnodes)
        return;
    if (ps->alias[node] >= 0)
        node = ps->alias[node];
    ps->uses[node]++;
}

void cg_emit_point(CgCtx *ctx, const char *indent)
{
    const IrStage *st = &ctx->prog->stages[ctx->stage];
    int nn = st->nnodes;
    PointState ps = {ctx, st, arena_alloc(ctx->arena, sizeof(int) * (size_t)(nn + 1)),
                     arena_alloc(ctx->arena, (size_t)nn + 1),
                     arena_alloc(ctx->arena, sizeof(int) * (size_t)(nn + 1))};
    for (int i = 0; i < nn; i++) {
        ps.alias[i] = -1;
        if (st->nodes[i].op == N_READ)
            ps.alias[i] = same_stage_temp_value(ctx, st, &st->nodes[i]);
    }
    /* Liveness first (a node feeding only dead nodes is dead), then uses from live nodes. */
    char *live = arena_alloc(ctx->arena, (size_t)nn + 1);
    for (int w = 0; w < st->nwrites; w++) {
        int v = st->writes[w].node;
        if (!cg_field_stored(ctx->prog, st->writes[w].field))
            continue;
        if (v >= 0 && v < nn)
            live[ps.alias[v] >= 0 ? ps.alias[v] : v] = 1;
    }
    for (int i = nn - 1; i >= 0; i--) {
        if (!live[i])
            continue;
        int ar = cg_node_arity(st->nodes[i].op);
        const int ops[3] = {st->nodes[i].a, st->nodes[i].b, st->nodes[i].c};
        for (int k = 0; k < ar; k++)
            if (ops[k] >= 0 && ops[k] < nn)
                live[ps.alias[ops[k]] >= 0 ? ps.alias[ops[k]] : ops[k]] = 1;
    }
    for (int i = 0; i < nn; i++) {
        if (!live[i])
            continue;
        int ar = cg_node_arity(st->nodes[i].op);
        const int ops[3] = {st->nodes[i].a, st->nodes[i].b, st->nodes[i].c};
        for (int k = 0; k < ar; k++)
            count_use(&ps, ops[k]);
    }
    for (int w = 0; w < st->nwrites; w++)
        if (cg_field_stored(ctx->prog, st->writes[w].field))
            count_use(&ps, st->writes[w].node);
    StrBuf line = {0};
    int stored = 0;
    for (int i = 0; i < nn; i++) {
        const IrNode *n = &st->nodes[i];
        if (!live[i] || ps.alias[i] >= 0 || ps.uses[i] < 2 || n->op == N_CONST || n->op == N_PARAM)
            continue;
        line.len = 0;
        if (line.data)
            line.data[0] = 0;
        emit_expr(&ps, i, &line);
        sb_printf(ctx->src, "%sconst %s v%d = %s;\n", indent, ctx->T, i, line.data);
        ps.named[i] = 1;
    }
    for (int w = 0; w < st->nwrites; w++) {
        const IrWrite *wr = &st->writes[w];
        const IrField *f = &ctx->prog->fields[wr->field];
        if (!cg_field_stored(ctx->prog, wr->field))
            continue;
        PlanArg a = {ARG_BUF, wr->field, f->role == ROLE_STATE ? 1 : 0, 0};
        char an[160];
        cg_arg_name(ctx->prog, &a, an, sizeof an);
        line.len = 0;
        if (line.data)
            line.data[0] = 0;
        emit_value(&ps, wr->node, &line);
        if (ctx->store_hook)
            ctx->store_hook(ctx, stored++, an, line.data, indent);
        else
            sb_printf(ctx->src, "%s%s[%s] = %s;\n", indent, an, ctx->idx ? ctx->idx : "idx",
                      line.data);
    }
    sb_free(&line);
}

/* ---- the stage's arguments and the plain kernel ---- */

void cg_stage_args(CgCtx *ctx, int stage, CgArgs *a)
{
    const IrProgram *p = ctx->prog;
    const IrStage *st = &p->stages[stage];
    int saved = ctx->stage;
    ctx->stage = stage;
    for (int w = 0; w < st->nwrites; w++) {
        int f = st->writes[w].field;
        if (!cg_field_stored(p, f))
            continue;
        int level = p->fields[f].role == ROLE_STATE ? 1 : 0;
        if (cg_args_find(a, ARG_BUF, f, level, 0) < 0)
            cg_args_add(ctx, a, (PlanArg){ARG_BUF, f, level, 0}, 1);
    }
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        if (n->op == N_READ && same_stage_temp_value(ctx, st, n) < 0 &&
            cg_args_find(a, ARG_BUF, n->field, n->level, 0) < 0)
            cg_args_add(ctx, a, (PlanArg){ARG_BUF, n->field, n->level, 0}, 0);
    }
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        if (n->op == N_PARAM && cg_args_find(a, ARG_PARAM, 0, 0, n->param) < 0)
            cg_args_add(ctx, a, (PlanArg){ARG_PARAM, 0, 0, n->param}, 0);
    }
    for (int d = 0; d < p->dims; d++)
        cg_args_add(ctx, a, (PlanArg){ARG_DIM, 0, 0, d}, 0);
    ctx->stage = saved;
}

void cg_emit_stage_plain(CgCtx *ctx, int stage, const char *name, const CgArgs *args)
{
    const IrProgram *p = ctx->prog;
    const Config *c = ctx->cfg;
    int block[3] = {c->v[P_TBX], c->v[P_TBY], c->v[P_TBZ]};
    static const char axis_var[3] = {'i', 'j', 'k'};
    static const char *const block_idx[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
    static const char *const thread_idx[3] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
    StrBuf *o = ctx->src;
    sb_printf(o, "/* stage %d: one thread per interior point */\n", stage);
    cg_emit_signature(ctx, name, block, args);
    for (int d = 0; d < p->dims; d++)
        sb_printf(o, "    const int %c = (int)(%s * %du + %s);\n", axis_var[d], block_idx[d],
                  block[d], thread_idx[d]);
    sb_puts(o, "    if (");
    for (int d = 0; d < p->dims; d++)
        sb_printf(o, "%s%c >= n%d", d ? " || " : "", axis_var[d], d);
    sb_puts(o, ")\n        return;\n");
    cg_emit_strides(ctx);
    sb_printf(o, "    const long long idx = ");
    if (p->dims >= 3)
        sb_printf(o, "(long long)(k + %d) * s2 + ", p->halo[2]);
    if (p->dims >= 2)
        sb_printf(o, "(long long)(j + %d) * s1 + ", p->halo[1]);
    sb_printf(o, "(i + %d);\n", p->halo[0]);
    ctx->stage = stage;
    ctx->idx = "idx";
    cg_emit_point(ctx, "    ");
    sb_puts(o, "}\n\n");
}
