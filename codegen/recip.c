/* Division by a constant as a multiplication by the constant's float reciprocal, in float
 * programs: an IEEE float division is a long instruction sequence (j2d5pt's `/ 118` made its
 * kernels compute-bound), a multiplication one instruction; the result differs by about an ulp
 * per step, within the verification's tolerance. The optimized kernels emit this copy of a
 * stage; the plain kernel keeps the division (it is the reference of the final check). */
#include <math.h>
#include <string.h>

#include "emit.h"

static int recip_ok(const IrStage *st, const IrNode *n)
{
    if (n->op != N_DIV || n->b < 0 || n->b >= st->nnodes || st->nodes[n->b].op != N_CONST)
        return 0;
    double c = st->nodes[n->b].value;
    if (!isfinite(c) || c == 0)
        return 0;
    float r = (float)(1.0 / c);
    return isfinite(r) && fabsf(r) >= 1.17549435e-38f; /* a normal float */
}

const IrProgram *cg_recip_divisions(const IrProgram *p, int stage, Arena *arena)
{
    if (p->type != ELEM_FLOAT || stage < 0 || stage >= p->nstages)
        return p;
    const IrStage *st = &p->stages[stage];
    int ndiv = 0;
    for (int i = 0; i < st->nnodes; i++)
        ndiv += recip_ok(st, &st->nodes[i]);
    if (!ndiv)
        return p;
    IrProgram *q = arena_alloc(arena, sizeof *q);
    *q = *p;
    IrStage *stages = arena_alloc(arena, sizeof *stages * (size_t)p->nstages);
    memcpy(stages, p->stages, sizeof *stages * (size_t)p->nstages);
    IrNode *nodes = arena_alloc(arena, sizeof *nodes * (size_t)(st->nnodes + ndiv));
    memcpy(nodes, st->nodes, sizeof *nodes * (size_t)st->nnodes);
    /* The reciprocal constants go after the stage's nodes: constants are always inlined, so
     * their place in the list does not matter to the emitter. */
    int at = st->nnodes;
    for (int i = 0; i < st->nnodes; i++) {
        if (!recip_ok(st, &st->nodes[i]))
            continue;
        IrNode *k = &nodes[at];
        k->op = N_CONST;
        k->a = k->b = k->c = -1;
        k->value = 1.0 / st->nodes[st->nodes[i].b].value;
        k->uses = 1;
        nodes[i].op = N_MUL;
        nodes[i].b = at++;
    }
    stages[stage].nodes = nodes;
    stages[stage].nnodes = at;
    stages[stage].cap_nodes = at;
    q->stages = stages;
    return q;
}

