/* The arithmetic of --same-bits (prog->same_bits): every add, subtract, multiply and divide of a
 * point is written as CUDA's round-to-nearest intrinsic, which nvcc never contracts into a fused
 * multiply-add nor reassociates. Where nvcc chooses per unrolled copy which product of a sum
 * stays a plain multiply (docs/distributed.md, "Correctness"), the kernel families then round
 * every point alike.
 *
 * The rule, on the IR stage (kir_point.c applies it; the same nodes in every family):
 * - add(x, y) where y is a product used once: fma(y.a, y.b, x); else where x is one:
 *   fma(x.a, x.b, y); else an explicitly rounded add. So a*b + c*d + e*f, which the IR holds as
 *   ((a*b + c*d) + e*f), becomes fma(e, f, fma(c, d, mul(a, b))).
 * - sub(x, y) alike: fma(-y.a, y.b, x), else fma(x.a, x.b, -y), else a rounded subtract
 *   (negation is exact).
 * - every other mul, div, add and sub: the rounded intrinsic; a shared node (a variable vN)
 *   is a value already rounded and never fused.
 * Other operations (sqrt, exp, min, comparisons, ...) are printed as without the option: they
 * are the same call in every kernel. */
#include "emit.h"

/* The intrinsic of op in the program's type, or NULL where the op keeps its default form. */
static const char *rn_name(IrOp op, int is_float)
{
    switch (op) {
    case N_ADD: return is_float ? "__fadd_rn" : "__dadd_rn";
    case N_SUB: return is_float ? "__fsub_rn" : "__dsub_rn";
    case N_MUL: return is_float ? "__fmul_rn" : "__dmul_rn";
    case N_DIV: return is_float ? "__fdiv_rn" : "__ddiv_rn";
    default: return NULL;
    }
}

int cg_rn_has(IrOp op) { return rn_name(op, 1) != NULL; }

KExpr *cg_rn_binary(CgCtx *ctx, IrOp op, KExpr *x, KExpr *y)
{
    return k_call(&ctx->kb, rn_name(op, ctx->prog->type == ELEM_FLOAT), 2, x, y);
}

KExpr *cg_rn_fma(CgCtx *ctx, KExpr *a, KExpr *b, KExpr *c)
{
    return k_call(&ctx->kb, ctx->prog->type == ELEM_FLOAT ? "__fmaf_rn" : "__fma_rn", 3, a, b, c);
}
