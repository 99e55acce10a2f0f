/* The tile pass's pieces around the points (opt_tile.c builds the points): staging the tile
 * into shared memory, the constants in constant memory, the vector alignment check and the halo
 * columns (hcol). */
#include "opt_tile_build.h"

#include <stdio.h>
#include <string.h>

KExpr *tile_thread_rank(Kb *b, const TileGeom *g)
{
    KExpr *x = k_cast(b, "int", k_thread(b, 0));
    if (g->tb[1] == 1 && g->tb[2] == 1)
        return x;
    KExpr *yz = k_add(b, k_cast(b, "int", k_thread(b, 1)), k_mul(b, k_int(b, g->tb[1]), k_cast(b, "int", k_thread(b, 2))));
    return k_add(b, x, k_mul(b, k_int(b, g->tb[0]), yz));
}

/* Cooperative copy of each staged array's box (tile plus halo) into shared memory, positions
 * beyond the padded buffer holding 0 (no point inside the grid reads them). The box is walked
 * linearly by the block's threads (consecutive threads, consecutive x: coalesced), in chunks of
 * up to TILE_STAGE_BATCH loads issued before their stores, so that many loads are in flight
 * instead of one latency per row. */
enum { TILE_STAGE_BATCH = 8 };

typedef struct {
    long elems;
    int batch, threads, full;
} StageChunk;

/* Box coordinate d of element t (x fastest, as the array is laid out), from the tile origin. */
static KExpr *box_coord(CgCtx *ctx, const TileArray *t, int d, KExpr *tq)
{
    Kb *b = &ctx->kb;
    KExpr *u = k_cast(b, "unsigned", tq), *at;
    if (d == 0)
        at = k_bin(b, KO_MOD, u, k_uint(b, t->ext[0]));
    else if (d == 1 && ctx->prog->dims >= 3)
        at = k_bin(b, KO_MOD, k_bin(b, KO_DIV, u, k_uint(b, t->ext[0])), k_uint(b, t->ext[1]));
    else
        at = k_bin(b, KO_DIV, u, k_uint(b, d == 1 ? t->ext[0] : t->ext[0] * t->ext[1]));
    return k_add(b, k_plus(b, k_varf(b, "o%d", d), t->lo[d]), k_cast(b, "int", at));
}

/* Load q of a chunk: t<q>_, its box coordinates and its value v<q>_ (0 beyond the buffer). */
static void stage_load(CgCtx *ctx, KBlock *out, const TileArray *t, const StageChunk *ch, int q, KExpr *s[3])
{
    Kb *b = &ctx->kb;
    const IrProgram *p = ctx->prog;
    static const char gv[3][3] = {"gi", "gj", "gk"};
    KExpr *tq = k_let(b, out, "int", arena_printf(ctx->arena, "t%d_", q), k_plus(b, k_var(b, "t0"), (long long)q * ch->threads));
    KExpr *c[3] = {0}, *inside = ch->full ? NULL : k_bin(b, KO_LT, tq, k_int(b, ch->elems));
    for (int d = 0; d < p->dims; d++) {
        c[d] = k_let(b, out, "int", arena_printf(ctx->arena, "%s%d", gv[d], q), box_coord(ctx, t, d, tq));
        inside = k_and(b, inside, k_bin(b, KO_LT, c[d], k_plus(b, k_varf(b, "n%d", d), p->halo[d])));
    }
    KExpr *load = k_index(b, cg_buf(ctx, t->field, t->level), cg_linear_index(ctx, c, s));
    k_let(b, out, ctx->T, arena_printf(ctx->arena, "v%d_", q), k_select(b, inside, load, k_cast(b, ctx->T, k_int(b, 0))));
}

static void stage_array(CgCtx *ctx, KBlock *out, const TileGeom *g, int a, KExpr *s[3])
{
    Kb *b = &ctx->kb;
    const TileArray *t = &g->arr[a];
    StageChunk ch = {(long)t->ext[0] * t->ext[1] * t->ext[2], 0, g->tb[0] * g->tb[1] * g->tb[2], 0};
    long iters = (ch.elems + ch.threads - 1) / ch.threads;
    ch.batch = iters < TILE_STAGE_BATCH ? (int)iters : TILE_STAGE_BATCH;
    long chunks = (iters + ch.batch - 1) / ch.batch;
    ch.full = ch.elems % ((long)ch.threads * ch.batch) == 0; /* every guard t < elems holds */
    KExpr *buf = cg_buf(ctx, t->field, t->level);
    k_push(b, out, k_comment(b, arena_printf(ctx->arena, "%s: %d x %d x %d elements", buf->name, t->ext[0], t->ext[1], t->ext[2])));
    KStmt *loop = chunks > 1 ? k_for(b, "c", k_int(b, 0), k_int(b, chunks), NULL, 1) : k_scope(b);
    KExpr *t0 = k_var(b, "tid");
    if (chunks > 1)
        t0 = k_add(b, t0, k_mul(b, k_var(b, "c"), k_int(b, (long long)ch.threads * ch.batch)));
    k_let(b, &loop->body, "int", "t0", t0);
    for (int q = 0; q < ch.batch; q++)
        stage_load(ctx, &loop->body, t, &ch, q, s);
    for (int q = 0; q < ch.batch; q++) {
        KExpr *tq = k_varf(b, "t%d_", q);
        KStmt *st = k_assign(b, k_index(b, k_varf(b, "sm%d", a), tq), k_varf(b, "v%d_", q));
        if (!ch.full) {
            KStmt *guard = k_if(b, k_bin(b, KO_LT, tq, k_int(b, ch.elems)));
            k_push(b, &guard->body, st);
            st = guard;
        }
        k_push(b, &loop->body, st);
    }
    k_push(b, out, loop);
}

void tile_staging(CgCtx *ctx, KBlock *out, const TileGeom *g, KExpr *s[3])
{
    Kb *b = &ctx->kb;
    k_let(b, out, "int", "tid", tile_thread_rank(b, g));
    for (int a = 0; a < g->narr; a++)
        if (g->arr[a].staged)
            stage_array(ctx, out, g, a, s);
    k_push(b, out, k_barrier(b));
}

/* The stage's distinct non-trivial constants, in order of first use. */
static int collect_constants(const IrStage *st, double *values)
{
    int nv = 0;
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        if (n->op != N_CONST || !tile_const_nontrivial(n->value))
            continue;
        int k = 0;
        while (k < nv && values[k] != n->value)
            k++;
        if (k == nv)
            values[nv++] = n->value;
    }
    return nv;
}

/* The program with the stage's constants turned into reads of the parameters "<kernel>_c[k]". */
static IrProgram *constants_as_params(CgCtx *ctx, const IrProgram *p, int stage, const char *name,
                                      const double *values, int nv)
{
    IrProgram *copy = arena_alloc(ctx->arena, sizeof *copy);
    *copy = *p;
    copy->params = arena_alloc(ctx->arena, sizeof(IrParam) * (size_t)(p->nparams + nv));
    if (p->nparams)
        memcpy(copy->params, p->params, sizeof(IrParam) * (size_t)p->nparams);
    for (int k = 0; k < nv; k++) {
        copy->params[p->nparams + k].name = arena_printf(ctx->arena, "%s_c[%d]", name, k);
        copy->params[p->nparams + k].used = 1;
    }
    copy->nparams = p->nparams + nv;
    copy->stages = arena_alloc(ctx->arena, sizeof(IrStage) * (size_t)p->nstages);
    memcpy(copy->stages, p->stages, sizeof(IrStage) * (size_t)p->nstages);
    IrStage *cs = &copy->stages[stage];
    cs->nodes = arena_alloc(ctx->arena, sizeof(IrNode) * (size_t)(cs->nnodes + 1));
    memcpy(cs->nodes, p->stages[stage].nodes, sizeof(IrNode) * (size_t)cs->nnodes);
    for (int i = 0; i < cs->nnodes; i++) {
        IrNode *n = &cs->nodes[i];
        if (n->op != N_CONST || !tile_const_nontrivial(n->value))
            continue;
        int k = 0;
        while (values[k] != n->value)
            k++;
        n->op = N_PARAM;
        n->param = p->nparams + k;
    }
    return copy;
}

const IrProgram *tile_constants_to_cmem(CgCtx *ctx, const IrProgram *p, int stage, const char *name)
{
    int nconst = tile_const_count(p, stage);
    if (nconst == 0)
        return p;
    double *values = arena_alloc(ctx->arena, sizeof(double) * (size_t)nconst);
    int nv = collect_constants(&p->stages[stage], values);
    Kb *b = &ctx->kb;
    KStmt *arr = k_array(b, KQ_CONSTANT, ctx->T, arena_printf(ctx->arena, "p_%s_c", name), nv);
    for (int k = 0; k < nv; k++)
        k_push_init(b, arr, k_real(b, values[k]));
    cg_add_global(ctx, arr);
    return constants_as_params(ctx, p, stage, name, values, nv);
}

KExpr *tile_vector_check(CgCtx *ctx, const TileGeom *g, const CgArgs *args, KExpr *s[3])
{
    Kb *b = &ctx->kb;
    KExpr *ptrs = NULL;
    for (int a = 0; a < args->nargs; a++) {
        if (args->args[a].kind != ARG_BUF)
            continue;
        KExpr *ptr = k_cast(b, "unsigned long long", cg_buf(ctx, args->args[a].field, args->args[a].level));
        ptrs = ptrs ? k_bin(b, KO_BOR, ptrs, ptr) : ptr;
    }
    if (!ptrs)
        ptrs = k_uint(b, 0);
    unsigned bytes = (unsigned)(g->vec * ir_elem_size(ctx->prog));
    KExpr *aligned = k_bin(b, KO_EQ, k_bin(b, KO_MOD, ptrs, k_uint(b, bytes)), k_int(b, 0));
    if (g->dims >= 2)
        aligned = k_and(b, k_bin(b, KO_EQ, k_bin(b, KO_MOD, s[1], k_int(b, g->vec)), k_int(b, 0)), aligned);
    return aligned;
}

/* The stores of one halo-column row for write w's field: lo and hi ends. */
static void halo_column_copies(CgCtx *ctx, KBlock *out, int f)
{
    Kb *b = &ctx->kb;
    const IrProgram *p = ctx->prog;
    KExpr *row = k_var(b, "row"), *n0 = k_var(b, "n0");
    for (int c = 0; c < p->halo[0]; c++) {
        KStmt *lo = k_if(b, k_var(b, "lo")), *hi = k_if(b, k_var(b, "hi"));
        k_push(b, &lo->body, k_assign(b, k_index(b, cg_buf(ctx, f, 1), k_plus(b, row, c)),
                                      k_index(b, cg_buf(ctx, f, 0), k_plus(b, row, c))));
        KExpr *at = k_plus(b, k_add(b, row, n0), p->halo[0] + c);
        k_push(b, &hi->body, k_assign(b, k_index(b, cg_buf(ctx, f, 1), at), k_index(b, cg_buf(ctx, f, 0), at)));
        k_push(b, out, lo);
        k_push(b, out, hi);
    }
}

/* The loop over the block's rows: each thread takes rows htid, htid + threads, ... */
static KStmt *halo_rows(CgCtx *ctx, const TileGeom *g, KExpr *s[3])
{
    Kb *b = &ctx->kb;
    const IrProgram *p = ctx->prog;
    int rows = g->tile[1] * (p->dims >= 3 ? g->tile[2] : 1);
    KStmt *loop = k_for(b, "r", k_var(b, "htid"), k_int(b, rows), k_int(b, g->tb[0] * g->tb[1] * g->tb[2]), 0);
    KExpr *r = k_var(b, "r"), *c[3] = {k_int(b, 0), NULL, NULL};
    c[1] = k_let(b, &loop->body, "int", "j", k_add(b, k_var(b, "o1"), k_bin(b, KO_MOD, r, k_int(b, g->tile[1]))));
    KExpr *outside = k_bin(b, KO_GE, c[1], k_var(b, "n1"));
    if (p->dims >= 3) {
        c[2] = k_let(b, &loop->body, "int", "k", k_add(b, k_var(b, "o2"), k_bin(b, KO_DIV, r, k_int(b, g->tile[1]))));
        outside = k_or(b, outside, k_bin(b, KO_GE, c[2], k_var(b, "n2")));
    }
    KStmt *skip = k_if(b, outside);
    k_push(b, &skip->body, k_continue(b));
    k_push(b, &loop->body, skip);
    KExpr *row = k_mul(b, k_cast(b, "long long", k_plus(b, c[1], p->halo[1])), s[1]);
    if (p->dims >= 3)
        row = k_add(b, k_mul(b, k_cast(b, "long long", k_plus(b, c[2], p->halo[2])), s[2]), row);
    k_let(b, &loop->body, "long long", "row", row);
    return loop;
}

/* hcol=on: the halo columns of the rows the block writes, stored again with the values they
 * hold. A step writes a row's interior only, so the sectors at its two ends (a row of n0 + 2 h0
 * elements rarely ends on a 32-byte boundary) are written in part, and a partly written sector
 * can cost the memory system more than a whole one. For a state field with a fixed boundary
 * every buffer holds the same halo (docs/c-api.md), so the block that holds x = 0 (or x = n0 - 1)
 * copies the newest buffer's halo columns of its rows into the buffer it writes, completing those
 * sectors. It pays on some kernels and not others (docs/performance.md), so it is a parameter.
 * Fields of other boundaries have their halo filled after the step. */
void tile_halo_columns(CgCtx *ctx, KBlock *out, const TileGeom *g, KExpr *s[3])
{
    Kb *b = &ctx->kb;
    const IrStage *st = &ctx->prog->stages[ctx->stage];
    if (ctx->cfg->v[P_HCOL] != 2)
        return;
    KStmt *loop = halo_rows(ctx, g, s);
    int any = 0;
    for (int w = 0; w < st->nwrites; w++) {
        if (!tile_halo_column_field(ctx->prog, ctx->stage, w))
            continue; /* it qualifies only when read at step t: its newest buffer is an argument */
        halo_column_copies(ctx, &loop->body, st->writes[w].field);
        any = 1;
    }
    if (!any)
        return;
    KExpr *o0 = k_var(b, "o0"), *last = k_plus(b, k_var(b, "n0"), -1);
    k_push(b, out, k_comment(b, "the halo columns of the block's rows: whole sectors at the rows' ends"));
    k_let(b, out, "bool", "lo", k_bin(b, KO_LE, o0, k_int(b, 0)));
    k_let(b, out, "bool", "hi", k_and(b, k_bin(b, KO_LE, o0, last), k_bin(b, KO_GT, k_plus(b, o0, g->tile[0]), last)));
    KStmt *either = k_if(b, k_or(b, k_var(b, "lo"), k_var(b, "hi")));
    k_let(b, &either->body, "int", "htid", tile_thread_rank(b, g));
    k_push(b, &either->body, loop);
    k_push(b, out, either);
}
