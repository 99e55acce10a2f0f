/* Reductions folded by the step (docs/c-api.md, NAME_run_reduce). A reduction reads the fields
 * after the step; the kernel that writes the last stage has, at each point it writes, the new
 * values of the fields that stage writes (in registers, at offset 0) and every buffer the step
 * leaves as it is (coefs, state fields it does not write, the step's level 0, which is the level
 * -1 after it). A reduction that reads nothing else is fusable: each thread of that kernel
 * folds it over the points it writes, the block leaves one partial (a tree in shared memory, as
 * the separate pass's), and NAME_fused_R combines the partials of the blocks in a fixed order
 * (thread t folds partials t, t + 256, ..., then the tree), so a value is the same on every run
 * of one grid and configuration. A family's kernel builder makes its fused form with ctx->fold
 * set: cg_fold_begin, cg_point's fold at each point (cg_fold_point), cg_fold_end. The plain,
 * tile and streaming families have one (a streaming thread folds the points of its column in
 * the order it walks them); the fused step is the plan's own step, or under temporal blocking
 * its single step (the one that runs the steps left over by the fused ones). */
#include "emit_reduce.h"
#include "opt_stream.h"
#include "pass.h"

#include <stdio.h>
#include <string.h>

enum {
    FUSED_COMBINE_THREADS = PLAN_REDUCE_PARTIALS,
    FUSED_MAX = 4,            /* reductions folded by one step: a tree's shared array each */
    FUSED_SMEM = 96 * 1024,   /* a tile's staging and the trees together, bytes */
};

/* The index of field's write among the stored writes of stage st (as cg_build_point lists
 * them), or -1. */
static int stored_write(const IrProgram *p, const IrStage *st, int field)
{
    for (int w = 0, at = 0; w < st->nwrites; w++) {
        if (!cg_field_stored(p, st->writes[w].field))
            continue;
        if (st->writes[w].field == field)
            return at;
        at++;
    }
    return -1;
}

int cg_reduce_fusable(const IrProgram *p, int r, char *why, int whylen)
{
    const IrStage *st = &p->reduces[r].stage;
    static const char axis[] = "xyz";
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        int ws = n->op == N_READ && n->level == 0 ? cg_writing_stage(p, n->field) : -1;
        if (ws < 0)
            continue; /* a buffer the step leaves as it is */
        const char *name = p->fields[n->field].name;
        if (ws != p->nstages - 1) {
            if (why)
                snprintf(why, (size_t)whylen, "it reads %s, which stage %d writes, not the last", name, ws);
            return 0;
        }
        for (int d = 0; d < 3; d++)
            if (n->off[d]) {
                if (why)
                    snprintf(why, (size_t)whylen, "it reads the new %s %d point%s away along %c, which another "
                             "thread computes", name, n->off[d] < 0 ? -n->off[d] : n->off[d],
                             n->off[d] == 1 || n->off[d] == -1 ? "" : "s", axis[d]);
                return 0;
            }
    }
    return 1;
}

/* Why the kernels of cfg cannot fold n reductions (into why), or 0 when they can: the plain,
 * tile and streaming families have a fused form; the trees' shared arrays must fit beside a
 * tile's staging (FUSED_SMEM in all) or the streaming kernel's planes (what a block may opt in
 * to). */
static int family_refuses(const Plan *plan, const Config *cfg, int n, char *why, int whylen)
{
    const char *family = cg_pass_for(cfg)->name;
    int tile = strcmp(family, "tile") == 0, stream = strcmp(family, "stream") == 0;
    if (!tile && !stream && strcmp(family, "plain") != 0) {
        snprintf(why, (size_t)whylen, "the %s kernels have no fused form", family);
        return 1;
    }
    int staged = 0, trees = n * cfg->v[P_TBX] * cfg->v[P_TBY] * cfg->v[P_TBZ] * (int)sizeof(double);
    for (int i = 0; (tile || stream) && i < plan->nstep; i++) /* cfg is the plan's */
        staged = plan->step[i].smem_bytes > staged ? plan->step[i].smem_bytes : staged;
    int limit = stream ? STREAM_SMEM_LIMIT : FUSED_SMEM;
    if (staged + trees > limit) {
        snprintf(why, (size_t)whylen, "the %s %d bytes of shared memory leave no room for the trees of %d "
                 "fused reductions (%d bytes; at most %d in all)", stream ? "streaming kernel's" : "tile's",
                 staged, n, trees, limit);
        return 1;
    }
    return 0;
}

void cg_choose_fused(CgCtx *ctx, Plan *plan, const Config *cfg)
{
    const IrProgram *p = ctx->prog;
    StrBuf note = {0};
    plan->nfused_reduces = 0;
    if (!p->nreduces)
        return;
    plan->reduce_fused = arena_alloc(ctx->arena, (size_t)p->nreduces);
    int fusable = 0;
    for (int r = 0; r < p->nreduces; r++)
        fusable += cg_reduce_fusable(p, r, NULL, 0);
    char refused[240] = "";
    int refuses = family_refuses(plan, cfg, fusable < FUSED_MAX ? fusable : FUSED_MAX, refused, sizeof refused);
    for (int r = 0; r < p->nreduces; r++) {
        char why[240] = "";
        int fuse = cg_reduce_fusable(p, r, why, sizeof why);
        if (fuse && refuses)
            fuse = 0, snprintf(why, sizeof why, "%s", refused);
        else if (fuse && plan->nfused_reduces == FUSED_MAX)
            fuse = 0, snprintf(why, sizeof why, "at most %d reductions are fused into one step", FUSED_MAX);
        if (fuse)
            plan->reduce_fused[r] = 1, plan->nfused_reduces++;
        sb_printf(&note, "\n *   %s: %s%s.", p->reduces[r].name, fuse ? "fused" : "separate: ", fuse ? "" : why);
    }
    plan->fused_note = arena_strdup(ctx->arena, note.data);
    sb_free(&note);
}

/* A read of a fused reduction in the last stage's kernel: the new value of a field the stage
 * writes, else the buffer the step leaves as it is (level -1 after the step is its level 0). */
static KExpr *fused_read(CgCtx *ctx, const IrNode *n)
{
    const IrProgram *p = ctx->prog;
    if (n->level == 0 && cg_writing_stage(p, n->field) >= 0)
        return k_varf(&ctx->kb, "nv%d", stored_write(p, &p->stages[ctx->stage], n->field));
    IrNode before = *n;
    before.level = 0;
    return cg_global_read(ctx, &before, cg_point_index(ctx));
}

void cg_fused_args(CgCtx *ctx, const Plan *plan, CgArgs *a)
{
    const IrProgram *p = ctx->prog;
    int uses = 0;
    for (int r = 0; r < p->nreduces; r++) {
        const IrStage *st = &p->reduces[r].stage;
        if (!plan->reduce_fused[r])
            continue;
        for (int i = 0; i < st->nnodes; i++) {
            const IrNode *n = &st->nodes[i];
            if (n->op == N_READ && !(n->level == 0 && cg_writing_stage(p, n->field) >= 0)
                && cg_args_find(a, ARG_BUF, n->field, 0, 0) < 0)
                cg_args_add(ctx, a, (PlanArg){ARG_BUF, n->field, 0, 0}, 0);
            if (n->op == N_PARAM && cg_args_find(a, ARG_PARAM, 0, 0, n->param) < 0)
                cg_args_add(ctx, a, (PlanArg){ARG_PARAM, 0, 0, n->param}, 0);
        }
        uses |= ir_stage_builtins(st);
    }
    cg_coord_args(ctx, uses, a);
    cg_args_add(ctx, a, (PlanArg){ARG_SCRATCH, 0, 0, PLAN_REDUCE_SLOT(p->nreduces)}, 1);
}

/* at[0] + extent[0] * (at[1] + extent[1] * at[2]) over the axes d with use[d] (the others'
 * index is 0): a thread's place in its block, or a block's in the grid, x fastest. */
static KExpr *linear(Kb *b, KExpr *const at[3], KExpr *const extent[3], const int use[3])
{
    KExpr *e = NULL;
    for (int d = 2; d >= 0; d--)
        if (use[d])
            e = e ? k_add(b, at[d], k_mul(b, extent[d], e)) : at[d];
    return e;
}

/* The fused reductions' accumulators acc<q>. */
static KExpr *accumulator(CgCtx *ctx, int q) { return k_var(&ctx->kb, arena_printf(ctx->arena, "acc%d", q)); }

void cg_fold_begin(CgCtx *ctx, KBlock *body)
{
    const IrProgram *p = ctx->prog;
    for (int r = 0, q = 0; r < p->nreduces; r++)
        if (ctx->fold->reduce_fused[r]) {
            k_push(&ctx->kb, body, k_decl(&ctx->kb, 0, "double", accumulator(ctx, q)->name,
                                          cg_red_neutral(&ctx->kb, p->reduces[r].kind)));
            q++;
        }
}

void cg_fold_point(CgCtx *ctx, KBlock *out, const CgPointStores *stores)
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    for (int w = 0; w < stores->n; w++) {
        KExpr *nv = k_let(b, out, ctx->T, arena_printf(ctx->arena, "nv%d", w), stores->items[w].value);
        if (ctx->kstore)
            ctx->kstore(ctx, out, w, stores->items[w].array, nv);
        else
            k_push(b, out, k_assign(b, k_index(b, stores->items[w].array, cg_point_index(ctx)), nv));
    }
    CgReadFn saved = ctx->kread;
    ctx->kread = fused_read;
    for (int r = 0, q = 0; r < p->nreduces; r++) {
        if (!ctx->fold->reduce_fused[r])
            continue;
        KStmt *scope = k_scope(b); /* its shared nodes are vN, as the stage's */
        KExpr *v = cg_build_value(ctx, &p->reduces[r].stage, ir_reduce_node(&p->reduces[r]), &scope->body);
        KExpr *x = k_let(b, &scope->body, "double", "x", k_cast(b, "double", v));
        k_push(b, &scope->body, cg_red_fold(b, p->reduces[r].kind, accumulator(ctx, q++), x));
        k_push(b, out, scope);
    }
    ctx->kread = saved;
}

void cg_fold_end(CgCtx *ctx, KBlock *body, const int block[3], const int tile[3], const int extra[3])
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    int nf = ctx->fold->nfused_reduces;
    KExpr *thread[3], *tb[3], *blk[3], *nb[3] = {0};
    int in_block[3], in_grid[3];
    for (int d = 0; d < 3; d++) {
        thread[d] = k_thread(b, d);
        tb[d] = k_uint(b, block[d]);
        in_block[d] = d == 0 || block[d] > 1;
        blk[d] = k_cast(b, "long long", k_block(b, d));
        in_grid[d] = d < p->dims;
        if (d < p->dims)
            nb[d] = k_cast(b, "long long", k_bin(b, KO_DIV, k_plus(b, k_varf(b, "n%d", d), extra[d] + tile[d] - 1),
                                                 k_int(b, tile[d])));
    }
    const char **names = arena_alloc(ctx->arena, sizeof *names * (size_t)nf);
    IrReduceKind *kinds = arena_alloc(ctx->arena, sizeof *kinds * (size_t)nf);
    KExpr **accs = arena_alloc(ctx->arena, sizeof *accs * (size_t)nf);
    for (int r = 0, q = 0; r < p->nreduces; r++)
        if (ctx->fold->reduce_fused[r]) {
            names[q] = arena_printf(ctx->arena, "red%d", q);
            kinds[q] = p->reduces[r].kind;
            accs[q] = accumulator(ctx, q);
            q++;
        }
    k_push(b, body, k_comment(b, "the fused reductions: a tree over the block, one partial per block"));
    KExpr *t = k_let(b, body, "unsigned", "t", linear(b, thread, tb, in_block));
    CgRedTree tr = {nf, names, kinds, accs, block[0] * block[1] * block[2], t};
    cg_red_tree(b, body, &tr);
    KStmt *first = k_if(b, k_bin(b, KO_EQ, t, k_uint(b, 0)));
    KExpr *part = k_let(b, &first->body, "long long", "part", k_mul(b, linear(b, blk, nb, in_grid), k_int(b, nf)));
    for (int q = 0; q < nf; q++)
        k_push(b, &first->body, k_assign(b, k_index(b, k_var(b, "scratch"), k_plus(b, part, q)),
                                         k_index(b, k_var(b, names[q]), k_int(b, 0))));
    k_push(b, body, first);
}

/* NAME_fused_R(scratch, n...): the fused step's partials of reduction r (the q-th fused) into its
 * value, scratch[PLAN_REDUCE_VALUE(r)]; returns its arguments. */
CgArgs cg_build_fused_combine(CgCtx *ctx, const Plan *plan, int r, int q, const char *name)
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    CgArgs a = {0};
    cg_args_add(ctx, &a, (PlanArg){ARG_SCRATCH, 0, 0, 0}, 1);
    for (int d = 0; d < p->dims; d++)
        cg_args_add(ctx, &a, (PlanArg){ARG_DIM, 0, 0, d}, 0);
    KKernel *k = k_kernel(b, name, 0, FUSED_COMBINE_THREADS);
    cg_kernel_params(ctx, k, &a);
    IrReduceKind kind = p->reduces[r].kind;
    k->comment = arena_printf(ctx->arena, "the fused step's partials of %s = %s(...) into its value, in a fixed order",
                              p->reduces[r].name, ir_reduce_kind_name(kind));
    KExpr *parts = NULL;
    for (int d = 0; d < p->dims; d++) {
        int t = plan->fused_tile[d];
        KExpr *nd = k_bin(b, KO_DIV, k_plus(b, k_varf(b, "n%d", d), plan->fused_extra[d] + t - 1), k_int(b, t));
        parts = parts ? k_mul(b, parts, nd) : nd;
    }
    parts = k_let(b, &k->body, "int", "parts", parts);
    KExpr *acc = k_var(b, "acc");
    k_push(b, &k->body, k_decl(b, 0, "double", "acc", cg_red_neutral(b, kind)));
    KStmt *loop = k_for(b, "c", k_cast(b, "int", k_thread(b, 0)), parts, k_int(b, FUSED_COMBINE_THREADS), 0);
    KExpr *at = k_plus(b, k_mul(b, k_cast(b, "long long", k_var(b, "c")), k_int(b, plan->nfused_reduces)),
                       PLAN_REDUCE_SLOT(p->nreduces) + q);
    k_push(b, &loop->body, cg_red_fold(b, kind, acc, k_index(b, k_var(b, "scratch"), at)));
    k_push(b, &k->body, loop);
    const char *red = "red";
    CgRedTree tr = {1, &red, &kind, &acc, FUSED_COMBINE_THREADS, k_thread(b, 0)};
    cg_red_tree(b, &k->body, &tr);
    cg_red_store_first(b, &k->body, k_thread(b, 0), red, "scratch", k_int(b, PLAN_REDUCE_VALUE(r)));
    cg_add_kernel(ctx, k);
    return a;
}
