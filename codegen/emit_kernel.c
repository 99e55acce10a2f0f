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

const char *cg_prefix(Arena *arena, const IrProgram *prog)
{
    return prog->c_prefix ? prog->c_prefix : cg_c_identifier(arena, prog->name);
}

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

int cg_field_stored(const IrProgram *p, int f)
{
    const IrField *fd = &p->fields[f];
    if (fd->role != ROLE_TEMP)
        return 1;
    return fd->materialized && p->fields[f].write_stage >= 0;
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
    case ARG_COORD:
        if (arg->index == COORD_STEP)
            snprintf(buf, (size_t)len, "c_step");
        else
            snprintf(buf, (size_t)len, "c_%s%d", arg->index >= COORD_EXTENT ? "n" : "o", arg->index % 3);
        return;
    case ARG_SIDE:
        snprintf(buf, (size_t)len, "side_%s", arg->index % 2 ? "hi" : "lo");
        return;
    case ARG_SCRATCH:
        snprintf(buf, (size_t)len, "scratch");
        return;
    }
}

void cg_kernel_params(CgCtx *ctx, KKernel *k, const CgArgs *args)
{
    for (int i = 0; i < args->nargs; i++) {
        const PlanArg *a = &args->args[i];
        char an[160];
        cg_arg_name(ctx->prog, a, an, sizeof an);
        const char *type = a->kind == ARG_BUF || a->kind == ARG_PARAM ? ctx->T : a->kind == ARG_SCRATCH ? "double" : "int";
        k_param(&ctx->kb, k, type, arena_strdup(ctx->arena, an), a->kind == ARG_BUF || a->kind == ARG_SCRATCH,
                args->writes[i]);
    }
}

KKernel *cg_kernel(CgCtx *ctx, const char *name, const int block[3], const CgArgs *args)
{
    KKernel *k = k_kernel(&ctx->kb, name, ctx->cfg->v[P_MAXREG], block[0] * block[1] * block[2]);
    cg_kernel_params(ctx, k, args);
    return k;
}

void cg_add_kernel(CgCtx *ctx, const KKernel *k)
{
    if (ctx->module)
        k_module_add(&ctx->kb, ctx->module, NULL, k);
    kir_cuda_kernel(ctx->src, k);
}

void cg_add_global(CgCtx *ctx, const KStmt *decl)
{
    if (ctx->module)
        k_module_add(&ctx->kb, ctx->module, decl, NULL);
    kir_cuda_global(ctx->src, decl);
}

void cg_strides(CgCtx *ctx, KBlock *out, KExpr *s[3])
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    s[0] = NULL;
    if (p->dims >= 2)
        s[1] = k_let(b, out, "long long", "s1", k_plus(b, k_cast(b, "long long", k_var(b, "n0")), 2 * p->halo[0]));
    if (p->dims >= 3)
        s[2] = k_let(b, out, "long long", "s2",
                     k_mul(b, s[1], k_plus(b, k_cast(b, "long long", k_var(b, "n1")), 2 * p->halo[1])));
}

KExpr *cg_linear_index(CgCtx *ctx, KExpr *const c[3], KExpr *const s[3])
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    KExpr *idx = NULL;
    for (int d = p->dims - 1; d >= 1; d--) {
        KExpr *term = k_mul(b, k_cast(b, "long long", k_plus(b, c[d], p->halo[d])), s[d]);
        idx = idx ? k_add(b, idx, term) : term;
    }
    KExpr *x = k_plus(b, c[0], p->halo[0]);
    return idx ? k_add(b, idx, x) : x;
}

/* ---- expressions ---- */

void cg_emit_const(StrBuf *out, double v, ElemType t)
{
    KExpr e = {.kind = KE_REAL, .fval = v, .elem = t};
    kir_cuda_expr(out, &e);
}

KExpr *cg_point_index(CgCtx *ctx) { return ctx->kidx ? ctx->kidx : k_var(&ctx->kb, ctx->idx ? ctx->idx : "idx"); }

KExpr *cg_buf(CgCtx *ctx, int field, int level)
{
    PlanArg a = {ARG_BUF, field, level, 0};
    char an[160];
    cg_arg_name(ctx->prog, &a, an, sizeof an);
    return k_var(&ctx->kb, arena_strdup(ctx->arena, an));
}

KExpr *cg_global_read(CgCtx *ctx, const IrNode *n, KExpr *index)
{
    Kb *b = &ctx->kb;
    KExpr *at = k_plus_scaled(b, index, n->off[2], k_var(b, "s2"));
    at = k_plus_scaled(b, at, n->off[1], k_var(b, "s1"));
    return k_index(b, cg_buf(ctx, n->field, n->level), k_plus(b, at, n->off[0]));
}

KExpr *cg_read(CgCtx *ctx, const IrNode *n)
{
    if (ctx->kread)
        return ctx->kread(ctx, n);
    return cg_global_read(ctx, n, cg_point_index(ctx));
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
        if (n->op == N_READ && cg_same_stage_value(p, st, n) < 0 &&
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
    cg_coord_args(ctx, ir_stage_builtins(st), a);
    ctx->stage = saved;
}

void cg_coord_args(CgCtx *ctx, int uses, CgArgs *a)
{
    for (int d = 0; d < 3; d++) {
        if (uses & IR_USES_COORD(d) && cg_args_find(a, ARG_COORD, 0, 0, COORD_ORIGIN + d) < 0)
            cg_args_add(ctx, a, (PlanArg){ARG_COORD, 0, 0, COORD_ORIGIN + d}, 0);
        if (uses & IR_USES_EXTENT(d) && cg_args_find(a, ARG_COORD, 0, 0, COORD_EXTENT + d) < 0)
            cg_args_add(ctx, a, (PlanArg){ARG_COORD, 0, 0, COORD_EXTENT + d}, 0);
    }
    if (uses & IR_USES_STEP && cg_args_find(a, ARG_COORD, 0, 0, COORD_STEP) < 0)
        cg_args_add(ctx, a, (PlanArg){ARG_COORD, 0, 0, COORD_STEP}, 0);
}

void cg_emit_stage_plain(CgCtx *ctx, int stage, const char *name, const CgArgs *args)
{
    const IrProgram *p = ctx->prog;
    const Config *c = ctx->cfg;
    Kb *b = &ctx->kb;
    int block[3] = {c->v[P_TBX], c->v[P_TBY], c->v[P_TBZ]};
    static const char *const axis_var[3] = {"i", "j", "k"};
    KKernel *k = cg_kernel(ctx, name, block, args);
    k->comment = arena_printf(ctx->arena, "stage %d: one thread per interior point", stage);
    KExpr *at[3] = {0}, *s[3] = {0}, *outside = NULL, *inside = NULL;
    for (int d = 0; d < p->dims; d++) {
        KExpr *coord = k_add(b, k_mul(b, k_block(b, d), k_uint(b, block[d])), k_thread(b, d));
        at[d] = k_let(b, &k->body, "int", axis_var[d], k_cast(b, "int", coord));
        outside = k_or(b, outside, k_bin(b, KO_GE, at[d], k_varf(b, "n%d", d)));
        inside = k_and(b, inside, k_bin(b, KO_LT, at[d], k_varf(b, "n%d", d)));
    }
    KBlock *body = &k->body;
    if (!ctx->fold) {
        KStmt *guard = k_if(b, outside);
        k_push(b, &guard->body, k_return(b));
        k_push(b, body, guard);
    }
    cg_strides(ctx, &k->body, s);
    if (ctx->fold) { /* no return: every thread reaches the reductions' tree */
        cg_fold_begin(ctx, &k->body);
        KStmt *guard = k_if(b, inside);
        k_push(b, &k->body, guard);
        body = &guard->body;
    }
    ctx->stage = stage;
    ctx->kidx = k_let(b, body, "long long", "idx", cg_linear_index(ctx, at, s));
    cg_point(ctx, body);
    ctx->kidx = NULL;
    if (ctx->fold)
        cg_fold_end(ctx, &k->body, block, block, (const int[3]){0, 0, 0});
    cg_add_kernel(ctx, k);
}
