/* The pieces of the stream pass's kernels that the ring, register mode and retiming share. */
#include "opt_stream_build.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The built-ins' coordinates (CgCtx.kcoord): x is i, the other in-plane axis the thread's row
 * jb (+ its output row in register mode), the streaming axis the output plane t - R. */
static KExpr *stream_coord(CgCtx *ctx, int axis)
{
    StreamB *sb = (StreamB *)ctx;
    Kb *b = sb->b;
    if (axis == CG_FUSED_STEP)
        return NULL;
    if (axis == sb->g->sd)
        return sb->plane ? sb->plane : k_plus(b, k_var(b, "t"), -sb->g->R);
    return axis == 0 ? k_var(b, "i") : k_plus(b, k_var(b, "jb"), sb->row);
}

StreamB *stream_builder(CgCtx *ctx, int stage, const StreamGeom *g, CgReadFn read)
{
    StreamB *sb = arena_alloc(ctx->arena, sizeof *sb);
    sb->pt = *ctx;
    sb->pt.stage = stage;
    sb->pt.prog = cg_fast_arith(ctx->prog, stage, ctx->arena);
    sb->pt.kread = read;
    sb->pt.kstore = NULL;
    sb->pt.kidx = NULL;
    sb->pt.kcoord = stream_coord;
    sb->ctx = ctx;
    sb->b = &ctx->kb;
    sb->g = g;
    sb->buf = arena_alloc(ctx->arena, sizeof(KExpr *) * (size_t)(g->nsrc + 1));
    for (int k = 0; k < g->nsrc; k++)
        sb->buf[k] = cg_buf(ctx, g->src[k].field, g->src[k].level);
    return sb;
}

const char *stream_name(StreamB *sb, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return arena_strdup(sb->ctx->arena, buf);
}

KExpr *stream_add(StreamB *sb, KExpr *x, long long c) { return k_add(sb->b, x, k_int(sb->b, c)); }
KExpr *stream_sub(StreamB *sb, KExpr *x, long long c) { return k_sub(sb->b, x, k_int(sb->b, c)); }

KExpr *stream_zero(StreamB *sb) { return k_cast(sb->b, sb->ctx->T, k_int(sb->b, 0)); }

KExpr *stream_var(StreamB *sb, const char *prefix, int k, int p)
{
    char pn[16];
    return k_varf(sb->b, "%s%d_%s", prefix, k, cg_stream_signed_name(pn, p));
}

char stream_axis_letter(int axis) { return "xyz"[axis]; }

void stream_smem(StreamB *sb, KBlock *out, const char *name, int all)
{
    Kb *b = sb->b;
    const char *T = sb->ctx->T;
    const char *bytes = arena_printf(sb->ctx->arena, "%s_smem", name);
    KStmt *smem = k_array(b, KQ_SHARED, "unsigned char", bytes, 0);
    smem->align = 16;
    k_push(b, out, smem);
    for (int k = 0; k < sb->g->nsrc; k++) {
        if (!all && !sb->g->src[k].slots)
            continue;
        KExpr *at = stream_add(sb, k_cast(b, arena_printf(sb->ctx->arena, "%s *", T), k_var(b, bytes)),
                           sb->g->src[k].smem_offset);
        k_push(b, out, k_decl(b, 0, arena_printf(sb->ctx->arena, "%s *const", T),
                              arena_printf(sb->ctx->arena, "sm%d", k), at));
    }
}

void stream_z_range(StreamB *sb, KBlock *out)
{
    Kb *b = sb->b;
    const StreamGeom *g = sb->g;
    KExpr *z0 = k_let(b, out, "int", "z0", k_cast(b, "int", k_mul(b, k_block(b, g->sd), k_uint(b, g->sb))));
    KExpr *last = k_call(b, "min", 2, stream_add(sb, z0, g->sb), k_varf(b, "n%d", g->sd));
    KExpr *zend = k_let(b, out, "int", "zend", last);
    k_let(b, out, "int", "tlast", stream_add(sb, stream_sub(sb, zend, 1), g->R));
}

void stream_unused(StreamB *sb, KBlock *out, const char *const names[], int n)
{
    for (int i = 0; i < n; i++)
        k_push(sb->b, out, k_eval(sb->b, k_cast(sb->b, "void", k_var(sb->b, names[i]))));
}

void stream_launch(CgCtx *ctx, PlanLaunch *l, const StreamGeom *g, int ab_rows)
{
    const Config *c = ctx->cfg;
    int block[3] = {c->v[P_TBX], c->v[P_TBY], c->v[P_TBZ]};
    for (int d = 0; d < 3; d++) {
        l->block[d] = block[d];
        l->tile[d] = d == g->sd ? g->sb : d == g->ab ? block[d] * ab_rows : block[d];
        l->axis_of[d] = d;
    }
    l->smem_bytes = (int)(g->smem_elems * ir_elem_size(ctx->prog));
}

int stream_outputs(StreamB *sb, KExpr *outs[])
{
    const IrProgram *p = sb->ctx->prog;
    const IrStage *st = &p->stages[sb->pt.stage];
    int n = 0;
    for (int w = 0; w < st->nwrites && n < STREAM_MAX_SRC; w++) {
        const IrWrite *wr = &st->writes[w];
        if (!cg_field_stored(p, wr->field))
            continue;
        KExpr *a = cg_buf(sb->ctx, wr->field, p->fields[wr->field].role == ROLE_STATE ? 1 : 0);
        int dup = 0;
        for (int k = 0; k < n; k++)
            dup |= strcmp(outs[k]->name, a->name) == 0;
        if (!dup)
            outs[n++] = a;
    }
    return n;
}
