/* The arithmetic of the optimized kernels, a copy of one stage that the plain kernel (the
 * reference of the final check) does not use:
 * - A division by a constant becomes a multiplication by the constant's reciprocal (in the
 *   program's type): an IEEE division is a long instruction sequence (j2d5pt's `/ 118` made its
 *   fused kernels compute-bound, in double 4.7x slower than star2d1r's on an H200), a
 *   multiplication one instruction; the result differs by about an ulp per step, within the
 *   verification's tolerance.
 * - With --fast-math (prog->fast_math, float only), also `a / sqrt(x)` becomes
 *   `a * rsqrt(x)` where that square root has no other use, and the copy is marked fast_ops:
 *   the emitter writes the other divisions as __fdividef and exp, log, sin, cos and pow as
 *   their approximate intrinsics, what `nvcc --use_fast_math` does to the whole file (AN5D
 *   builds its kernels that way), written into the source so that the user's own nvcc flags
 *   do not matter. rt_tolerance verifies such kernels at a looser tolerance.
 * - With --same-bits (prog->same_bits), nothing here: every kernel, the plain one included,
 *   multiplies by the reciprocal as its point is built (kir_point.c, cg_recip_const), so that
 *   all round alike and none pays for the division. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "emit.h"

int cg_recip_const(const IrStage *st, const IrNode *n, ElemType t, double *recip)
{
    if (n->op != N_DIV || n->b < 0 || n->b >= st->nnodes || st->nodes[n->b].op != N_CONST)
        return 0;
    double c = st->nodes[n->b].value;
    if (!isfinite(c) || c == 0)
        return 0;
    double r = t == ELEM_FLOAT ? (double)(float)(1.0 / c) : 1.0 / c;
    if (!isfinite(r) || fabs(r) < (t == ELEM_FLOAT ? FLT_MIN : DBL_MIN)) /* not a normal number */
        return 0;
    if (recip)
        *recip = 1.0 / c;
    return 1;
}

static int recip_ok(const IrProgram *p, const IrStage *st, const IrNode *n)
{
    return cg_recip_const(st, n, p->type, NULL);
}

/* Uses of each node by the stage's nodes and writes (the IR's own counts are not trusted). */
static int *count_uses(const IrStage *st, Arena *arena)
{
    int *uses = arena_alloc(arena, sizeof(int) * (size_t)(st->nnodes + 1));
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        const int ops[3] = {n->a, n->b, n->c};
        for (int k = 0; k < ir_op_arity(n->op); k++)
            if (ops[k] >= 0 && ops[k] < st->nnodes)
                uses[ops[k]]++;
    }
    for (int w = 0; w < st->nwrites; w++)
        if (st->writes[w].node >= 0 && st->writes[w].node < st->nnodes)
            uses[st->writes[w].node]++;
    return uses;
}

/* With fast_math: node n divides by a square root that nothing else uses. */
static int rsqrt_ok(const IrStage *st, const IrNode *n, const int *uses)
{
    return n->op == N_DIV && n->b >= 0 && n->b < st->nnodes && st->nodes[n->b].op == N_SQRT
           && uses[n->b] == 1;
}

const IrProgram *cg_fast_arith(const IrProgram *p, int stage, Arena *arena)
{
    if (p->same_bits || stage < 0 || stage >= p->nstages)
        return p; /* --same-bits: the point builder takes the reciprocal in every kernel */
    const IrStage *st = &p->stages[stage];
    int fast = p->fast_math && p->type == ELEM_FLOAT;
    int *uses = fast ? count_uses(st, arena) : NULL;
    int ndiv = 0;
    for (int i = 0; i < st->nnodes; i++)
        ndiv += recip_ok(p, st, &st->nodes[i]);
    if (!ndiv && !fast)
        return p;
    IrProgram *q = arena_alloc(arena, sizeof *q);
    *q = *p;
    q->fast_ops = fast;
    IrStage *stages = arena_alloc(arena, sizeof *stages * (size_t)p->nstages);
    memcpy(stages, p->stages, sizeof *stages * (size_t)p->nstages);
    IrNode *nodes = arena_alloc(arena, sizeof *nodes * (size_t)(st->nnodes + ndiv + 1));
    memcpy(nodes, st->nodes, sizeof *nodes * (size_t)st->nnodes);
    /* The reciprocal constants go after the stage's nodes: constants are always inlined, so
     * their place in the list does not matter to the emitter. The square root turns into the
     * reciprocal square root in place, so operands still come before their users. */
    int at = st->nnodes;
    for (int i = 0; i < st->nnodes; i++) {
        if (recip_ok(p, st, &st->nodes[i])) {
            IrNode *k = &nodes[at];
            k->op = N_CONST;
            k->a = k->b = k->c = -1;
            k->value = 1.0 / st->nodes[st->nodes[i].b].value;
            k->uses = 1;
            nodes[i].op = N_MUL;
            nodes[i].b = at++;
        } else if (fast && rsqrt_ok(st, &st->nodes[i], uses)) {
            nodes[st->nodes[i].b].op = N_RSQRT;
            nodes[i].op = N_MUL;
        }
    }
    stages[stage].nodes = nodes;
    stages[stage].nnodes = at;
    stages[stage].cap_nodes = at;
    q->stages = stages;
    return q;
}
