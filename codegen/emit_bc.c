/* Device source of the boundary and bookkeeping kernels: halo fills by boundary condition,
 * whole-buffer copies, and fixed halos' copies and temps' zeroing face by face. */
#include "emit.h"
#include "opt_temporal_build.h" /* tb_halo_source */

#include <stdio.h>

/* Padded extent of axis d: an int, which ir.h's index range bounds by IR_MAX_EXTENT (the host
 * code refuses larger sizes before any launch). */
static KExpr *padded(CgCtx *ctx, int d)
{
    Kb *b = &ctx->kb;
    return d < ctx->prog->dims ? k_plus(b, k_varf(b, "n%d", d), 2 * ctx->prog->halo[d]) : k_int(b, 1);
}

/* The stride of axis d (1 along x). */
static KExpr *stride(CgCtx *ctx, int d) { return d == 0 ? k_int(&ctx->kb, 1) : k_varf(&ctx->kb, "s%d", d); }

/* buf[base + (long long)at * stride] = value, under `if (side)` in the distributed variant. */
static void fill_store(CgCtx *ctx, KBlock *out, const char *side, KExpr *at, int axis, KExpr *value, int field)
{
    Kb *b = &ctx->kb;
    KExpr *where = k_add(b, k_var(b, "base"), k_mul(b, k_cast(b, "long long", at), stride(ctx, axis)));
    KStmt *st = k_assign(b, k_index(b, cg_buf(ctx, field, 0), where), value);
    if (side) {
        KStmt *guard = k_if(b, k_var(b, side));
        k_push(b, &guard->body, st);
        st = guard;
    }
    k_push(b, out, st);
}

/* One face of layer h of the halo (side 0: low, 1: high): the face's constant, or a copy of the
 * interior point its condition names; nothing on a fixed face. */
static void fill_face(CgCtx *ctx, KBlock *out, int field, int axis, int side, int sided)
{
    Kb *b = &ctx->kb;
    IrBc bc = ir_bc(&ctx->prog->fields[field], axis, side);
    int h = ctx->prog->halo[axis];
    KExpr *layer = k_var(b, "h"), *n = k_varf(b, "n%d", axis);
    const char *guard = sided ? (side ? "side_hi" : "side_lo") : NULL, *c = side ? "hi" : "lo";
    /* the halo coordinate: -h below the grid, n-1+h above it */
    KExpr *at = side ? k_add(b, k_plus(b, n, -1), layer) : k_un(b, KO_NEG, layer);
    if (bc.kind == BC_FIXED)
        return;
    if (bc.kind == BC_CONSTANT) {
        fill_store(ctx, out, guard, k_plus(b, at, h), axis, k_real(b, bc.value), field);
        return;
    }
    /* the source at any distance (n may be smaller than the halo), by the one formula of
     * periodic, clamp and mirror that fused steps use too */
    KExpr *x = k_let(b, out, "int", c, at);
    KExpr *src = tb_halo_source(ctx, out, bc.kind, x, n, arena_printf(ctx->arena, "src_%s", c));
    KExpr *from = k_mul(b, k_cast(b, "long long", k_plus(b, src, h)), stride(ctx, axis));
    KExpr *value = k_index(b, cg_buf(ctx, field, 0), k_add(b, k_var(b, "base"), from));
    fill_store(ctx, out, guard, k_plus(b, x, h), axis, value, field);
}

/* A kernel over one axis's faces: thread (q, r) = a padded point of the other two axes, x
 * first, bounds checked; `base` is its offset with the axis's coordinate 0. */
static KKernel *face_kernel(CgCtx *ctx, int axis, const char *name, const CgArgs *args)
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    int o[2];
    cg_face_axes(axis, o);
    int o1 = o[0], o2 = o[1];
    int block[3] = {CG_UTIL_BLOCK, 1, 1};
    KKernel *k = cg_kernel(ctx, name, block, args);
    KExpr *q = k_let(b, &k->body, "int", "q", k_cast(b, "int", k_add(b, k_mul(b, k_block(b, 0), k_uint(b, CG_UTIL_BLOCK)), k_thread(b, 0))));
    KExpr *r = o2 < p->dims ? k_let(b, &k->body, "int", "r", k_cast(b, "int", k_block(b, 1))) : NULL;
    KStmt *guard = k_if(b, k_or(b, k_bin(b, KO_GE, q, padded(ctx, o1)), r ? k_bin(b, KO_GE, r, padded(ctx, o2)) : NULL));
    k_push(b, &guard->body, k_return(b));
    k_push(b, &k->body, guard);
    KExpr *s[3];
    cg_strides(ctx, &k->body, s);
    KExpr *base = o1 < p->dims ? k_mul(b, k_cast(b, "long long", q), stride(ctx, o1)) : k_int(b, 0);
    if (r)
        base = k_add(b, base, k_mul(b, k_cast(b, "long long", r), stride(ctx, o2)));
    k_let(b, &k->body, "long long", "base", base);
    return k;
}

void cg_emit_fill(CgCtx *ctx, int field, int axis, const char *name, const CgArgs *args)
{
    const IrProgram *p = ctx->prog;
    const IrField *f = &p->fields[field];
    Kb *b = &ctx->kb;
    KKernel *k = face_kernel(ctx, axis, name, args);
    IrBc lo = ir_bc(f, axis, 0), hi = ir_bc(f, axis, 1);
    const char *kinds = ir_bc_name(lo.kind);
    if (hi.kind != lo.kind)
        kinds = arena_printf(ctx->arena, "%s | %s", kinds, ir_bc_name(hi.kind));
    k->comment = arena_printf(ctx->arena, "halo of %s along %c (%s), over the padded extent of the other axes",
                              f->name, "xyz"[axis], kinds);
    /* the distributed code's variant fills only the sides that are faces of the global grid */
    int sided = cg_args_find(args, ARG_SIDE, 0, 0, 2 * axis) >= 0;
    KStmt *layers = k_for(b, "h", k_int(b, 1), k_int(b, p->halo[axis] + 1), NULL, 0);
    fill_face(ctx, &layers->body, field, axis, 0, sided);
    fill_face(ctx, &layers->body, field, axis, 1, sided);
    k_push(b, &k->body, layers);
    cg_add_kernel(ctx, k);
}

/* Every layer of both faces along one axis set in the levels the launch writes: copied from
 * level 0 (zero: set to 0). The launches of all axes cover the halo (edges twice, the same
 * values); a thread per point of the other axes, so the cost is the halo's, not the grid's. */
static void halo_faces(CgCtx *ctx, int field, int axis, const char *name, const CgArgs *args, const char *what,
                       int zero)
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    KKernel *k = face_kernel(ctx, axis, name, args);
    k->comment = arena_printf(ctx->arena, "%s (along %c)", what, "xyz"[axis]);
    int h = p->halo[axis];
    KStmt *layers = k_for(b, "h", k_int(b, 1), k_int(b, h + 1), NULL, 0);
    for (int side = 0; side < 2; side++) {
        /* padded coordinates: h - layer below the grid, n - 1 + h + layer above it (expressions
         * are trees, kir.h: each use builds its own) */
        const char *at = side ? "at_hi" : "at_lo";
        KExpr *layer = k_var(b, "h");
        KExpr *coord = side ? k_plus(b, k_add(b, k_varf(b, "n%d", axis), layer), h - 1) : k_un(b, KO_NEG, k_plus(b, layer, -h));
        k_let(b, &layers->body, "long long", at, k_add(b, k_var(b, "base"), k_mul(b, k_cast(b, "long long", coord), stride(ctx, axis))));
        for (int i = 0; i < args->nargs; i++) {
            if (args->args[i].kind != ARG_BUF || !args->writes[i])
                continue;
            KExpr *value = zero ? k_cast(b, ctx->T, k_int(b, 0)) : k_index(b, cg_buf(ctx, field, 0), k_var(b, at));
            k_push(b, &layers->body, k_assign(b, k_index(b, cg_buf(ctx, field, args->args[i].level), k_var(b, at)), value));
        }
    }
    k_push(b, &k->body, layers);
    cg_add_kernel(ctx, k);
}

void cg_emit_halo_copy(CgCtx *ctx, int field, int axis, const char *name, const CgArgs *args)
{
    halo_faces(ctx, field, axis, name, args, "fixed boundary: every buffer starts with the newest one's halo", 0);
}

void cg_emit_halo_zero(CgCtx *ctx, int field, int axis, const char *name, const CgArgs *args)
{
    halo_faces(ctx, field, axis, name, args, "a temp's fixed halo holds 0 (its stage writes the interior)", 1);
}

/* A whole-padded-buffer kernel: thread (a, b, c) = padded point, bounds checked, linear index
 * `at`; returns it with the kernel. */
static KKernel *whole_buffer(CgCtx *ctx, const char *name, const CgArgs *args, const char *what, KExpr *c[3])
{
    const IrProgram *p = ctx->prog;
    Kb *b = &ctx->kb;
    int block[3] = {CG_UTIL_BLOCK, 1, 1};
    KKernel *k = cg_kernel(ctx, name, block, args);
    k->comment = what;
    static const char *const coord[3] = {"a", "b", "c"};
    KExpr *outside = NULL;
    for (int d = 0; d < p->dims; d++) {
        KExpr *v = d == 0 ? k_add(b, k_mul(b, k_block(b, 0), k_uint(b, CG_UTIL_BLOCK)), k_thread(b, 0)) : k_block(b, d);
        c[d] = k_let(b, &k->body, "int", coord[d], k_cast(b, "int", v));
        outside = k_or(b, outside, k_bin(b, KO_GE, c[d], padded(ctx, d)));
    }
    KStmt *guard = k_if(b, outside);
    k_push(b, &guard->body, k_return(b));
    k_push(b, &k->body, guard);
    KExpr *s[3];
    cg_strides(ctx, &k->body, s);
    KExpr *at = NULL;
    for (int d = p->dims - 1; d >= 1; d--) {
        KExpr *term = k_mul(b, k_cast(b, "long long", c[d]), s[d]);
        at = at ? k_add(b, at, term) : term;
    }
    k_let(b, &k->body, "long long", "at", at ? k_add(b, at, c[0]) : c[0]);
    return k;
}

static KExpr *at_of(CgCtx *ctx, int field, int level)
{
    return k_index(&ctx->kb, cg_buf(ctx, field, level), k_var(&ctx->kb, "at"));
}

void cg_emit_copy(CgCtx *ctx, int field, const char *name, const CgArgs *args)
{
    KExpr *c[3];
    KKernel *k = whole_buffer(ctx, name, args, "a state field the step does not write keeps its value", c);
    k_push(&ctx->kb, &k->body, k_assign(&ctx->kb, at_of(ctx, field, 1), at_of(ctx, field, 0)));
    cg_add_kernel(ctx, k);
}
