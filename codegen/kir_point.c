/* The point update of a stage as kernel representation: the stencil's expression tree from the
 * IR (shared nodes as `const T vN = ...;`, single-use nodes inline) and its stores. Every kernel
 * family builds its points here; a family that stages reads through shared memory or registers
 * gives the load of each read (ctx->kread) and, where it stores differently, the store
 * (ctx->kstore). */
#include "emit.h"

#include <stdio.h>

typedef struct {
    CgCtx *ctx;
    const IrStage *st;
    int *uses;     /* per node, recomputed here (not trusted from the IR) */
    char *named;   /* per node: declared as a variable vN */
    int *alias;    /* per node: node whose value it is (same-stage temp reads), or -1 */
    char *live;
    int root;      /* the one value wanted (a reduction's), or -1: the stage's stored writes */
} Point;

/* A temp read at zero offset in the stage that writes it is the written value itself (the
 * lowering may keep such reads; the buffer does not hold the value yet). */
int cg_same_stage_value(const IrProgram *p, const IrStage *st, const IrNode *n)
{
    const IrField *f = &p->fields[n->field];
    if (f->role != ROLE_TEMP || n->off[0] || n->off[1] || n->off[2])
        return -1;
    for (int w = 0; w < st->nwrites; w++)
        if (st->writes[w].field == n->field)
            return st->writes[w].node;
    return -1;
}

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
    return ir_op(op)->c_fn[is_float];
}

static const KOp infix[N_OP_COUNT] = {
    [N_ADD] = KO_ADD, [N_SUB] = KO_SUB, [N_MUL] = KO_MUL, [N_DIV] = KO_DIV, [N_LT] = KO_LT,
    [N_LE] = KO_LE,   [N_GT] = KO_GT,   [N_GE] = KO_GE,   [N_EQ] = KO_EQ,   [N_NE] = KO_NE,
};

static KExpr *value(Point *pt, int node);

/* (T)0: the zero a truth test compares against. */
static KExpr *zero(CgCtx *ctx) { return k_cast(&ctx->kb, ctx->T, k_int(&ctx->kb, 0)); }

static KExpr *truth(Point *pt, int node) { return k_bin(&pt->ctx->kb, KO_NE, value(pt, node), zero(pt->ctx)); }

/* Operands are built left to right: a family's read hook may number its loads in call order. */
static KExpr *logic(Point *pt, const IrNode *n)
{
    Kb *b = &pt->ctx->kb;
    const char *T = pt->ctx->T;
    if (n->op == N_NOT)
        return k_cast(b, T, k_bin(b, KO_EQ, value(pt, n->a), zero(pt->ctx)));
    KExpr *x = truth(pt, n->a);
    if (n->op == N_AND || n->op == N_OR) {
        KExpr *y = truth(pt, n->b);
        return k_cast(b, T, k_bin(b, n->op == N_AND ? KO_LAND : KO_LOR, x, y));
    }
    KExpr *y = value(pt, n->b);
    return k_select(b, x, y, value(pt, n->c));
}

/* clamp(x, lo, hi) = min(max(x, lo), hi) */
static KExpr *clamp(Point *pt, const IrNode *n)
{
    Kb *b = &pt->ctx->kb;
    int is_float = pt->ctx->prog->type == ELEM_FLOAT;
    KExpr *x = value(pt, n->a);
    KExpr *lo = value(pt, n->b);
    KExpr *raised = k_call(b, ir_op(N_MAX)->c_fn[is_float], 2, x, lo);
    return k_call(b, ir_op(N_MIN)->c_fn[is_float], 2, raised, value(pt, n->c));
}

/* sign(x) = (T)((x > (T)0) - (x < (T)0)): C has no such function. */
static KExpr *sign(CgCtx *ctx, KExpr *x)
{
    Kb *b = &ctx->kb;
    KExpr *d = k_sub(b, k_bin(b, KO_GT, x, zero(ctx)), k_bin(b, KO_LT, x, zero(ctx)));
    return k_cast(b, ctx->T, d);
}

static int resolve(const Point *pt, int node) { return pt->alias[node] >= 0 ? pt->alias[node] : node; }

/* --same-bits: a product that an add or subtract fuses, a multiply used once (no variable). */
static int fusable(const Point *pt, int node)
{
    if (node < 0 || node >= pt->st->nnodes)
        return 0;
    node = resolve(pt, node);
    return pt->st->nodes[node].op == N_MUL && pt->uses[node] < 2;
}

/* --same-bits: n as kir_rounded.c's rule writes it, its operands built left to right. */
static KExpr *rounded(Point *pt, const IrNode *n)
{
    CgCtx *ctx = pt->ctx;
    int sub = n->op == N_SUB, sum = n->op == N_ADD || sub;
    if (sum && fusable(pt, n->b)) { /* x + a*b, x - a*b */
        const IrNode *m = &pt->st->nodes[resolve(pt, n->b)];
        KExpr *x = value(pt, n->a);
        KExpr *a = value(pt, m->a);
        KExpr *b = value(pt, m->b);
        return cg_rn_fma(ctx, sub ? k_un(&ctx->kb, KO_NEG, a) : a, b, x);
    }
    if (sum && fusable(pt, n->a)) { /* a*b + y, a*b - y */
        const IrNode *m = &pt->st->nodes[resolve(pt, n->a)];
        KExpr *a = value(pt, m->a);
        KExpr *b = value(pt, m->b);
        KExpr *y = value(pt, n->b);
        return cg_rn_fma(ctx, a, b, sub ? k_un(&ctx->kb, KO_NEG, y) : y);
    }
    KExpr *x = value(pt, n->a);
    double r;
    if (cg_recip_const(pt->st, n, ctx->prog->type, &r)) /* x / c as x * (1/c) */
        return cg_rn_binary(ctx, N_MUL, x, k_real(&ctx->kb, r));
    return cg_rn_binary(ctx, n->op, x, value(pt, n->b));
}

static KExpr *arith(Point *pt, const IrNode *n)
{
    CgCtx *ctx = pt->ctx;
    Kb *b = &ctx->kb;
    int is_float = ctx->prog->type == ELEM_FLOAT;
    if (ctx->prog->same_bits && cg_rn_has(n->op))
        return rounded(pt, n);
    KExpr *x = value(pt, n->a);
    if (n->op == N_SIGN)
        return sign(ctx, x);
    if (ir_op_arity(n->op) == 1)
        return k_call(b, fn_name(n->op, is_float, ctx->prog->fast_ops), 1, x);
    KExpr *y = value(pt, n->b);
    if (n->op == N_DIV && is_float && ctx->prog->fast_ops) /* approximate, 2 ulp */
        return k_call(b, "__fdividef", 2, x, y);
    if (!infix[n->op]) /* KO_NEG (0): not an infix op */
        return k_call(b, fn_name(n->op, is_float, ctx->prog->fast_ops), 2, x, y);
    KExpr *e = k_bin(b, infix[n->op], x, y);
    return n->op >= N_LT && n->op <= N_NE ? k_cast(b, ctx->T, e) : e;
}

/* The family's coordinate of the point (ctx->kcoord), or the plain kernel's i, j, k and no fused
 * step (NULL: the step is the launch's first). */
static KExpr *coord(CgCtx *ctx, int axis)
{
    static const char *const axis_var[3] = {"i", "j", "k"};
    if (ctx->kcoord)
        return ctx->kcoord(ctx, axis);
    return axis == CG_FUSED_STEP ? NULL : k_var(&ctx->kb, axis_var[axis]);
}

/* x, y, z (the global index: the kernel's own plus the origin argument), nx, ny, nz and step
 * (the launch's first step plus those it fused before), in the element type. */
static KExpr *builtin(CgCtx *ctx, const IrNode *n)
{
    Kb *b = &ctx->kb;
    KExpr *v;
    if (n->op == N_EXTENT)
        v = k_varf(b, "c_n%d", n->param);
    else if (n->op == N_COORD)
        v = k_add(b, coord(ctx, n->param), k_varf(b, "c_o%d", n->param));
    else if (!(v = coord(ctx, CG_FUSED_STEP)))
        v = k_var(b, "c_step");
    else
        v = k_add(b, k_var(b, "c_step"), v);
    return k_cast(b, ctx->T, v);
}

/* The expression that computes node (not its name). */
static KExpr *expr(Point *pt, int node)
{
    CgCtx *ctx = pt->ctx;
    const IrNode *n = &pt->st->nodes[node];
    switch (n->op) {
    case N_CONST: return k_real(&ctx->kb, n->value);
    case N_PARAM: return k_varf(&ctx->kb, "p_%s", ctx->prog->params[n->param].name);
    case N_READ: return cg_read(ctx, n);
    case N_COORD:
    case N_EXTENT:
    case N_STEP: return builtin(ctx, n);
    case N_NEG: return k_un(&ctx->kb, KO_NEG, value(pt, n->a));
    case N_NOT:
    case N_AND:
    case N_OR:
    case N_SELECT: return logic(pt, n);
    case N_CLAMP: return clamp(pt, n);
    default: return arith(pt, n);
    }
}

/* A use of node: its variable if it has one, else its expression inline. */
static KExpr *value(Point *pt, int node)
{
    if (node < 0 || node >= pt->st->nnodes)
        return k_int(&pt->ctx->kb, 0);
    if (pt->alias[node] >= 0)
        node = pt->alias[node];
    return pt->named[node] ? k_varf(&pt->ctx->kb, "v%d", node) : expr(pt, node);
}

static void count_use(Point *pt, int node)
{
    if (node >= 0 && node < pt->st->nnodes)
        pt->uses[resolve(pt, node)]++;
}

/* Liveness first (a node feeding only dead nodes is dead), then uses from live nodes. */
static void count_uses(Point *pt)
{
    const IrStage *st = pt->st;
    const IrProgram *p = pt->ctx->prog;
    int nn = st->nnodes;
    if (pt->root >= 0 && pt->root < nn)
        pt->live[resolve(pt, pt->root)] = 1;
    for (int w = 0; pt->root < 0 && w < st->nwrites; w++)
        if (cg_field_stored(p, st->writes[w].field) && st->writes[w].node >= 0 && st->writes[w].node < nn)
            pt->live[resolve(pt, st->writes[w].node)] = 1;
    for (int i = nn - 1; i >= 0; i--) {
        const int ops[3] = {st->nodes[i].a, st->nodes[i].b, st->nodes[i].c};
        for (int k = 0; pt->live[i] && k < ir_op_arity(st->nodes[i].op); k++)
            if (ops[k] >= 0 && ops[k] < nn)
                pt->live[resolve(pt, ops[k])] = 1;
    }
    for (int i = 0; i < nn; i++) {
        const int ops[3] = {st->nodes[i].a, st->nodes[i].b, st->nodes[i].c};
        for (int k = 0; pt->live[i] && k < ir_op_arity(st->nodes[i].op); k++)
            count_use(pt, ops[k]);
    }
    if (pt->root >= 0)
        count_use(pt, pt->root);
    for (int w = 0; pt->root < 0 && w < st->nwrites; w++)
        if (cg_field_stored(p, st->writes[w].field))
            count_use(pt, st->writes[w].node);
}

static Point point_of(CgCtx *ctx, const IrStage *st, int root)
{
    size_t nn = (size_t)st->nnodes + 1;
    Point pt = {ctx, st, arena_alloc(ctx->arena, sizeof(int) * nn), arena_alloc(ctx->arena, nn),
                arena_alloc(ctx->arena, sizeof(int) * nn), arena_alloc(ctx->arena, nn), root};
    for (int i = 0; i < st->nnodes; i++)
        pt.alias[i] = st->nodes[i].op == N_READ ? cg_same_stage_value(ctx->prog, st, &st->nodes[i]) : -1;
    count_uses(&pt);
    return pt;
}

/* The nodes used more than once, declared onto out as `const T vN = ...;`. */
static void declare_shared(Point *pt, KBlock *out)
{
    CgCtx *ctx = pt->ctx;
    const IrStage *st = pt->st;
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        if (!pt->live[i] || pt->alias[i] >= 0 || pt->uses[i] < 2 || n->op == N_CONST || n->op == N_PARAM)
            continue;
        KExpr *e = expr(pt, i);
        k_push(&ctx->kb, out, k_decl(&ctx->kb, KQ_CONST, ctx->T, arena_printf(ctx->arena, "v%d", i), e));
        pt->named[i] = 1;
    }
}

KExpr *cg_build_value(CgCtx *ctx, const IrStage *st, int node, KBlock *out)
{
    Point pt = point_of(ctx, st, node);
    declare_shared(&pt, out);
    return value(&pt, node);
}

void cg_build_point(CgCtx *ctx, KBlock *out, CgPointStores *stores)
{
    Point pt = point_of(ctx, &ctx->prog->stages[ctx->stage], -1);
    const IrStage *st = pt.st;
    declare_shared(&pt, out);
    for (int w = 0; w < st->nwrites; w++) {
        const IrWrite *wr = &st->writes[w];
        if (!cg_field_stored(ctx->prog, wr->field))
            continue;
        int level = ctx->prog->fields[wr->field].role == ROLE_STATE ? 1 : 0;
        CgPointStore *s = ARENA_PUSH(ctx->arena, stores->items, stores->n, stores->cap);
        s->array = cg_buf(ctx, wr->field, level);
        s->value = value(&pt, wr->node);
    }
}

void cg_point(CgCtx *ctx, KBlock *out)
{
    CgPointStores stores = {0};
    cg_build_point(ctx, out, &stores);
    if (ctx->fold) { /* the fused step: the point's reductions too (emit_reduce_fused.c) */
        cg_fold_point(ctx, out, &stores);
        return;
    }
    for (int w = 0; w < stores.n; w++) {
        if (ctx->kstore)
            ctx->kstore(ctx, out, w, stores.items[w].array, stores.items[w].value);
        else
            k_push(&ctx->kb, out, k_assign(&ctx->kb, k_index(&ctx->kb, stores.items[w].array, cg_point_index(ctx)),
                                           stores.items[w].value));
    }
}
