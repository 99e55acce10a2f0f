/* The stream pass with retiming (retime=on), for a stage whose stored write is a weighted sum
 * of reads. Each incoming plane is staged once in shared memory (two slots, one barrier per
 * plane); every thread reads its in-plane neighbourhood of that plane once and adds its
 * contributions to the partial sums of the 2R+1 output planes that need it (accumulators
 * a0..a2R: a0 is the oldest output, complete when the incoming plane is R planes past it, then
 * stored and the ring rotates). A box stencil thus needs one staged plane instead of 2R+1 and
 * (2R+1)^2 shared reads per point instead of (2R+1)^3. The sum is re-associated: results match
 * the plain kernel to rounding.
 *
 * With bm > 1 (3D) a thread computes bm adjacent rows along the other in-plane axis (ab): the
 * tile grows to tbb*bm rows, and each of the (bm+2R_ab) x (2R_x+1) values around the thread's
 * rows is read once from the staged plane and added to every row's partial sums that need it
 * (a<j>_<o> for row o), so a 3x3x3 box reads 6 values per point with two rows, 4.5 with four,
 * instead of 9.
 *
 * With async (async=on) no plane passes through registers: each thread copies its tile cells of
 * plane t + 2 into a third slot by asynchronous copies (KS_COPY), issued after plane t's barrier
 * into the slot plane t - 1 used, so two planes are in flight while one is read. */
#include "opt_stream_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef CgLinTerm LinTerm;

typedef struct {
    LinTerm *t;
    int n, cap;
    Arena *arena;
    const char *bad; /* the first non-linear construct met */
} LinSum;

/* A product of parameters, their indices ascending. */
typedef struct {
    int n, p[CG_LIN_PARAMS];
} Mono;

static int same_term(const LinTerm *t, const IrNode *n, const Mono *m)
{
    return t->field == n->field && t->level == n->level && !memcmp(t->off, n->off, sizeof t->off) &&
           t->nparams == m->n && !memcmp(t->params, m->p, sizeof(int) * (size_t)m->n);
}

static void add_term(LinSum *ls, const IrNode *n, double c, const Mono *m)
{
    for (int i = 0; i < ls->n; i++) {
        if (same_term(&ls->t[i], n, m)) {
            ls->t[i].c += c;
            return;
        }
    }
    if (ls->n == ls->cap) {
        int cap = ls->cap ? 2 * ls->cap : 64;
        LinTerm *nt = ls->arena ? arena_alloc(ls->arena, sizeof *nt * (size_t)cap)
                                : malloc(sizeof *nt * (size_t)cap);
        if (!nt) {
            ls->bad = "out of memory";
            return;
        }
        if (ls->n)
            memcpy(nt, ls->t, sizeof *nt * (size_t)ls->n);
        if (!ls->arena)
            free(ls->t);
        ls->t = nt;
        ls->cap = cap;
    }
    LinTerm *t = &ls->t[ls->n++];
    memset(t, 0, sizeof *t);
    t->field = n->field;
    t->level = n->level;
    memcpy(t->off, n->off, sizeof t->off);
    t->c = c;
    t->nparams = m->n;
    memcpy(t->params, m->p, sizeof(int) * (size_t)m->n);
}

/* m times parameter k, kept ascending; 0 when m is full. */
static int mono_times(Mono *m, int k)
{
    if (m->n == CG_LIN_PARAMS)
        return 0;
    int i = m->n++;
    for (; i > 0 && m->p[i - 1] > k; i--)
        m->p[i] = m->p[i - 1];
    m->p[i] = k;
    return 1;
}

static int is_const(const IrStage *st, int i, double *v)
{
    if (i < 0 || st->nodes[i].op != N_CONST)
        return 0;
    *v = st->nodes[i].value;
    return isfinite(*v);
}

/* Whether node i is a product of constants and parameters: its constant factor into *v, its
 * parameters into m. */
static int scalar_factor(const IrStage *st, int i, double *v, Mono *m)
{
    const IrNode *n = &st->nodes[i];
    double a = 1, b = 1;
    if (n->op == N_CONST)
        return is_const(st, i, v);
    if (n->op == N_PARAM) {
        *v = 1;
        return mono_times(m, n->param);
    }
    if (n->op != N_MUL || !scalar_factor(st, n->a, &a, m) || !scalar_factor(st, n->b, &b, m))
        return 0;
    *v = a * b;
    return 1;
}

/* Adds scale * m * node i to ls; records a reason when the node is not linear in reads. */
static void linearize(const IrProgram *p, const IrStage *st, int i, double scale, Mono m, LinSum *ls)
{
    if (ls->bad)
        return;
    const IrNode *n = &st->nodes[i];
    double v;
    Mono f = m;
    switch (n->op) {
    case N_READ:
        if (p->fields[n->field].role == ROLE_TEMP) {
            ls->bad = "it reads a temp";
            return;
        }
        add_term(ls, n, scale, &m);
        return;
    case N_ADD:
        linearize(p, st, n->a, scale, m, ls);
        linearize(p, st, n->b, scale, m, ls);
        return;
    case N_SUB:
        linearize(p, st, n->a, scale, m, ls);
        linearize(p, st, n->b, -scale, m, ls);
        return;
    case N_NEG:
        linearize(p, st, n->a, -scale, m, ls);
        return;
    case N_MUL:
        if (scalar_factor(st, n->a, &v, &f))
            linearize(p, st, n->b, scale * v, f, ls);
        else if ((f = m, scalar_factor(st, n->b, &v, &f)))
            linearize(p, st, n->a, scale * v, f, ls);
        else
            ls->bad = "it multiplies two values that are not products of constants and parameters";
        return;
    case N_DIV:
        if (is_const(st, n->b, &v) && v != 0)
            linearize(p, st, n->a, scale / v, m, ls);
        else
            ls->bad = "it divides by a non-constant value";
        return;
    case N_CONST:
    case N_PARAM:
        ls->bad = "it adds a term that reads no field";
        return;
    case N_COORD:
    case N_EXTENT:
    case N_STEP:
        ls->bad = "it reads a coordinate or the step, so the point's function changes from point to point";
        return;
    default:
        ls->bad = "it applies a non-linear operation";
        return;
    }
}

KExpr *cg_lin_weight(CgCtx *ctx, const CgLinTerm *t)
{
    Kb *b = &ctx->kb;
    KExpr *w = t->nparams && t->c == 1 ? NULL : k_real(b, t->c);
    for (int i = 0; i < t->nparams; i++) {
        KExpr *param = k_varf(b, "p_%s", ctx->prog->params[t->params[i]].name);
        w = w ? k_mul(b, w, param) : param;
    }
    return w;
}

/* The single stored write of the stage, or -1. */
static int stored_write(const IrProgram *p, const IrStage *st, int *count)
{
    int w = -1;
    *count = 0;
    for (int k = 0; k < st->nwrites; k++)
        if (cg_field_stored(p, st->writes[k].field)) {
            w = k;
            (*count)++;
        }
    return w;
}

int cg_stream_linear(const IrProgram *prog, int stage, char *why, int whylen)
{
    return cg_linear_terms(prog, stage, NULL, NULL, NULL, why, whylen);
}

int cg_linear_terms(const IrProgram *prog, int stage, Arena *arena, const CgLinTerm **terms, int *nterms,
                    char *why, int whylen)
{
    const IrStage *st = &prog->stages[stage];
    int nw;
    int w = stored_write(prog, st, &nw);
    if (nw != 1) {
        snprintf(why, (size_t)whylen, "stage %d stores %d fields: retiming accumulates one "
                 "weighted sum", stage, nw);
        return 0;
    }
    LinSum ls = {0};
    ls.arena = arena;
    linearize(prog, st, st->writes[w].node, 1.0, (Mono){0}, &ls);
    if (ls.bad) {
        snprintf(why, (size_t)whylen, "stage %d is not a weighted sum of reads (%s): retiming "
                 "accumulates weight * read terms only, the weights products of constants and "
                 "parameters", stage, ls.bad);
        if (!arena)
            free(ls.t);
        return 0;
    }
    if (terms && arena) {
        *terms = ls.t;
        *nterms = ls.n;
    } else {
        free(ls.t);
    }
    return 1;
}

/* The thread's column (i, jb; its first row with bm > 1), its index in the block, whether it
 * computes (inside; with bm > 1 inside along x only, each row tests its own y), its offsets in
 * global memory (own_g) and in a staged plane (own_s). */
static void retime_coords(StreamB *sb, KBlock *out)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    KExpr *tx = k_cast(b, "int", k_thread(b, 0)), *n0 = k_var(b, "n0");
    KExpr *bx0 = k_let(b, out, "int", "bx0", k_cast(b, "int", k_mul(b, k_block(b, 0), k_uint(b, g->tbx))));
    KExpr *i = k_let(b, out, "int", "i", k_add(b, bx0, tx));
    if (g->dims == 2) {
        k_let(b, out, "int", "bb0", k_int(b, 0));
        k_let(b, out, "int", "tid", tx);
        k_let(b, out, "bool", "inside", k_bin(b, KO_LT, i, n0));
        k_let(b, out, "long long", "own_g", k_cast(b, "long long", stream_add(sb, i, g->hx)));
        k_let(b, out, "int", "own_s", stream_add(sb, tx, g->hx));
        return;
    }
    KExpr *tb = k_cast(b, "int", k_thread(b, g->ab)), *sB = sb->s[g->ab];
    KExpr *row0 = g->bm > 1 ? k_mul(b, tb, k_int(b, g->bm)) : tb;
    KExpr *bb0 = k_let(b, out, "int", "bb0", k_cast(b, "int", k_mul(b, k_block(b, g->ab), k_uint(b, g->tbb * g->bm))));
    KExpr *jb = k_let(b, out, "int", "jb", k_add(b, bb0, row0));
    k_let(b, out, "int", "tid", k_add(b, tx, k_mul(b, tb, k_int(b, g->tbx))));
    KExpr *inside = k_bin(b, KO_LT, i, n0);
    if (g->bm == 1)
        inside = k_and(b, inside, k_bin(b, KO_LT, jb, k_varf(b, "n%d", g->ab)));
    k_let(b, out, "bool", "inside", inside);
    KExpr *row = k_mul(b, k_cast(b, "long long", stream_add(sb, jb, g->hb)), sB);
    k_let(b, out, "long long", "own_g", k_add(b, row, stream_add(sb, i, g->hx)));
    KExpr *srow = k_mul(b, stream_add(sb, row0, g->hb), k_int(b, g->W));
    k_let(b, out, "int", "own_s", stream_add(sb, k_add(b, srow, tx), g->hx));
}

/* The partial sum a<j> of the thread's row o (a<j>_<o> with several rows). */
static KExpr *partial(StreamB *sb, int j, int o)
{
    return sb->g->bm > 1 ? k_var(sb->b, stream_name(sb, "a%d_%d", j, o)) : k_varf(sb->b, "a%d", j);
}

/* Tile cells of this thread: row-major over the tile with its halo (fs<c>, whether inside the
 * buffer okf<c>, offset from the tile's corner fg<c>); the base pointers bp<k>. */
static void retime_cells(StreamB *sb, KBlock *out, int ncell)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int W = g->W, threads = g->tbx * g->tbb, dims3 = g->dims == 3;
    KExpr *sB = dims3 ? sb->s[g->ab] : NULL;
    for (int c = 0; c < ncell; c++) {
        KExpr *fs = k_let(b, out, "int", stream_name(sb, "fs%d", c), stream_add(sb, k_var(b, "tid"), c * threads));
        KExpr *fy = k_let(b, out, "int", stream_name(sb, "fy%d", c), k_bin(b, KO_DIV, fs, k_int(b, W)));
        KExpr *fx = k_let(b, out, "int", stream_name(sb, "fx%d", c), k_sub(b, fs, k_mul(b, fy, k_int(b, W))));
        KExpr *ok = k_bin(b, KO_LT, fs, k_int(b, W * g->H));
        ok = k_and(b, ok, k_bin(b, KO_LT, k_add(b, k_var(b, "bx0"), fx), stream_add(sb, k_var(b, "n0"), 2 * g->hx)));
        if (dims3)
            ok = k_and(b, ok, k_bin(b, KO_LT, k_add(b, k_var(b, "bb0"), fy),
                                    stream_add(sb, k_varf(b, "n%d", g->ab), 2 * g->hb)));
        ok = k_let(b, out, "bool", stream_name(sb, "okf%d", c), ok);
        KExpr *at = dims3 ? k_add(b, k_mul(b, k_cast(b, "long long", fy), sB), fx) : fx;
        k_let(b, out, dims3 ? "long long" : "int", stream_name(sb, "fg%d", c), k_select(b, ok, at, k_int(b, 0)));
    }
    KExpr *corner = k_mul(b, k_cast(b, "long long", k_var(b, "bb0")), dims3 ? sB : k_int(b, 0));
    for (int k = 0; k < g->nsrc; k++) {
        KExpr *at = k_add(b, sb->buf[k], k_mul(b, k_cast(b, "long long", k_var(b, "z0")), k_var(b, "ps")));
        at = k_add(b, k_add(b, at, corner), k_var(b, "bx0"));
        k_push(b, out, k_decl(b, 0, stream_name(sb, "const %s *", sb->ctx->T), stream_name(sb, "bp%d", k), at));
    }
    stream_unused(sb, out, (const char *const[]){"bb0"}, 1);
}

/* (ok && okf<c>) ? __ldg(bp<k> + at * ps + fg<c>) : 0: a cell of plane `at` planes ahead. */
static KExpr *cell_load(StreamB *sb, KExpr *ok, int k, int c, int at)
{
    Kb *b = sb->b;
    KExpr *p = k_add(b, k_add(b, k_varf(b, "bp%d", k), k_mul(b, k_int(b, at), k_var(b, "ps"))), k_varf(b, "fg%d", c));
    return k_select(b, k_and(b, ok, k_varf(b, "okf%d", c)), k_call(b, "__ldg", 1, p), stream_zero(sb));
}

/* Source k's neighbourhood of the staged plane around the thread's rows, each value read once
 * and its terms added to the partial sums a<R - dp> of every row it feeds. */
static void accumulate(StreamB *sb, KBlock *out, int k, KExpr *slot, const CgLinTerm *terms, int nterms)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    KStmt *scope = k_scope(b);
    KExpr *at = k_add(b, k_varf(b, "sm%d", k), k_mul(b, slot, k_int(b, g->W * g->H)));
    k_push(b, &scope->body, k_decl(b, 0, stream_name(sb, "const %s *const", sb->ctx->T), "rd", k_add(b, at, k_var(b, "own_s"))));
    KExpr *rd = k_var(b, "rd");
    for (int dy = -g->hb; dy <= g->bm - 1 + g->hb; dy++)
        for (int dx = -g->hx; dx <= g->hx; dx++) {
            KStmt *nbr = NULL;
            KExpr *r = NULL;
            for (int o = 0; o < g->bm; o++)
                for (int m = 0; m < nterms; m++) {
                    const CgLinTerm *lt = &terms[m];
                    int ldy = g->ab > 0 ? lt->off[g->ab] : 0;
                    if (cg_stream_find_src(g, lt->field, lt->level) != k || lt->off[0] != dx || ldy != dy - o ||
                        lt->c == 0)
                        continue;
                    if (!nbr) {
                        nbr = k_scope(b);
                        r = k_let(b, &nbr->body, sb->ctx->T, "r", k_index(b, rd, k_int(b, dy * g->W + dx)));
                    }
                    KExpr *acc = partial(sb, g->R - lt->off[g->sd], o);
                    k_push(b, &nbr->body, k_assign_add(b, acc, k_mul(b, cg_lin_weight(sb->ctx, lt), r)));
                }
            if (nbr)
                k_push(b, &scope->body, nbr);
        }
    k_push(b, out, scope);
}

/* dst[oidx] = a0 (a row's a0), the oldest sum, complete; in the fused step (ctx->fold) named,
 * stored and folded as cg_point's stores are. */
static void retime_store(StreamB *sb, KBlock *out, KExpr *dst, KExpr *oidx, KExpr *a0)
{
    Kb *b = sb->b;
    if (!sb->ctx->fold) {
        k_push(b, out, k_assign(b, k_index(b, dst, oidx), a0));
        return;
    }
    CgPointStore store = {dst, a0};
    CgPointStores stores = {&store, 1, 1};
    sb->pt.kidx = k_let(b, out, "long long", "oidx", oidx);
    cg_fold_point(&sb->pt, out, &stores);
    sb->pt.kidx = NULL;
}

/* The tile cells of plane `ahead` planes past bp<k> (t0 + ahead, valid while <= tlast, else
 * zeros) copied asynchronously into slot `slot`, one group; with back > 0 the address stays on
 * plane `ahead` - `back`, in the buffer, where the plane is beyond it. */
static void async_issue(StreamB *sb, KBlock *out, int ahead, int back, KExpr *slot, int ncell)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int PL = g->W * g->H;
    KExpr *ok = k_let(b, out, "bool", "cok", k_bin(b, KO_LE, stream_add(sb, k_var(b, "t0"), ahead), k_var(b, "tlast")));
    KExpr *at = back ? k_select(b, ok, k_int(b, ahead), k_int(b, ahead - back)) : k_int(b, ahead);
    at = k_mul(b, at, k_var(b, "ps"));
    for (int k = 0; k < g->nsrc; k++) {
        KExpr *wr = k_varf(b, "cw%d", k), *src = k_varf(b, "cs%d", k);
        k_push(b, out, k_decl(b, 0, stream_name(sb, "%s *const", sb->ctx->T), wr->name,
                              k_add(b, k_varf(b, "sm%d", k), k_mul(b, slot, k_int(b, PL)))));
        k_push(b, out, k_decl(b, 0, stream_name(sb, "const %s *const", sb->ctx->T), src->name,
                              k_add(b, k_varf(b, "bp%d", k), at)));
        for (int c = 0; c < ncell; c++) {
            KExpr *fs = k_varf(b, "fs%d", c);
            KStmt *copy = k_copy(b, k_index(b, wr, fs), k_add(b, src, k_varf(b, "fg%d", c)),
                                 k_and(b, ok, k_varf(b, "okf%d", c)), sb->ctx->T);
            if ((c + 1) * g->tbx * g->tbb > PL) {
                KStmt *in = k_if(b, k_bin(b, KO_LT, fs, k_int(b, PL)));
                k_push(b, &in->body, copy);
                copy = in;
            }
            k_push(b, out, copy);
        }
    }
    k_push(b, out, k_copy_commit(b));
}

/* The slot of plane t: t & 1, or with asynchronous copies the rotating sl (0, 1, 2). */
static KExpr *plane_slot(StreamB *sb)
{
    Kb *b = sb->b;
    return sb->g->async ? k_var(b, "sl") : k_bin(b, KO_BAND, k_var(b, "t"), k_int(b, 1));
}

/* Plane t in its slot: written there from the registers h<k>_<c>_<u>, or with asynchronous copies
 * waited for (the copies of plane t + 2 then issued into the slot that plane t - 1 used); one
 * barrier. */
static void retime_stage(StreamB *sb, KBlock *out, int u, int ncell)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int PL = g->W * g->H;
    if (g->async) {
        k_push(b, out, k_copy_wait(b, 1));
        k_push(b, out, k_barrier(b));
        KExpr *sl = k_var(b, "sl");
        KExpr *next = k_select(b, k_bin(b, KO_EQ, sl, k_int(b, 0)), k_int(b, 2), k_sub(b, sl, k_int(b, 1)));
        KStmt *issue = k_scope(b);
        async_issue(sb, &issue->body, u + 2, 2, next, ncell);
        k_push(b, out, issue);
        return;
    }
    for (int k = 0; k < g->nsrc; k++) {
        KExpr *at = k_add(b, k_varf(b, "sm%d", k), k_mul(b, plane_slot(sb), k_int(b, PL)));
        KExpr *wr = k_varf(b, "wr%d", k);
        k_push(b, out, k_decl(b, 0, stream_name(sb, "%s *const", sb->ctx->T), wr->name, at));
        for (int c = 0; c < ncell; c++) {
            KExpr *fs = k_varf(b, "fs%d", c);
            KStmt *in = k_if(b, k_bin(b, KO_LT, fs, k_int(b, PL)));
            k_push(b, &in->body, k_assign(b, k_index(b, wr, fs), k_varf(b, "h%d_%d_%d", k, c, u)));
            k_push(b, out, in);
        }
    }
    k_push(b, out, k_barrier(b));
}

/* Plane t: staged in its slot, its terms added to the partial sums; the oldest sum is complete,
 * stored, and the sums rotate (and with asynchronous copies the slot). */
static void retime_plane(StreamB *sb, KBlock *out, int u, int ncell, KExpr *dst, const CgLinTerm *terms,
                         int nterms)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int R = g->R;
    KExpr *t = k_var(b, "t");
    retime_stage(sb, out, u, ncell);
    for (int k = 0; k < g->nsrc; k++)
        accumulate(sb, out, k, plane_slot(sb), terms, nterms);
    for (int o = 0; o < g->bm; o++) {
        KExpr *ok = k_and(b, k_bin(b, KO_GE, t, stream_add(sb, k_var(b, "z0"), R)), k_var(b, "inside"));
        if (g->bm > 1)
            ok = k_and(b, ok, k_bin(b, KO_LT, stream_add(sb, k_var(b, "jb"), o), k_varf(b, "n%d", g->ab)));
        KStmt *store = k_if(b, ok);
        KExpr *oidx = k_add(b, k_mul(b, k_cast(b, "long long", t), k_var(b, "ps")), k_var(b, "own_g"));
        if (o)
            oidx = k_add(b, oidx, k_mul(b, k_int(b, o), sb->s[g->ab]));
        retime_store(sb, &store->body, dst, oidx, partial(sb, 0, o));
        k_push(b, out, store);
    }
    for (int o = 0; o < g->bm; o++) {
        for (int j = 0; j < 2 * R; j++)
            k_push(b, out, k_assign(b, partial(sb, j, o), partial(sb, j + 1, o)));
        k_push(b, out, k_assign(b, partial(sb, 2 * R, o), stream_zero(sb)));
    }
    if (g->async) {
        KExpr *sl = k_var(b, "sl");
        KExpr *next = k_select(b, k_bin(b, KO_EQ, sl, k_int(b, 2)), k_int(b, 0), stream_add(sb, sl, 1));
        k_push(b, out, k_assign(b, sl, next));
    }
}

/* Asynchronous copies: the first two planes into slots 0 and 1 (t0 = z0 - R here), and sl, the
 * slot of plane t. */
static void async_prologue(StreamB *sb, KBlock *out, int ncell)
{
    Kb *b = sb->b;
    KStmt *first = k_scope(b);
    k_let(b, &first->body, "int", "t0", stream_sub(sb, k_var(b, "z0"), sb->g->R));
    for (int p = 0; p < 2; p++) {
        KStmt *plane = k_scope(b);
        async_issue(sb, &plane->body, p, 0, k_int(b, p), ncell);
        k_push(b, &first->body, plane);
    }
    k_push(b, out, first);
    k_push(b, out, k_decl(b, 0, "int", "sl", k_int(b, 0)));
}

/* Loads of a group of uf planes together (with prefetch: the next group's, carried). */
static void retime_loop(StreamB *sb, KBlock *out, int ncell, KExpr *dst, const CgLinTerm *terms, int nterms)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    const char *T = sb->ctx->T;
    int uf = g->uf, R = g->R;
    KExpr *z0 = k_var(b, "z0"), *t0 = k_var(b, "t0"), *tlast = k_var(b, "tlast");
    if (g->async)
        async_prologue(sb, out, ncell);
    for (int u = 0; g->prefetch && u < uf; u++)
        for (int k = 0; k < g->nsrc; k++)
            for (int c = 0; c < ncell; c++) {
                KExpr *ok = k_bin(b, KO_LE, stream_add(sb, stream_sub(sb, z0, R), u), tlast);
                k_push(b, out, k_decl(b, 0, T, stream_name(sb, "h%d_%d_%d", k, c, u), cell_load(sb, ok, k, c, u)));
            }
    KStmt *loop = k_for(b, "t0", stream_sub(sb, z0, R), tlast, k_int(b, uf), 0);
    loop->inclusive = 1;
    int ahead = g->prefetch ? uf : 0;
    for (int u = 0; !g->async && u < uf; u++)
        for (int k = 0; k < g->nsrc; k++)
            for (int c = 0; c < ncell; c++) {
                KExpr *ok = k_bin(b, KO_LE, stream_add(sb, t0, ahead + u), tlast);
                const char *name = stream_name(sb, "h%d_%d_%d%s", k, c, u, g->prefetch ? "n" : "");
                k_let(b, &loop->body, T, name, cell_load(sb, ok, k, c, ahead + u));
            }
    for (int u = 0; u < uf; u++) {
        KStmt *plane = u == 0 ? k_scope(b) : k_if(b, k_bin(b, KO_LE, stream_add(sb, t0, u), tlast));
        k_let(b, &plane->body, "int", "t", stream_add(sb, t0, u));
        retime_plane(sb, &plane->body, u, ncell, dst, terms, nterms);
        k_push(b, &loop->body, plane);
    }
    for (int u = 0; g->prefetch && u < uf; u++)
        for (int k = 0; k < g->nsrc; k++)
            for (int c = 0; c < ncell; c++)
                k_push(b, &loop->body, k_assign(b, k_varf(b, "h%d_%d_%d", k, c, u), k_varf(b, "h%d_%d_%dn", k, c, u)));
    for (int k = 0; k < g->nsrc; k++)
        k_push(b, &loop->body, k_assign_add(b, k_varf(b, "bp%d", k), k_mul(b, k_int(b, uf), k_var(b, "ps"))));
    k_push(b, out, loop);
    if (g->async)
        k_push(b, out, k_copy_wait(b, 0));
}

KKernel *cg_build_stream_retime(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                                PlanLaunch *l, const StreamGeom *g, char *why, int whylen)
{
    const IrProgram *prog = ctx->prog;
    const Config *c = ctx->cfg;
    const IrStage *st = &prog->stages[stage];
    const CgLinTerm *terms = NULL;
    int nterms = 0;
    if (!cg_linear_terms(prog, stage, ctx->arena, &terms, &nterms, why, whylen))
        return NULL;
    int nw;
    int w = stored_write(prog, st, &nw);
    int threads = g->tbx * g->tbb;
    int ncell = (g->W * g->H + threads - 1) / threads;
    int block[3] = {c->v[P_TBX], c->v[P_TBY], c->v[P_TBZ]};
    StreamB *sb = stream_builder(ctx, stage, g, NULL);
    Kb *b = sb->b;
    KKernel *k = cg_kernel(ctx, name, block, args);
    k->comment = arena_printf(ctx->arena, "stage %d: 2.5D streaming along %c with retiming, %d planes per block: each "
                              "plane staged once, its terms added to %d partial sums, %s%s", stage,
                              stream_axis_letter(g->sd), g->sb, 2 * g->R + 1,
                              g->async ? "two planes ahead copied asynchronously"
                              : g->prefetch ? "next planes prefetched" : "no prefetch",
                              g->bm > 1 ? arena_printf(ctx->arena, ", %d rows along %c per thread", g->bm,
                                                       stream_axis_letter(g->ab)) : "");
    stream_smem(sb, &k->body, name, 1);
    cg_strides(ctx, &k->body, sb->s);
    k_let(b, &k->body, "long long", "ps", sb->s[g->sd]);
    retime_coords(sb, &k->body);
    stream_z_range(sb, &k->body);
    retime_cells(sb, &k->body, ncell);
    for (int o = 0; o < g->bm; o++)
        for (int j = 0; j <= 2 * g->R; j++)
            k_push(b, &k->body, k_decl(b, 0, ctx->T, partial(sb, j, o)->name, stream_zero(sb)));
    int field = st->writes[w].field;
    KExpr *dst = cg_buf(ctx, field, prog->fields[field].role == ROLE_STATE ? 1 : 0);
    retime_loop(sb, &k->body, ncell, dst, terms, nterms);
    stream_launch(ctx, l, g, g->bm);
    return k;
}
