/* Dependences between the writes of a step: which write uses the value of which temp, through
 * registers (same stage, offset 0) or through memory (a later stage, at offsets). The stage
 * split of lowering is what makes the memory ones safe; this makes them visible (--dump-ir)
 * and available to passes that fuse or reorder. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* Marks in `mark` every node reachable from node n of stage st. */
static void reach(const IrStage *st, int n, unsigned char *mark)
{
    if (n < 0 || mark[n])
        return;
    mark[n] = 1;
    const IrNode *nd = &st->nodes[n];
    reach(st, nd->a, mark);
    reach(st, nd->b, mark);
    reach(st, nd->c, mark);
}

static IrDep *find_or_add(IrAnalysis *an, int from_field, int from_stage, int to_field, int to_stage,
                          int memory)
{
    for (int i = 0; i < an->ndeps; i++) {
        IrDep *d = &an->deps[i];
        if (d->from_field == from_field && d->to_field == to_field && d->to_stage == to_stage &&
            d->through_memory == memory)
            return d;
    }
    if (an->ndeps == IR_MAX_DEPS)
        return NULL;
    IrDep *d = &an->deps[an->ndeps++];
    memset(d, 0, sizeof *d);
    d->from_field = from_field;
    d->from_stage = from_stage;
    d->to_field = to_field;
    d->to_stage = to_stage;
    d->through_memory = memory;
    for (int a = 0; a < 3; a++) {
        d->lo[a] = 1 << 30;
        d->hi[a] = -(1 << 30);
    }
    return d;
}

void ir_find_deps(IrProgram *p)
{
    IrAnalysis *an = &p->an;
    an->ndeps = 0;
    for (int s = 0; s < p->nstages; s++) {
        const IrStage *st = &p->stages[s];
        unsigned char *mark = malloc((size_t)st->nnodes + 1);
        if (!mark)
            return;
        for (int w = 0; w < st->nwrites; w++) {
            memset(mark, 0, (size_t)st->nnodes + 1);
            reach(st, st->writes[w].node, mark);
            int to = st->writes[w].field;
            /* Through memory: reads of a temp written in an earlier stage. */
            for (int n = 0; n < st->nnodes; n++) {
                const IrNode *nd = &st->nodes[n];
                if (!mark[n] || nd->op != N_READ || p->fields[nd->field].role != ROLE_TEMP)
                    continue;
                IrDep *d = find_or_add(an, nd->field, p->fields[nd->field].write_stage, to, s, 1);
                if (!d)
                    break;
                for (int a = 0; a < 3; a++) {
                    if (nd->off[a] < d->lo[a])
                        d->lo[a] = nd->off[a];
                    if (nd->off[a] > d->hi[a])
                        d->hi[a] = nd->off[a];
                }
            }
            /* Through registers: another write of this stage, to a temp, whose value it uses. */
            for (int v = 0; v < st->nwrites; v++) {
                int from = st->writes[v].field;
                if (v != w && p->fields[from].role == ROLE_TEMP && mark[st->writes[v].node] &&
                    !find_or_add(an, from, s, to, s, 0))
                    break;
            }
        }
        free(mark);
    }
}
