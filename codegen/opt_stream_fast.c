/* The fast path of the stream pass's ring kernel for a full block: its chunk z0 .. z0+sb-1 lies
 * inside the grid along SD and its tile inside it in-plane (decided once per block, so
 * __syncthreads stays uniform). Then every thread is live and inside, every plane of the loop
 * exists, and no load needs a bounds test: the own loads reach plane z0+sb-1+2R <= n+2R-1, the
 * last buffer plane, and the tile loads plane z0+sb-1+R+hi, no further. The loop splits into 2R
 * warm-up planes (t = z0-R .. z0+R-1: loads and ring stores, no output; constant slots) and sb
 * steady planes unrolled by Uf = lcm(uf, slots) when that divides sb (so (rb + p) % slots is a
 * constant per unrolled plane), else by uf with the slot computed. Global addresses are pointers
 * stepped by the plane stride: no 64-bit multiply in the loop. With prefetch, only the loads of
 * the group after the body's last group test (once, uniformly) that the block has one. */
#include "opt_stream_build.h"

/* How a loaded value is introduced: `const T x = v;`, `T x = v;` or `x = v;`. */
enum { FL_CONST, FL_VAR, FL_ASSIGN };

static void put(StreamB *sb, KBlock *out, int how, const char *name, KExpr *value)
{
    Kb *b = sb->b;
    if (how == FL_ASSIGN)
        k_push(b, out, k_assign(b, k_var(b, name), value));
    else
        k_push(b, out, k_decl(b, how == FL_CONST ? KQ_CONST : 0, sb->ctx->T, name, value));
}

static int cells_of(const StreamB *sb, const StreamSrc *s)
{
    return !s->slots ? 0 : s->hi == sb->g->R ? sb->pl->full_cells : sb->pl->halo_cells;
}

/* The loads of one incoming plane t (t - z0 = trel): each source's own cell (plane t+R) and its
 * tile cells (plane t+hi, only once t + hi >= z0) through pointers that then step one plane. */
static void fast_loads(StreamB *sb, KBlock *out, const char *suf, int how, int trel)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        if (sb->pl->own_load[k]) {
            KExpr *pg = k_varf(b, "pg%d", k);
            put(sb, out, how, stream_name(sb, "g%d%s", k, suf), k_un(b, KO_DEREF, pg));
            k_push(b, out, k_assign_add(b, pg, sb->sp));
        }
        if (!s->slots || trel + s->hi < 0)
            continue;
        int full = s->hi == g->R;
        for (int c = 0; c < cells_of(sb, s); c++) {
            KExpr *ph = k_varf(b, "ph%d_%d", k, c);
            KExpr *v = k_select(b, k_varf(b, "ok%c%d", full ? 'f' : 'h', c), k_un(b, KO_DEREF, ph), stream_zero(sb));
            put(sb, out, how, stream_name(sb, "h%d_%d%s", k, c, suf), v);
            k_push(b, out, k_assign_add(b, ph, sb->sp));
        }
    }
}

static void zero_decls(StreamB *sb, KBlock *out, const char *suf)
{
    const StreamGeom *g = sb->g;
    for (int k = 0; k < g->nsrc; k++) {
        if (sb->pl->own_load[k])
            put(sb, out, FL_VAR, stream_name(sb, "g%d%s", k, suf), stream_zero(sb));
        for (int c = 0; c < cells_of(sb, &g->src[k]); c++)
            put(sb, out, FL_VAR, stream_name(sb, "h%d_%d%s", k, c, suf), stream_zero(sb));
    }
}

/* The pointers: the first plane each stream loads is buffer plane z0 (own: t+R at t=z0-R; tile:
 * t+hi at the first t with t+hi >= z0); the first output is plane t = z0+R. */
static void fast_pointers(StreamB *sb, KBlock *out)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    const char *T = sb->ctx->T;
    const char *cptr = stream_name(sb, "const %s *", T);
    for (int k = 0; k < g->nsrc; k++) {
        const StreamSrc *s = &g->src[k];
        KExpr *plane = k_add(b, sb->buf[k], k_mul(b, k_cast(b, "long long", k_var(b, "z0")), sb->sp));
        if (sb->pl->own_load[k])
            k_push(b, out, k_decl(b, 0, cptr, stream_name(sb, "pg%d", k), k_add(b, plane, k_var(b, "own_g"))));
        int full = s->slots && s->hi == g->R;
        for (int c = 0; c < cells_of(sb, s); c++) {
            KExpr *at = k_add(b, k_add(b, plane, k_var(b, "tile_g")), k_varf(b, "%cg%d", full ? 'f' : 'h', c));
            k_push(b, out, k_decl(b, 0, cptr, stream_name(sb, "ph%d_%d", k, c), at));
        }
    }
    KExpr *outs[STREAM_MAX_SRC];
    int nout = stream_stores_by_pointer(sb) ? stream_outputs(sb, outs) : 0;
    for (int k = 0; k < nout; k++) {
        KExpr *first = k_mul(b, k_cast(b, "long long", stream_add(sb, k_var(b, "z0"), g->R)), sb->sp);
        KExpr *at = k_add(b, k_add(b, outs[k], first), k_var(b, "own_g"));
        k_push(b, out, k_decl(b, 0, stream_name(sb, "%s *", T), stream_name(sb, "po%d", k), at));
    }
}

/* One unrolled group gi of the steady loop: its loads (with prefetch: the next group's), then
 * its uf planes. */
static void steady_group(StreamB *sb, KBlock *out, int gi, int groups, int Uf, int const_slots)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int R = g->R, uf = g->uf;
    if (!g->prefetch) {
        for (int u = 0; u < uf; u++)
            fast_loads(sb, out, stream_name(sb, "_%d", u), FL_CONST, R);
    } else if (gi + 1 < groups) {
        for (int u = 0; u < uf; u++)
            fast_loads(sb, out, stream_name(sb, "_%dn", u), FL_CONST, R);
    } else {
        for (int u = 0; u < uf; u++)
            zero_decls(sb, out, stream_name(sb, "_%dn", u));
        KStmt *more = k_if(b, k_bin(b, KO_LT, stream_add(sb, k_var(b, "jj"), Uf), k_int(b, g->sb)));
        for (int u = 0; u < uf; u++)
            fast_loads(sb, &more->body, stream_name(sb, "_%dn", u), FL_ASSIGN, R);
        k_push(b, out, more);
    }
    for (int u = 0; u < uf; u++) {
        int ub = gi * uf + u;
        PlaneMode m = {PM_STEADY, R, const_slots ? 3 * R + 1 + ub : -1, stream_add(sb, k_var(b, "jj"), 3 * R + 1 + ub),
                       k_plus(b, k_add(b, k_var(b, "z0"), k_var(b, "jj")), ub)};
        KStmt *plane = k_scope(b);
        stream_plane(sb, &plane->body, stream_name(sb, "_%d", u), &m);
        k_push(b, out, plane);
    }
    for (int u = 0; g->prefetch && u < uf; u++)
        stream_carry(sb, out, u);
}

static int gcd_int(int a, int b) { return b ? gcd_int(b, a % b) : a; }

/* The 2R warm-up planes: their loads (and with prefetch the first steady group's) are all
 * issued up front. */
static void warm_up(StreamB *sb, KBlock *out)
{
    Kb *b = sb->b;
    int R = sb->g->R;
    for (int j = 0; j < 2 * R; j++) {
        k_push(b, out, k_comment(b, stream_name(sb, "warm-up plane t = z0%+d", j - R)));
        fast_loads(sb, out, stream_name(sb, "_w%d", j), FL_CONST, j - R);
    }
    for (int u = 0; sb->g->prefetch && u < sb->g->uf; u++)
        fast_loads(sb, out, stream_name(sb, "_%d", u), FL_VAR, R);
    for (int j = 0; j < 2 * R; j++) {
        PlaneMode m = {PM_WARM, j - R, j + R + 1, NULL, NULL};
        KStmt *plane = k_scope(b);
        stream_plane(sb, &plane->body, stream_name(sb, "_w%d", j), &m);
        k_push(b, out, plane);
    }
}

static KExpr *full_block(StreamB *sb)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    KExpr *full = k_bin(b, KO_LE, stream_add(sb, k_var(b, "z0"), g->sb), k_varf(b, "n%d", g->sd));
    full = k_and(b, full, k_bin(b, KO_LE, stream_add(sb, k_var(b, "bx0"), g->tbx), k_var(b, "n0")));
    if (g->dims == 3)
        full = k_and(b, full, k_bin(b, KO_LE, stream_add(sb, k_var(b, "bb0"), g->tbb), k_varf(b, "n%d", g->ab)));
    return full;
}

KBlock *stream_fast_path(StreamB *sb, KBlock *out)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    int S = 1;
    for (int k = 0; k < g->nsrc; k++)
        if (g->src[k].slots)
            S = S / gcd_int(S, g->src[k].slots) * g->src[k].slots;
    int Uf = g->uf / gcd_int(g->uf, S) * S;
    int const_slots = g->sb % Uf == 0 && Uf <= (g->uf > 8 ? g->uf : 8);
    if (!const_slots)
        Uf = g->uf;
    KStmt *fast = k_if(b, k_let(b, out, "bool", "full", full_block(sb)));
    fast_pointers(sb, &fast->body);
    warm_up(sb, &fast->body);
    k_push(b, &fast->body, k_comment(b, stream_name(sb, "steady planes: t = z0+%d+jj .. (%s slots)", g->R,
                                                    const_slots ? "constant" : "computed")));
    KStmt *loop = k_for(b, "jj", k_int(b, 0), k_int(b, g->sb), k_int(b, Uf), 1);
    int groups = Uf / g->uf;
    for (int gi = 0; gi < groups; gi++) {
        KStmt *group = k_scope(b);
        steady_group(sb, &group->body, gi, groups, Uf, const_slots);
        k_push(b, &loop->body, group);
    }
    k_push(b, &fast->body, loop);
    k_push(b, out, fast);
    if (sb->ctx->fold)
        return &fast->els; /* the general loop serves edge blocks */
    k_push(b, &fast->body, k_comment(b, "the general loop below serves edge blocks"));
    k_push(b, &fast->body, k_return(b));
    return out;
}
