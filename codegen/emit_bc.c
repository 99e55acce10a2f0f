/* Device source of the boundary and bookkeeping kernels: halo fills by boundary condition,
 * zeroing of temps, whole-buffer copies and halo copies. */
#include "emit.h"

#include <stdio.h>

static const char *const stride_name[3] = {"1", "s1", "s2"};

/* Padded extent of axis d as an expression of the dims arguments: an int, which ir.h's index
 * range bounds by IR_MAX_EXTENT (the host code refuses larger sizes before any launch). */
static void padded(StrBuf *o, const IrProgram *p, int d)
{
    if (d < p->dims)
        sb_printf(o, "(n%d + %d)", d, 2 * p->halo[d]);
    else
        sb_puts(o, "1");
}

static const char *buf_name(CgCtx *ctx, int field, int level)
{
    PlanArg a = {ARG_BUF, field, level, 0};
    char an[160];
    cg_arg_name(ctx->prog, &a, an, sizeof an);
    return arena_strdup(ctx->arena, an);
}

/* Declares `src_<c>`: the interior coordinate whose value halo coordinate `c` takes, along an
 * axis of n points. Periodic and mirror are written for any n (even n smaller than the halo). */
static void emit_source_coord(StrBuf *o, BoundaryKind bc, const char *c, const char *n)
{
    switch (bc) {
    case BC_PERIODIC:
        sb_printf(o, "        const int src_%s = ((%s %% %s) + %s) %% %s;\n", c, c, n, n, n);
        return;
    case BC_CLAMP:
        sb_printf(o, "        const int src_%s = %s < 0 ? 0 : %s - 1;\n", c, c, n);
        return;
    case BC_MIRROR:
        /* reflect about 0 and n-1 without repeating the edge: period 2(n-1), which passes
         * INT_MAX for n > 2^30, so the reflection is computed in 64 bits */
        sb_printf(o, "        long long src_%s = period > 0 ? ((%s %% period) + period) %% period : 0;\n", c, c);
        sb_printf(o, "        if (src_%s >= %s)\n            src_%s = period - src_%s;\n", c, n, c, c);
        return;
    default:
        sb_printf(o, "        const int src_%s = %s;\n", c, c);
        return;
    }
}

void cg_emit_fill(CgCtx *ctx, int field, int axis, const char *name, const CgArgs *args)
{
    const IrProgram *p = ctx->prog;
    const IrField *f = &p->fields[field];
    StrBuf *o = ctx->src;
    int o1 = axis == 0 ? 1 : 0, o2 = axis == 2 ? 1 : 2; /* the other two axes, x first */
    int block[3] = {CG_UTIL_BLOCK, 1, 1};
    const char *buf = buf_name(ctx, field, 0);
    static const char axis_letter[3] = {'x', 'y', 'z'};
    sb_printf(o, "/* halo of %s along %c (%s), over the padded extent of the other axes */\n",
              f->name, axis_letter[axis],
              f->bc == BC_CONSTANT ? "constant" : f->bc == BC_PERIODIC ? "periodic"
              : f->bc == BC_CLAMP  ? "clamp" : f->bc == BC_MIRROR ? "mirror" : "fixed");
    cg_emit_signature(ctx, name, block, args);
    sb_printf(o, "    const int q = (int)(blockIdx.x * %uu + threadIdx.x);\n", (unsigned)CG_UTIL_BLOCK);
    if (o2 < p->dims)
        sb_puts(o, "    const int r = (int)blockIdx.y;\n");
    sb_puts(o, "    if (q >= ");
    padded(o, p, o1);
    if (o2 < p->dims) {
        sb_puts(o, " || r >= ");
        padded(o, p, o2);
    }
    sb_puts(o, ")\n        return;\n");
    cg_emit_strides(ctx);
    if (o1 < p->dims)
        sb_printf(o, "    const long long base = (long long)q * %s", stride_name[o1]);
    else
        sb_puts(o, "    const long long base = 0");
    if (o2 < p->dims)
        sb_printf(o, " + (long long)r * %s", stride_name[o2]);
    sb_puts(o, ";\n");
    int h = p->halo[axis];
    const char *sa = stride_name[axis];
    /* the distributed code's variant fills only the sides that are faces of the global grid */
    int sided = cg_args_find(args, ARG_SIDE, 0, 0, 2 * axis) >= 0;
    const char *if_lo = sided ? "if (side_lo)\n            " : "";
    const char *if_hi = sided ? "if (side_hi)\n            " : "";
    sb_printf(o, "    for (int h = 1; h <= %d; h++) {\n", h);
    if (f->bc == BC_CONSTANT) {
        sb_printf(o, "        %s%s[base + (long long)(%d - h) * %s] = ", if_lo, buf, h, sa);
        cg_emit_const(o, f->bc_value, p->type);
        sb_printf(o, ";\n        %s%s[base + (long long)(n%d + %d - 1 + h) * %s] = ", if_hi, buf, axis, h, sa);
        cg_emit_const(o, f->bc_value, p->type);
        sb_puts(o, ";\n");
    } else {
        char nname[8];
        snprintf(nname, sizeof nname, "n%d", axis);
        sb_puts(o, "        const int lo = -h;\n");
        sb_printf(o, "        const int hi = n%d - 1 + h;\n", axis);
        if (f->bc == BC_MIRROR)
            sb_printf(o, "        const long long period = 2LL * n%d - 2;\n", axis);
        emit_source_coord(o, f->bc, "lo", nname);
        emit_source_coord(o, f->bc, "hi", nname);
        sb_printf(o, "        %s%s[base + (long long)(lo + %d) * %s] = %s[base + (long long)(src_lo + %d) * %s];\n",
                  if_lo, buf, h, sa, buf, h, sa);
        sb_printf(o, "        %s%s[base + (long long)(hi + %d) * %s] = %s[base + (long long)(src_hi + %d) * %s];\n",
                  if_hi, buf, h, sa, buf, h, sa);
    }
    sb_puts(o, "    }\n}\n\n");
}

/* The common head of a whole-padded-buffer kernel: thread (a, b, c) = padded point, bounds
 * checked, linear index `at`. */
static void whole_buffer_head(CgCtx *ctx, const char *name, const CgArgs *args, const char *what)
{
    const IrProgram *p = ctx->prog;
    StrBuf *o = ctx->src;
    int block[3] = {CG_UTIL_BLOCK, 1, 1};
    sb_printf(o, "/* %s */\n", what);
    cg_emit_signature(ctx, name, block, args);
    sb_printf(o, "    const int a = (int)(blockIdx.x * %uu + threadIdx.x);\n", (unsigned)CG_UTIL_BLOCK);
    if (p->dims >= 2)
        sb_puts(o, "    const int b = (int)blockIdx.y;\n");
    if (p->dims >= 3)
        sb_puts(o, "    const int c = (int)blockIdx.z;\n");
    sb_puts(o, "    if (a >= ");
    padded(o, p, 0);
    if (p->dims >= 2) {
        sb_puts(o, " || b >= ");
        padded(o, p, 1);
    }
    if (p->dims >= 3) {
        sb_puts(o, " || c >= ");
        padded(o, p, 2);
    }
    sb_puts(o, ")\n        return;\n");
    cg_emit_strides(ctx);
    sb_puts(o, "    const long long at = ");
    if (p->dims >= 3)
        sb_puts(o, "(long long)c * s2 + ");
    if (p->dims >= 2)
        sb_puts(o, "(long long)b * s1 + ");
    sb_puts(o, "a;\n");
}

void cg_emit_zero(CgCtx *ctx, int field, const char *name, const CgArgs *args)
{
    whole_buffer_head(ctx, name, args, "zero a temp buffer (its fixed halo holds 0)");
    sb_printf(ctx->src, "    %s[at] = (%s)0;\n}\n\n", buf_name(ctx, field, 0), ctx->T);
}

void cg_emit_copy(CgCtx *ctx, int field, const char *name, const CgArgs *args)
{
    whole_buffer_head(ctx, name, args, "a state field the step does not write keeps its value");
    sb_printf(ctx->src, "    %s[at] = %s[at];\n}\n\n", buf_name(ctx, field, 1), buf_name(ctx, field, 0));
}

void cg_emit_halo_copy(CgCtx *ctx, int field, const char *name, const CgArgs *args)
{
    const IrProgram *p = ctx->prog;
    StrBuf *o = ctx->src;
    whole_buffer_head(ctx, name, args, "fixed boundary: every buffer starts with the newest one's halo");
    static const char coord[3] = {'a', 'b', 'c'};
    sb_puts(o, "    if (");
    for (int d = 0; d < p->dims; d++)
        sb_printf(o, "%s(%c >= %d && %c < n%d + %d)", d ? " && " : "", coord[d], p->halo[d], coord[d],
                  d, p->halo[d]);
    sb_puts(o, ")\n        return;\n");
    for (int i = 0; i < args->nargs; i++)
        if (args->args[i].kind == ARG_BUF && args->writes[i])
            sb_printf(o, "    %s[at] = %s[at];\n", buf_name(ctx, field, args->args[i].level),
                      buf_name(ctx, field, 0));
    sb_puts(o, "}\n\n");
}
