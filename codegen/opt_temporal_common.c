/* The temporal pass's shared pieces: what every temporal kernel declares alike (shared memory,
 * buffer pointers, values only some programs use), and what the two streaming kernels
 * (opt_temporal_stream.c, opt_temporal_retime.c) build alike: the shared-memory rings, the
 * column's coordinates and predicates, the queues' registers, the load of an input plane and the
 * plane loop's copies. Nothing here calls a kernel family. */
#include "opt_temporal_build.h"

static const char *const thread_var[3] = {"tx", "ty", "tz"};
static const char *const axis_var[3] = {"i", "j", "k"};

static int is_state(const IrProgram *p, int f) { return p->fields[f].role == ROLE_STATE; }

/* ---- small pieces of every temporal kernel ---- */

int tb_loads(const CgCtx *ctx, int f)
{
    const IrStage *st = &ctx->prog->stages[ctx->stage];
    if (tb_three_levels(ctx->prog, f))
        return 1; /* the next step reads level 0 as its t-1 */
    for (int i = 0; is_state(ctx->prog, f) && i < st->nnodes; i++)
        if (st->nodes[i].op == N_READ && st->nodes[i].field == f && st->nodes[i].level == 0)
            return 1;
    return 0;
}

int tb_three_levels(const IrProgram *p, int f) { return is_state(p, f) && p->fields[f].levels == 3; }

int tb_any_three_levels(const IrProgram *p)
{
    for (int f = 0; f < p->nfields; f++)
        if (tb_three_levels(p, f))
            return 1;
    return 0;
}

void tb_store_last(CgCtx *ctx, KBlock *out, int w, KExpr *array, KExpr *value, KExpr *(*older)(CgCtx *, int))
{
    Kb *b = &ctx->kb;
    int f = tb_stored_field(ctx->prog, ctx->stage, w);
    KExpr *idx = k_var(b, "idx");
    if (!tb_three_levels(ctx->prog, f)) {
        k_push(b, out, k_assign(b, k_index(b, array, idx), value));
        return;
    }
    k_push(b, out, k_assign(b, k_index(b, cg_buf(ctx, f, 2), idx), value));
    k_push(b, out, k_assign(b, k_index(b, cg_buf(ctx, f, 1), idx), older(ctx, f)));
}

int tb_stored_field(const IrProgram *p, int stage, int w)
{
    const IrStage *st = &p->stages[stage];
    for (int i = 0; i < st->nwrites; i++)
        if (cg_field_stored(p, st->writes[i].field) && w-- == 0)
            return st->writes[i].field;
    return -1;
}

KExpr *tb_zero(CgCtx *ctx) { return k_cast(&ctx->kb, ctx->T, k_int(&ctx->kb, 0)); }

void tb_shared_memory(CgCtx *ctx, KBlock *out)
{
    KStmt *smem = k_array(&ctx->kb, KQ_SHARED, "unsigned char", "tb_smem", 0);
    smem->align = 16;
    k_push(&ctx->kb, out, smem);
}

void tb_pointer(CgCtx *ctx, KBlock *out, int quals, const char *name, KExpr *at)
{
    k_push(&ctx->kb, out, k_decl(&ctx->kb, quals, arena_printf(ctx->arena, "%s *const", ctx->T), name, at));
}

void tb_smem_pointer(CgCtx *ctx, KBlock *out, const char *name, long long offset)
{
    Kb *b = &ctx->kb;
    KExpr *base = k_cast(b, arena_printf(ctx->arena, "%s *", ctx->T), k_var(b, "tb_smem"));
    tb_pointer(ctx, out, 0, name, k_add(b, base, k_int(b, offset)));
}

void tb_may_go_unused(CgCtx *ctx, KBlock *out, const char *name)
{
    Kb *b = &ctx->kb;
    k_push(b, out, k_eval(b, k_cast(b, "void", k_var(b, name))));
}

/* ---- boundary conditions inside fused steps ---- */

/* Whether clamp's halo is taken as a reflection about the edge's middle (point -1-k is k): a
 * symmetric step of radius 1 under TB_WRAP (cg_temporal_edge). */
static int half_reflects(const CgCtx *ctx, BoundaryKind bc)
{
    return bc == BC_CLAMP && cg_temporal_reflects(ctx->prog);
}

/* x's source under bc within one grid length of the grid (a mirror's kept inside it beyond,
 * where nothing needed lies; half: clamp as a reflection about the edge's middle): selects, no
 * division. */
static KExpr *source_near(Kb *b, BoundaryKind bc, int half, KExpr *x, KExpr *n)
{
    KExpr *below = k_bin(b, KO_LT, x, k_int(b, 0)), *beyond = k_bin(b, KO_GE, x, n);
    if (bc == BC_PERIODIC)
        return k_select(b, below, k_add(b, x, n), k_select(b, beyond, k_sub(b, x, n), x));
    KExpr *once = x;
    if (bc == BC_MIRROR)
        once = k_select(b, below, k_un(b, KO_NEG, x), k_select(b, beyond, k_sub(b, k_plus(b, k_add(b, n, n), -2), x), x));
    else if (half)
        once = k_select(b, below, k_sub(b, k_int(b, -1), x), k_select(b, beyond, k_sub(b, k_plus(b, k_add(b, n, n), -1), x), x));
    if (bc == BC_MIRROR || bc == BC_CLAMP)
        return k_call(b, "min", 2, k_call(b, "max", 2, once, k_int(b, 0)), k_plus(b, n, -1));
    return x;
}

/* x's source at any distance: periodic, mirror (reflection about 0 and n-1 without repeating
 * the edge, period 2(n-1) in 64 bits, as emit_bc.c's fill) and half clamp (reflection about
 * -1/2 and n-1/2, period 2n) by remainders. */
static KExpr *source_exact(CgCtx *ctx, KBlock *out, BoundaryKind bc, int half, KExpr *x, KExpr *n, const char *name)
{
    Kb *b = &ctx->kb;
    if (bc == BC_PERIODIC)
        return k_bin(b, KO_MOD, k_add(b, k_bin(b, KO_MOD, x, n), n), n);
    if (bc != BC_MIRROR && !half)
        return source_near(b, bc, 0, x, n);
    KExpr *m = k_let(b, out, "long long", arena_printf(ctx->arena, "%s_m", name),
                     k_plus(b, k_mul(b, k_cast(b, "long long", k_int(b, 2)), n), half ? 0 : -2));
    KExpr *wrapped = k_bin(b, KO_MOD, k_add(b, k_bin(b, KO_MOD, x, m), m), m);
    KExpr *r = k_let(b, out, "long long", arena_printf(ctx->arena, "%s_r", name),
                     k_select(b, k_bin(b, KO_GT, m, k_int(b, 0)), wrapped, k_int(b, 0)));
    return k_cast(b, "int", k_select(b, k_bin(b, KO_GE, r, n), k_sub(b, k_plus(b, m, half ? -1 : 0), r), r));
}

KExpr *tb_source(CgCtx *ctx, KBlock *out, BoundaryKind bc, KExpr *x, KExpr *n, int exact, const char *name)
{
    int half = half_reflects(ctx, bc);
    KExpr *src = exact ? source_exact(ctx, out, bc, half, x, n, name) : source_near(&ctx->kb, bc, half, x, n);
    return k_let(&ctx->kb, out, "int", name, src);
}

KExpr *tb_halo_source(CgCtx *ctx, KBlock *out, BoundaryKind bc, KExpr *x, KExpr *n, const char *name)
{
    return k_let(&ctx->kb, out, "int", name, source_exact(ctx, out, bc, 0, x, n, name));
}

/* ---- the streaming kernels ---- */

void tbs_rings(CgCtx *ctx, KBlock *out, const TbsGeom *g)
{
    const IrProgram *p = ctx->prog;
    long long slot = 0;
    for (int f = 0; f < p->nfields; f++) {
        for (int s = 0; tb_loads(ctx, f) && s < g->K; s++)
            tb_smem_pointer(ctx, out, arena_printf(ctx->arena, "tbs%d_%d", f, s), g->pad + slot++ * g->slots * g->plane);
        if (tb_three_levels(p, f))
            tb_smem_pointer(ctx, out, arena_printf(ctx->arena, "tbso%d", f), g->pad + slot++ * g->slots * g->plane);
    }
}

static KExpr *sd_extent(Kb *b, const TbsGeom *g) { return k_var(b, g->sd == 1 ? "n1" : "n2"); }

const char *tbs_name(CgCtx *ctx, const TbsGeom *g, const char *name)
{
    return g->C > 1 ? arena_printf(ctx->arena, "%s_c%d", name, g->col) : name;
}

KExpr *tbs_var(CgCtx *ctx, const TbsGeom *g, const char *name) { return k_var(&ctx->kb, tbs_name(ctx, g, name)); }

KExpr *tbs_queue(CgCtx *ctx, const TbsGeom *g, int f, int s, int pos)
{
    if (s < 0)
        return tbs_var(ctx, g, arena_printf(ctx->arena, "qo%d_%d", f, pos));
    return tbs_var(ctx, g, arena_printf(ctx->arena, "q%d_%d_%d", f, s, pos));
}

KExpr *tbs_own_register(CgCtx *ctx, const TbsGeom *g, const int off[3], int f, int s, int pos)
{
    if (tbs_inplane_offset(g, off) == 0)
        return tbs_queue(ctx, g, f, s, pos);
    int col = g->col + off[g->ca];
    for (int d = 0; d < g->dims; d++)
        if (d != g->sd && d != g->ca && off[d] != 0)
            return NULL;
    if (col < 0 || col >= g->C)
        return NULL;
    TbsGeom other = *g;
    other.col = col;
    return tbs_queue(ctx, &other, f, s, pos);
}

int tbs_ring_read(const TbsGeom *g)
{
    return g->dims != 2 || g->C == 1 || g->map || g->col < g->H[0] || g->col >= g->C - g->H[0];
}

KExpr *tbs_coord(CgCtx *ctx, const TbsGeom *g, int d)
{
    return d == g->ca ? tbs_var(ctx, g, axis_var[d]) : k_var(&ctx->kb, axis_var[d]);
}

KExpr *tbs_place(CgCtx *ctx, const TbsGeom *g, int d)
{
    return d == g->ca ? tbs_var(ctx, g, thread_var[d]) : k_var(&ctx->kb, thread_var[d]);
}

TbsGeom *tbs_columns(CgCtx *ctx, const TbsGeom *g)
{
    TbsGeom *cols = arena_alloc(ctx->arena, sizeof *cols * (size_t)g->C);
    for (int c = 0; c < g->C; c++) {
        cols[c] = *g;
        cols[c].col = c;
    }
    return cols;
}

/* The in-plane coordinate along d of the column's origin in the grid: the block's output tile
 * less the redundant halo, plus t (the column's place in the tile). */
static KExpr *column_origin(Kb *b, const TbsGeom *g, int d, KExpr *t)
{
    KExpr *block = g->fixups ? k_block_faces_first(b, d) : k_block(b, d);
    KExpr *origin = k_cast(b, "int", k_mul(b, block, k_uint(b, g->O[d])));
    return k_sub(b, k_add(b, origin, t), k_int(b, g->K * g->H[d]));
}

/* tx, i (and ty, j in 3D, where the thread has one column); the block's chunk along the axis:
 * output planes [zfirst, zstop), the first plane loaded, and the planes the loop walks. */
static void column_coordinates(CgCtx *ctx, KBlock *out, const TbsGeom *g)
{
    Kb *b = &ctx->kb;
    for (int d = 0; d < g->dims; d++) {
        if (d == g->sd)
            continue;
        KExpr *t = k_let(b, out, "int", thread_var[d], k_cast(b, "int", k_thread(b, d)));
        if (d != g->ca || g->C == 1)
            k_let(b, out, "int", axis_var[d], column_origin(b, g, d, t));
    }
    k_push(b, out, k_comment(b, "output planes [zfirst, zstop); the first plane loaded zload"));
    /* 2D: the chunks at both ends run the checked plane loop, the slow one; numbered last, the
     * last one's blocks made the kernel's tail (star2d1r tblock=12, 8192^2, H100: fixed 1397 ->
     * 1442 GStencil/s with them first, clamp 1269 -> 1357, mirror 1229 -> 1306). 3D blocks all
     * run the checked loop. */
    KExpr *chunk = g->fixups ? k_block_faces_first(b, g->sd) : g->dims == 2 ? k_block_ends_first(b, g->sd) : k_block(b, g->sd);
    KExpr *zfirst = k_let(b, out, "int", "zfirst", k_cast(b, "int", k_mul(b, chunk, k_uint(b, g->SB))));
    KExpr *last = k_call(b, "min", 2, k_add(b, zfirst, k_int(b, g->SB)), sd_extent(b, g));
    KExpr *zstop = k_let(b, out, "int", "zstop", last);
    KExpr *zload = k_let(b, out, "int", "zload", k_sub(b, zfirst, k_int(b, g->K * g->R)));
    k_let(b, out, "int", "count", k_add(b, k_sub(b, zstop, zload), k_int(b, g->K * g->Lag)));
}

/* Column g->col of a thread with several (TbsGeom.C): its place along the column axis, ty_c =
 * ty*C + col in the tile (tx_c in 2D), and its j_c (i_c). */
static void column_row(CgCtx *ctx, KBlock *out, const TbsGeom *g)
{
    Kb *b = &ctx->kb;
    if (g->C == 1)
        return;
    int a = g->ca;
    KExpr *t = k_plus(b, k_mul(b, k_var(b, thread_var[a]), k_int(b, g->C)), g->col);
    t = k_let(b, out, "int", tbs_name(ctx, g, thread_var[a]), t);
    k_let(b, out, "int", tbs_name(ctx, g, axis_var[a]), column_origin(b, g, a, t));
}

/* a >= lo && a < hi, and-ed onto acc */
static KExpr *within(Kb *b, KExpr *acc, KExpr *a, KExpr *lo, KExpr *hi)
{
    return k_and(b, k_and(b, acc, k_bin(b, KO_GE, a, lo)), k_bin(b, KO_LT, a, hi));
}

/* The column inside the grid, inside the buffer (grid and halo), with its in-plane neighbours
 * inside the tile, and inside the output tile. */
static void column_predicates(CgCtx *ctx, KBlock *out, const TbsGeom *g)
{
    Kb *b = &ctx->kb;
    KExpr *interior = NULL, *buffer = NULL, *inner = k_var(b, "true"), *output = tbs_var(ctx, g, "col_interior");
    for (int d = 0; d < g->dims; d++) {
        if (d == g->sd)
            continue;
        /* off the column axis the thread's columns share i and tx */
        KExpr *v = tbs_coord(ctx, g, d), *t = tbs_place(ctx, g, d), *n = k_varf(b, "n%d", d);
        int H = g->H[d], KH = g->K * g->H[d];
        interior = within(b, interior, v, k_int(b, 0), n);
        buffer = within(b, buffer, v, k_int(b, -H), k_add(b, n, k_int(b, H)));
        if (H) {
            inner = within(b, inner, t, k_int(b, H), k_int(b, g->E[d] - H));
            output = within(b, output, t, k_int(b, KH), k_int(b, g->E[d] - KH));
        }
    }
    k_let(b, out, "bool", tbs_name(ctx, g, "col_interior"), interior);
    k_let(b, out, "bool", tbs_name(ctx, g, "col_buffer"), buffer);
    if (g->col == 0)
        k_push(b, out, k_comment(b, "col_inner: the in-plane neighbours are inside the tile"));
    k_let(b, out, "bool", tbs_name(ctx, g, "col_inner"), inner);
    k_let(b, out, "bool", tbs_name(ctx, g, "col_out"), output);
}

/* One column's row, predicates, source, place in the ring (lcol) and in a global plane (cidx). */
static void column(CgCtx *ctx, KBlock *out, const TbsGeom *g)
{
    Kb *b = &ctx->kb;
    column_row(ctx, out, g);
    column_predicates(ctx, out, g);
    KExpr *x = tbs_coord(ctx, g, 0), *y = g->dims >= 3 ? tbs_coord(ctx, g, 1) : NULL;
    BoundaryKind bc;
    if (cg_temporal_edge(ctx->prog, &bc) != TB_HOLD) { /* the column's source */
        x = tb_source(ctx, out, bc, x, k_var(b, "n0"), 1, tbs_name(ctx, g, "src_i"));
        if (g->dims >= 3)
            y = tb_source(ctx, out, bc, y, k_var(b, "n1"), 1, tbs_name(ctx, g, "src_j"));
    }
    KExpr *lcol = k_var(b, "tx"), *cidx = k_cast(b, "long long", k_add(b, x, k_int(b, g->H[0])));
    lcol = k_plus(b, lcol, tbs_column_slot(g));
    if (g->dims >= 3) {
        lcol = k_add(b, k_mul(b, tbs_var(ctx, g, "ty"), k_int(b, g->E[0])), lcol);
        KExpr *row = k_cast(b, "long long", k_add(b, y, k_int(b, g->H[1])));
        cidx = k_add(b, k_mul(b, row, k_var(b, "s1")), cidx);
    }
    k_let(b, out, "int", tbs_name(ctx, g, "lcol"), lcol);
    k_let(b, out, "long long", tbs_name(ctx, g, "cidx"), cidx);
    if (g->col == 0)
        k_let(b, out, "long long", "ssd", k_var(b, g->sd == 1 ? "s1" : "s2"));
    tb_may_go_unused(ctx, out, tbs_name(ctx, g, "col_inner"));
    tb_may_go_unused(ctx, out, tbs_name(ctx, g, "lcol"));
    if (cg_temporal_edge(ctx->prog, NULL) != TB_HOLD)
        tb_may_go_unused(ctx, out, tbs_name(ctx, g, "col_buffer")); /* every column loads its source */
}

void tbs_column(CgCtx *ctx, KBlock *out, const TbsGeom *g)
{
    column_coordinates(ctx, out, g);
    TbsGeom *cols = tbs_columns(ctx, g);
    for (int c = 0; c < g->C; c++)
        column(ctx, out, &cols[c]);
}

KKernel *tbs_kernel(CgCtx *ctx, const char *name, const CgArgs *args, const TbsGeom *g, const char *comment)
{
    KKernel *k = cg_kernel(ctx, name, g->B, args);
    k->comment = comment;
    KExpr *s[3];
    tb_shared_memory(ctx, &k->body);
    cg_strides(ctx, &k->body, s);
    tbs_rings(ctx, &k->body, g);
    tbs_column(ctx, &k->body, g);
    return k;
}

void tbs_queue_registers(CgCtx *ctx, KBlock *out, const TbsGeom *g, int f)
{
    Kb *b = &ctx->kb;
    for (int s = 0; s < g->K; s++)
        for (int q = 0; q < g->Q; q++)
            k_push(b, out, k_decl(b, 0, ctx->T, tbs_queue(ctx, g, f, s, q)->name, tb_zero(ctx)));
    for (int q = 0; tb_three_levels(ctx->prog, f) && q < g->Q; q++)
        k_push(b, out, k_decl(b, 0, ctx->T, tbs_queue(ctx, g, f, -1, q)->name, tb_zero(ctx)));
}

KExpr *tbs_ring_at(CgCtx *ctx, const TbsGeom *g, int f, int s, long long offset)
{
    Kb *b = &ctx->kb;
    KExpr *ring = s < 0 ? k_varf(b, "tbso%d", f) : k_varf(b, "tbs%d_%d", f, s);
    return k_index(b, ring, k_add(b, tbs_var(ctx, g, "lcol"), k_int(b, offset)));
}

int tbs_wraps(const CgCtx *ctx) { return cg_temporal_edge(ctx->prog, NULL) == TB_WRAP; }

KExpr *tbs_plane_source(CgCtx *ctx, const TbsGeom *g, KExpr *x)
{
    BoundaryKind bc = BC_FIXED;
    if (cg_temporal_edge(ctx->prog, &bc) == TB_HOLD)
        return x;
    return source_near(&ctx->kb, bc, half_reflects(ctx, bc), x, sd_extent(&ctx->kb, g));
}

void tbs_plane_offsets(CgCtx *ctx, KBlock *copy, const TbsGeom *g)
{
    Kb *b = &ctx->kb;
    for (int s = 1; g->retime && s <= g->K; s++) {
        const char *name = arena_printf(ctx->arena, "po%d", s);
        KExpr *ps = tbs_plane_source(ctx, g, k_sub(b, k_var(b, "p0"), k_int(b, s * g->Lag)));
        KExpr *plane = k_cast(b, "long long", k_add(b, ps, k_int(b, g->R)));
        k_let(b, copy, "long long", name, k_mul(b, plane, k_var(b, "ssd")));
        if (s < g->K) /* only the last step stores */
            tb_may_go_unused(ctx, copy, name);
    }
}

KExpr *tbs_plane_index(CgCtx *ctx, const TbsGeom *g, int s, int inside)
{
    Kb *b = &ctx->kb;
    if (g->retime)
        return k_add(b, tbs_var(ctx, g, "cidx"), k_varf(b, "po%d", s));
    KExpr *ps = inside ? k_var(b, "ps") : tbs_plane_source(ctx, g, k_var(b, "ps"));
    KExpr *plane = k_cast(b, "long long", k_add(b, ps, k_int(b, g->R)));
    return k_add(b, tbs_var(ctx, g, "cidx"), k_mul(b, plane, k_var(b, "ssd")));
}

KExpr *tbs_plane_inside(CgCtx *ctx, const TbsGeom *g)
{
    Kb *b = &ctx->kb;
    return k_bin(b, KO_LT, k_cast(b, "unsigned", k_var(b, "ps")), k_cast(b, "unsigned", sd_extent(b, g)));
}

KExpr *tbs_output_plane(CgCtx *ctx, const TbsGeom *g)
{
    Kb *b = &ctx->kb;
    return within(b, tbs_var(ctx, g, "col_out"), k_var(b, "ps"), k_var(b, "zfirst"), k_var(b, "zstop"));
}

/* Column col's loads of every state field the step reads (a three-level field's older level
 * too) at cidx + offset in the buffer, where ld (NULL: always) holds, else zero. */
static void load_fields(CgCtx *ctx, KBlock *body, const TbsGeom *col, KExpr *ld, KExpr *offset)
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    for (int f = 0; f < p->nfields; f++) {
        for (int level = 0; level >= (tb_three_levels(p, f) ? -1 : 0) && tb_loads(ctx, f); level--) {
            KExpr *at = k_add(b, tbs_var(ctx, col, "cidx"), offset);
            KExpr *buf = cg_buf(ctx, f, level);
            KExpr *v = ld ? k_select(b, ld, k_index(b, buf, at), tb_zero(ctx)) : k_index(b, buf, at);
            const char *nx = arena_printf(ctx->arena, level ? "nxo%d" : "nx%d", f);
            k_push(b, body, k_assign(b, tbs_var(ctx, col, nx), v));
        }
    }
}

/* The loaded plane pn (where halo planes are not held and it may lie outside the grid, its
 * source pw), in scope. */
static KExpr *load_plane(CgCtx *ctx, KBlock *scope, const TbsGeom *g, KExpr *plane, int inside)
{
    KExpr *pn = k_let(&ctx->kb, scope, "int", "pn", plane);
    if (cg_temporal_edge(ctx->prog, NULL) != TB_HOLD && !inside)
        pn = k_let(&ctx->kb, scope, "int", "pw", tbs_plane_source(ctx, g, pn));
    return pn;
}

/* Where halo planes are held: acc && pn inside the buffer along the axis; else NULL (every
 * plane has a source, or it lies inside the grid). */
static KExpr *plane_in_buffer(CgCtx *ctx, const TbsGeom *g, KExpr *acc, KExpr *pn, int inside)
{
    Kb *b = &ctx->kb;
    if (cg_temporal_edge(ctx->prog, NULL) != TB_HOLD || inside)
        return NULL;
    return within(b, acc, pn, k_int(b, -g->R), k_add(b, sd_extent(b, g), k_int(b, g->R)));
}

/* tbs_load for column g->col (the plane's offset computed in the column's scope). */
static void load_column(CgCtx *ctx, KBlock *out, const TbsGeom *g, KExpr *plane, int inside)
{
    Kb *b = &ctx->kb;
    KStmt *scope = k_scope(b);
    KExpr *pn = load_plane(ctx, &scope->body, g, plane, inside);
    KExpr *ld = plane_in_buffer(ctx, g, tbs_var(ctx, g, "col_buffer"), pn, inside);
    if (ld)
        ld = k_let(b, &scope->body, "bool", "ld", ld);
    KExpr *row = k_cast(b, "long long", k_add(b, pn, k_int(b, g->R)));
    load_fields(ctx, &scope->body, g, ld, k_mul(b, row, k_var(b, "ssd")));
    k_push(b, out, scope);
}

/* tbs_load with the plane's offset in a buffer (po) and, where halo planes are held, whether the
 * plane lies in the buffer (pl), once for all the thread's columns. */
static void load_shared(CgCtx *ctx, KBlock *out, const TbsGeom *g, KExpr *plane, int inside)
{
    Kb *b = &ctx->kb;
    KStmt *scope = k_scope(b);
    KExpr *pn = load_plane(ctx, &scope->body, g, plane, inside), *pl = plane_in_buffer(ctx, g, NULL, pn, inside);
    if (pl)
        pl = k_let(b, &scope->body, "bool", "pl", pl);
    KExpr *row = k_cast(b, "long long", k_add(b, pn, k_int(b, g->R)));
    KExpr *po = k_let(b, &scope->body, "long long", "po", k_mul(b, row, k_var(b, "ssd")));
    TbsGeom *cols = tbs_columns(ctx, g);
    for (int c = 0; c < g->C; c++)
        load_fields(ctx, &scope->body, &cols[c], pl ? k_and(b, tbs_var(ctx, &cols[c], "col_buffer"), pl) : NULL, po);
    k_push(b, out, scope);
}

void tbs_load(CgCtx *ctx, KBlock *out, const TbsGeom *g, KExpr *plane, int inside)
{
    if (g->retime) {
        load_shared(ctx, out, g, plane, inside);
        return;
    }
    TbsGeom *cols = tbs_columns(ctx, g);
    for (int c = 0; c < g->C; c++)
        load_column(ctx, out, &cols[c], plane, inside);
}

KStmt *tbs_plane_loop(CgCtx *ctx, KBlock *out, const TbsGeom *g)
{
    Kb *b = &ctx->kb;
    KStmt *loop = k_for(b, "it", k_int(b, 0), k_var(b, "count"), k_int(b, g->Q), 0);
    k_push(b, out, loop);
    return loop;
}

KBlock *tbs_copy(CgCtx *ctx, KStmt *loop, const TbsGeom *g, int u, int inside)
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    KStmt *copy = k_scope(b);
    k_push(b, &loop->body, copy);
    KBlock *out = &copy->body;
    int slot = u % g->slots;
    k_push(b, out, k_comment(b, arena_printf(ctx->arena, "copy %d: the newest plane of every queue at position %d, "
                                             "of every ring at slot %d", u, u, slot)));
    if (u) {
        KStmt *last = k_if(b, k_bin(b, KO_GE, k_add(b, k_var(b, "it"), k_int(b, u)), k_var(b, "count")));
        k_push(b, &last->body, k_break(b));
        k_push(b, out, last);
    }
    KExpr *p0 = k_let(b, out, "int", "p0", k_add(b, k_add(b, k_var(b, "zload"), k_var(b, "it")), k_int(b, u)));
    TbsGeom *cols = tbs_columns(ctx, g);
    for (int c = 0; c < g->C; c++) {
        for (int f = 0; f < p->nfields; f++) {
            if (!tb_loads(ctx, f))
                continue;
            KExpr *nx = tbs_var(ctx, &cols[c], arena_printf(ctx->arena, "nx%d", f));
            k_push(b, out, k_assign(b, tbs_queue(ctx, &cols[c], f, 0, u), nx));
            if (tbs_ring_read(&cols[c]))
                k_push(b, out, k_assign(b, tbs_ring_at(ctx, &cols[c], f, 0, (long long)slot * g->plane), nx));
            if (!tb_three_levels(p, f))
                continue;
            KExpr *older = tbs_var(ctx, &cols[c], arena_printf(ctx->arena, "nxo%d", f));
            k_push(b, out, k_assign(b, tbs_queue(ctx, &cols[c], f, -1, u), older));
            if (tbs_ring_read(&cols[c]))
                k_push(b, out, k_assign(b, tbs_ring_at(ctx, &cols[c], f, -1, (long long)slot * g->plane), older));
        }
    }
    tbs_load(ctx, out, g, k_add(b, p0, k_int(b, 1)), inside);
    return out;
}
