/* One plane of the stream pass's ring kernel (opt_stream.c): the window shifts by one plane (the
 * register queue moves, the ring takes in the incoming plane's tile), one barrier, then the
 * output plane's point, its reads from the queue and the ring. */
#include "opt_stream_build.h"

#include <stdlib.h>

static int from_smem(const StreamSrc *s, int R, int p)
{
    return s->read_plane[p + R] || (s->read_centre[p + R] && !s->in_reg[p + R]);
}

KExpr *stream_ring_read(CgCtx *ctx, const IrNode *n)
{
    StreamB *sb = (StreamB *)ctx;
    const StreamGeom *g = sb->g;
    int k = cg_stream_find_src(g, n->field, n->level);
    if (k < 0) /* not streamed (cannot happen for a stage's own reads): a global load */
        return cg_global_read(ctx, n, cg_point_index(ctx));
    const StreamSrc *s = &g->src[k];
    int p = n->off[g->sd];
    int db = g->ab > 0 ? n->off[g->ab] : 0;
    if (n->off[0] == 0 && db == 0 && s->in_reg[p + g->R])
        return stream_var(sb, "q", k, p);
    return k_index(sb->b, stream_var(sb, "sp", k, p), k_int(sb->b, db * g->W + n->off[0]));
}

/* The ring slot of window position p: (rb + p) % slots, rb = t - z0 + 2R + 1 > -p. */
static KExpr *slot(StreamB *sb, int p, int slots, const PlaneMode *m)
{
    Kb *b = sb->b;
    if (m->rb >= 0)
        return k_int(b, (m->rb + p) % slots);
    KExpr *rb = k_var(b, "rb");
    if (p != 0)
        rb = k_bin(b, p < 0 ? KO_SUB : KO_ADD, rb, k_uint(b, abs(p)));
    return k_bin(b, KO_MOD, rb, k_uint(b, slots));
}

/* slot(p) * plane: the offset of position p's ring plane in sm<k>. */
static KExpr *slot_offset(StreamB *sb, int k, int p, const PlaneMode *m)
{
    const StreamGeom *g = sb->g;
    return k_mul(sb->b, slot(sb, p, g->src[k].slots, m), k_int(sb->b, g->W * g->H));
}

/* sm<k>[slot(p) * plane + own_s]: the thread's own column in position p's ring plane. */
static KExpr *ring_own(StreamB *sb, int k, int p, const PlaneMode *m)
{
    Kb *b = sb->b;
    return k_index(b, k_varf(b, "sm%d", k), k_add(b, slot_offset(sb, k, p, m), k_var(b, "own_s")));
}

/* The incoming plane's tile into source k's ring (its plane t + hi). */
static void ring_store(StreamB *sb, KBlock *out, int k, const char *suf, const PlaneMode *m)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    const StreamSrc *s = &g->src[k];
    int general = m->kind == PM_GENERAL;
    int full = s->hi == g->R;
    int ncell = full ? sb->pl->full_cells : sb->pl->halo_cells;
    KStmt *blk = general ? k_if(b, k_bin(b, KO_GE, stream_add(sb, k_var(b, "t"), s->hi), k_var(b, "z0"))) : k_scope(b);
    KExpr *base = k_add(b, k_varf(b, "sm%d", k), slot_offset(sb, k, s->hi, m));
    k_push(b, &blk->body, k_decl(b, 0, stream_name(sb, "%s *const", sb->ctx->T), "w", base));
    KExpr *w = k_var(b, "w");
    for (int c = 0; c < ncell; c++) {
        KStmt *cell = k_if(b, k_varf(b, "ok%c%d", full ? 'f' : 'h', c));
        KExpr *at = k_index(b, w, k_varf(b, "%cs%d", full ? 'f' : 'h', c));
        k_push(b, &cell->body, k_assign(b, at, k_varf(b, "h%d_%d%s", k, c, suf)));
        k_push(b, &blk->body, cell);
    }
    if (!full) {
        KStmt *own = k_assign(b, k_index(b, w, k_var(b, "own_s")), k_varf(b, "in%d", k));
        KStmt *live = general ? k_if(b, k_var(b, "live")) : NULL;
        if (live)
            k_push(b, &live->body, own);
        k_push(b, &blk->body, live ? live : own);
    }
    k_push(b, out, blk);
}

/* Source k's window moves by one plane: the queue shifts, takes in the loaded value or reads
 * its plane from the ring, and the incoming tile goes into the ring. Returns whether the plane
 * touches shared memory. */
static int shift_source(StreamB *sb, KBlock *out, int k, const char *suf, const PlaneMode *m)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    const StreamSrc *s = &g->src[k];
    const unsigned char *need = sb->pl->need[k];
    int R = g->R, general = m->kind == PM_GENERAL, any_smem = 0;
    /* whether this plane stores into the source's ring: t + hi >= z0 */
    int store = general ? -1 : m->kind == PM_STEADY ? 1 : m->trel + s->hi >= 0;
    if (s->slots && s->hi < R && store != 0)
        k_let(b, out, sb->ctx->T, stream_name(sb, "in%d", k), stream_var(sb, "q", k, s->hi + 1));
    for (int p = -R; p <= R; p++) {
        if (!need[p + R])
            continue;
        KExpr *q = stream_var(sb, "q", k, p);
        if (p < R && s->chain[p + 1 + R])
            k_push(b, out, k_assign(b, q, stream_var(sb, "q", k, p + 1)));
        else if (p == R && sb->pl->own_load[k])
            k_push(b, out, k_assign(b, q, k_varf(b, "g%d%s", k, suf)));
        else if (p < R) {
            k_push(b, out, k_assign(b, q, ring_own(sb, k, p, m)));
            any_smem = 1;
        }
    }
    if (!s->slots)
        return any_smem;
    /* A warm-up plane that neither stores into nor reads the ring needs no barrier: the
     * stores of earlier planes were published by their own barriers, and with no reads
     * here there is nothing a later store could overwrite too early. */
    any_smem |= general || store != 0;
    if (store != 0)
        ring_store(sb, out, k, suf, m);
    return any_smem;
}

/* The output plane's point: its ring planes sp<k>_<p>, its index (general: oidx; fast path:
 * the output pointers, which then step a plane). */
static void plane_point(StreamB *sb, KBlock *out, const PlaneMode *m)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int general = m->kind == PM_GENERAL;
    KExpr *t = k_var(b, "t");
    KStmt *blk = general ? k_if(b, k_and(b, k_bin(b, KO_GE, t, stream_add(sb, k_var(b, "z0"), g->R)), k_var(b, "inside")))
                         : k_scope(b);
    const char *ptr = stream_name(sb, "const %s *const", sb->ctx->T);
    for (int k = 0; k < g->nsrc; k++)
        for (int p = -g->R; p <= g->R; p++)
            if (from_smem(&g->src[k], g->R, p)) {
                KExpr *at = k_add(b, k_add(b, k_varf(b, "sm%d", k), slot_offset(sb, k, p, m)), k_var(b, "own_s"));
                k_push(b, &blk->body, k_decl(b, 0, ptr, stream_var(sb, "sp", k, p)->name, at));
            }
    KExpr *outs[STREAM_MAX_SRC];
    int nout = 0;
    if (general || !stream_stores_by_pointer(sb)) { /* t: the output's plane in the buffer */
        KExpr *plane = general ? t : stream_add(sb, m->out, g->R);
        KExpr *at = k_add(b, k_mul(b, k_cast(b, "long long", plane), sb->sp), k_var(b, "own_g"));
        sb->pt.kidx = k_let(b, &blk->body, "long long", "oidx", at);
    } else {
        /* the written buffers' names stand for this plane's output pointers here */
        nout = stream_outputs(sb, outs);
        for (int k = 0; k < nout; k++)
            k_push(b, &blk->body, k_decl(b, 0, stream_name(sb, "%s *const", sb->ctx->T), outs[k]->name, k_varf(b, "po%d", k)));
        sb->pt.kidx = k_int(b, 0);
    }
    sb->plane = m->out;
    cg_point(&sb->pt, &blk->body);
    sb->pt.kidx = NULL;
    sb->plane = NULL;
    k_push(b, out, blk);
    for (int k = 0; k < nout; k++)
        k_push(b, out, k_assign_add(b, k_varf(b, "po%d", k), sb->sp));
}

void stream_plane(StreamB *sb, KBlock *out, const char *suf, const PlaneMode *m)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int any_slots = 0, any_smem = 0;
    for (int k = 0; k < g->nsrc; k++)
        any_slots |= g->src[k].slots > 0;
    if (m->rb < 0 && (m->kind == PM_GENERAL || any_slots))
        k_let(b, out, "unsigned", "rb", k_cast(b, "unsigned", m->rb_expr));
    for (int k = 0; k < g->nsrc; k++)
        any_smem |= shift_source(sb, out, k, suf, m);
    if (any_smem)
        k_push(b, out, k_barrier(b));
    /* q_R of a whole-tile source comes from the ring (it also feeds q_{R-1} next plane) */
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        if (s->slots && s->hi == g->R && sb->pl->need[k][2 * g->R])
            k_push(b, out, k_assign(b, stream_var(sb, "q", k, g->R), ring_own(sb, k, g->R, m)));
    }
    if (m->kind != PM_WARM) /* warm-up: trel < R, the window is not full yet */
        plane_point(sb, out, m);
}

void stream_carry(StreamB *sb, KBlock *out, int u)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        if (sb->pl->own_load[k])
            k_push(b, out, k_assign(b, k_varf(b, "g%d_%d", k, u), k_varf(b, "g%d_%dn", k, u)));
        int ncell = !s->slots ? 0 : s->hi == g->R ? sb->pl->full_cells : sb->pl->halo_cells;
        for (int c = 0; c < ncell; c++)
            k_push(b, out, k_assign(b, k_varf(b, "h%d_%d_%d", k, c, u), k_varf(b, "h%d_%d_%dn", k, c, u)));
    }
}
