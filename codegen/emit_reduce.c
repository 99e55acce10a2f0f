/* Reductions (ir.h, IrReduce) on the GPU. Each reduction is two kernels: NAME_reduce_R walks the
 * interior with a fixed grid of RED_BLOCKS blocks, each thread folding its points in order, and
 * leaves one partial per block (a tree in shared memory); NAME_combine_KIND combines the
 * partials with the same tree in one block. The grid, the points of each thread and the tree
 * are fixed, so a value is the same on every GPU and every run. Sums accumulate in double,
 * min and max compare exactly and let a NaN win, as the interpreter does (ir/interp.c). */
#include "emit_reduce.h"

#include <string.h>

enum { RED_THREADS = PLAN_REDUCE_PARTIALS, RED_BLOCKS = PLAN_REDUCE_PARTIALS };

/* Blocks along x, y, z: together RED_BLOCKS, x split by blocks of threads, y and z by rows. */
static void reduce_grid(int dims, int g[3])
{
    static const int grids[3][3] = {{RED_BLOCKS, 1, 1}, {16, 16, 1}, {4, 8, 8}};
    memcpy(g, grids[dims - 1], sizeof grids[0]);
}

/* +Inf (or -Inf) as a double, with no header: NVRTC compiles the source as it is. */
static KExpr *infinity(Kb *b, int negative)
{
    KExpr *inf = k_call(b, "__longlong_as_double", 1, k_int(b, 0x7ff0000000000000LL));
    return negative ? k_un(b, KO_NEG, inf) : inf;
}

KExpr *cg_red_neutral(Kb *b, IrReduceKind kind)
{
    return kind == RED_SUM ? k_cast(b, "double", k_int(b, 0)) : infinity(b, kind == RED_MAX);
}

KStmt *cg_red_fold(Kb *b, IrReduceKind kind, KExpr *acc, KExpr *x)
{
    if (kind == RED_SUM)
        return k_assign_add(b, acc, x);
    KExpr *beyond = k_bin(b, kind == RED_MIN ? KO_LT : KO_GT, x, acc);
    return k_assign(b, acc, k_select(b, k_or(b, k_bin(b, KO_NE, x, x), beyond), x, acc));
}

void cg_red_tree(Kb *b, KBlock *body, const CgRedTree *tr)
{
    for (int q = 0; q < tr->n; q++) {
        k_push(b, body, k_array(b, KQ_SHARED, "double", tr->names[q], tr->threads));
        k_push(b, body, k_assign(b, k_index(b, k_var(b, tr->names[q]), tr->t), tr->accs[q]));
    }
    k_push(b, body, k_barrier(b));
    for (int w = tr->threads / 2; w > 0; w /= 2) {
        KStmt *half = k_if(b, k_bin(b, KO_LT, tr->t, k_uint(b, w)));
        for (int q = 0; q < tr->n; q++) {
            KExpr *red = k_var(b, tr->names[q]);
            k_push(b, &half->body, cg_red_fold(b, tr->kinds[q], k_index(b, red, tr->t),
                                               k_index(b, red, k_add(b, tr->t, k_uint(b, w)))));
        }
        k_push(b, body, half);
        k_push(b, body, k_barrier(b));
    }
}

/* red[t] = acc, then the tree over the block: red[0] holds the block's value. */
static void block_tree(Kb *b, KBlock *body, IrReduceKind kind, KExpr *acc)
{
    const char *name = "red";
    CgRedTree tr = {1, &name, &kind, &acc, RED_THREADS, k_thread(b, 0)};
    cg_red_tree(b, body, &tr);
}

void cg_red_store_first(Kb *b, KBlock *body, KExpr *t, const char *red, const char *out, KExpr *at)
{
    KStmt *first = k_if(b, k_bin(b, KO_EQ, t, k_uint(b, 0)));
    k_push(b, &first->body, k_assign(b, k_index(b, k_var(b, out), at), k_index(b, k_var(b, red), k_int(b, 0))));
    k_push(b, body, first);
}

/* if (threadIdx.x == 0) out[at] = red[0]; */
static void store_first(Kb *b, KBlock *body, const char *out, KExpr *at)
{
    cg_red_store_first(b, body, k_thread(b, 0), "red", out, at);
}

/* The arguments of reduction r's partial kernel: its reads, params and sizes, then the scratch. */
static CgArgs partial_args(CgCtx *ctx, const IrReduce *r, int at)
{
    CgArgs a = {0};
    const IrStage *st = &r->stage;
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        if (n->op == N_READ && cg_args_find(&a, ARG_BUF, n->field, n->level, 0) < 0)
            cg_args_add(ctx, &a, (PlanArg){ARG_BUF, n->field, n->level, 0}, 0);
        if (n->op == N_PARAM && cg_args_find(&a, ARG_PARAM, 0, 0, n->param) < 0)
            cg_args_add(ctx, &a, (PlanArg){ARG_PARAM, 0, 0, n->param}, 0);
    }
    for (int d = 0; d < ctx->prog->dims; d++)
        cg_args_add(ctx, &a, (PlanArg){ARG_DIM, 0, 0, d}, 0);
    cg_coord_args(ctx, ir_stage_builtins(st), &a); /* x, y, z: the loops' i, j, k (kir_point.c) */
    cg_args_add(ctx, &a, (PlanArg){ARG_SCRATCH, 0, 0, at}, 1);
    return a;
}

static KKernel *reduce_kernel(CgCtx *ctx, const char *name, const CgArgs *a)
{
    KKernel *k = k_kernel(&ctx->kb, name, 0, RED_THREADS);
    cg_kernel_params(ctx, k, a);
    return k;
}

/* Whether some node of st is an op. */
static int has_op(const IrStage *st, IrOp op)
{
    for (int i = 0; i < st->nnodes; i++)
        if (st->nodes[i].op == op)
            return 1;
    return 0;
}

/* for (int c = start; c < n; c += step): the loop's body block. */
static KBlock *loop(Kb *b, KBlock *out, const char *c, KExpr *start, KExpr *n, int step)
{
    KStmt *f = k_for(b, c, start, n, k_int(b, step), 0);
    k_push(b, out, f);
    return &f->body;
}

/* The box parameters of a boxed partial kernel: box_lo<d>, box_n<d> per axis of the grid. */
static void box_params(Kb *b, KKernel *k, int dims)
{
    for (int d = 0; d < dims; d++)
        k_param(b, k, "int", arena_printf(b->arena, "box_lo%d", d), 0, 0);
    for (int d = 0; d < dims; d++)
        k_param(b, k, "int", arena_printf(b->arena, "box_n%d", d), 0, 0);
}

/* Reduction r's partial kernel: the interior in grid-stride loops, one partial per block. A
 * boxed kernel walks box_n[d] points from interior index box_lo[d] instead (the points of a
 * buffer of interior n, so its strides stay n's): a rank's owned points (emit_dist_reduce.c). */
static void build_partial(CgCtx *ctx, const IrReduce *r, const char *name, const CgArgs *a, int boxed)
{
    Kb *b = &ctx->kb;
    const IrProgram *p = ctx->prog;
    int g[3];
    reduce_grid(p->dims, g);
    KKernel *k = reduce_kernel(ctx, name, a);
    if (boxed)
        box_params(b, k, p->dims);
    k->comment = arena_printf(ctx->arena, "reduce %s = %s(...)%s: one partial per block, in a fixed order",
                              r->name, ir_reduce_kind_name(r->kind), boxed ? " over a box" : "");
    KExpr *s[3] = {0}, *at[3] = {0};
    cg_strides(ctx, &k->body, s);
    KExpr *acc = k_var(b, "acc");
    k_push(b, &k->body, k_decl(b, 0, "double", "acc", cg_red_neutral(b, r->kind)));
    static const char *const axis[3] = {"i", "j", "k"};
    KBlock *body = &k->body;
    for (int d = p->dims - 1; d >= 0; d--) {
        KExpr *start = d == 0 ? k_add(b, k_mul(b, k_block(b, 0), k_uint(b, RED_THREADS)), k_thread(b, 0))
                              : k_block(b, d);
        KExpr *first = k_cast(b, "int", start), *end = k_varf(b, "n%d", d);
        if (boxed) {
            first = k_add(b, k_varf(b, "box_lo%d", d), first);
            end = k_add(b, k_varf(b, "box_lo%d", d), k_varf(b, "box_n%d", d));
        }
        body = loop(b, body, axis[d], first, end, d == 0 ? g[0] * RED_THREADS : g[d]);
        at[d] = k_var(b, axis[d]);
    }
    ctx->kidx = k_let(b, body, "long long", "idx", cg_linear_index(ctx, at, s));
    if (!has_op(&r->stage, N_READ)) /* sum(1), max(a): no load uses the index */
        k_push(b, body, k_eval(b, k_cast(b, "void", ctx->kidx)));
    KExpr *v = cg_build_value(ctx, &r->stage, ir_reduce_node(r), body);
    ctx->kidx = NULL;
    KExpr *x = k_let(b, body, "double", "x", k_cast(b, "double", v));
    k_push(b, body, cg_red_fold(b, r->kind, acc, x));
    block_tree(b, &k->body, r->kind, acc);
    KExpr *block = k_add(b, k_block(b, 0), k_mul(b, k_uint(b, g[0]), k_add(b, k_block(b, 1), k_mul(b, k_uint(b, g[1]), k_block(b, 2)))));
    store_first(b, &k->body, "scratch", block);
    cg_add_kernel(ctx, k);
}

/* NAME_combine_KIND(scratch): the RED_BLOCKS partials at scratch into scratch[RED_BLOCKS]. */
static void build_final(CgCtx *ctx, IrReduceKind kind, const char *name)
{
    Kb *b = &ctx->kb;
    KKernel *k = k_kernel(b, name, 0, RED_THREADS);
    k->comment = arena_printf(ctx->arena, "the %d partials of a %s into one value, in a fixed order", RED_BLOCKS,
                              ir_reduce_kind_name(kind));
    k_param(b, k, "double", "scratch", 1, 1);
    block_tree(b, &k->body, kind, k_index(b, k_var(b, "scratch"), k_thread(b, 0)));
    store_first(b, &k->body, "scratch", k_int(b, RED_BLOCKS));
    cg_add_kernel(ctx, k);
}

static PlanLaunch reduce_launch(const char *kernel, const int g[3], const CgArgs *a)
{
    PlanLaunch l = {.kernel = kernel, .block = {RED_THREADS, 1, 1}, .args = a->args, .nargs = a->nargs};
    for (int d = 0; d < 3; d++) {
        l.tile[d] = 1;
        l.axis_of[d] = -1; /* no axis: 1 + extra blocks */
        l.extra[d] = g[d] - 1;
    }
    return l;
}

void cg_build_reductions(CgCtx *ctx, Plan *plan)
{
    const IrProgram *p = ctx->prog;
    if (!p->nreduces)
        return;
    int g[3], one[3] = {1, 1, 1}, built[3] = {0, 0, 0}, fused = 0;
    reduce_grid(p->dims, g);
    for (int i = 0; i < p->nreduces; i++) {
        const IrReduce *r = &p->reduces[i];
        const char *name = arena_printf(ctx->arena, "%s_reduce_%s", ctx->prefix, cg_c_identifier(ctx->arena, r->name));
        const char *final = arena_printf(ctx->arena, "%s_combine_%s", ctx->prefix, ir_reduce_kind_name(r->kind));
        int at = PLAN_REDUCE_SLOT(i);
        CgArgs a = partial_args(ctx, r, at), fa = {0};
        build_partial(ctx, r, name, &a, 0);
        if (!built[r->kind]++)
            build_final(ctx, r->kind, final);
        cg_args_add(ctx, &fa, (PlanArg){ARG_SCRATCH, 0, 0, at}, 1);
        PlanLaunch partial = reduce_launch(name, g, &a), combine = reduce_launch(final, one, &fa);
        *ARENA_PUSH(ctx->arena, plan->reduce, plan->nreduce, plan->cap_reduce) = partial;
        *ARENA_PUSH(ctx->arena, plan->reduce, plan->nreduce, plan->cap_reduce) = combine;
        if (!plan->nfused_reduces)
            continue;
        if (plan->reduce_fused[i]) { /* after the fused step: its partials combined */
            const char *fn = arena_printf(ctx->arena, "%s_fused_%s", ctx->prefix, cg_c_identifier(ctx->arena, r->name));
            CgArgs ca = cg_build_fused_combine(ctx, plan, i, fused++, fn);
            *ARENA_PUSH(ctx->arena, plan->after, plan->nafter, plan->cap_after) = reduce_launch(fn, one, &ca);
        } else {
            *ARENA_PUSH(ctx->arena, plan->after, plan->nafter, plan->cap_after) = partial;
            *ARENA_PUSH(ctx->arena, plan->after, plan->nafter, plan->cap_after) = combine;
        }
    }
}

void cg_build_reduce_boxes(CgCtx *ctx)
{
    const IrProgram *p = ctx->prog;
    for (int i = 0; i < p->nreduces; i++) {
        const IrReduce *r = &p->reduces[i];
        CgArgs a = partial_args(ctx, r, PLAN_REDUCE_SLOT(i));
        build_partial(ctx, r, cg_reduce_box_name(ctx->arena, ctx->prefix, r), &a, 1);
    }
}

const char *cg_reduce_box_name(Arena *arena, const char *prefix, const IrReduce *r)
{
    return arena_printf(arena, "%s_reduce_%s_box", prefix, cg_c_identifier(arena, r->name));
}
