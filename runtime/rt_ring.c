/* Four buffers for a three-level field: a plan whose fused launches write two levels of such a
 * field (Plan.ring3) runs it on a ring of four buffers, while everything else in the runtime
 * (upload, download, comparison, reductions) sees three with the newest at g->newest. Widening
 * puts a fourth buffer (allocated once, kept with the grid) behind the oldest level before such
 * a plan's launches; narrowing puts the three newest levels back in buf[0..2] after them. No
 * data moves: the grid owns all four buffers (the emitted host code, whose fourth buffer is
 * the workspace's, copies instead: codegen/emit_api.c). */
#include <stdio.h>
#include "rt_internal.h"

int rt_ring_widen(RtGrid *g, const Plan *plan, char *why, int whylen)
{
    for (int f = 0; f < g->prog->nfields; f++) {
        if (plan_buffers(plan, f) != 4 || g->ring[f] == 4)
            continue;
        CUdeviceptr *b = g->buf[f];
        if (!b[3] && RT_CU(g->rc, MemAlloc(&b[3], g->bytes), "allocating a three-level field's fourth buffer",
                           why, whylen))
            return -1;
        int n = g->newest[f];
        CUdeviceptr l0 = b[n], l1 = b[(n + 2) % 3], l2 = b[(n + 1) % 3], spare = b[3];
        b[0] = l0, b[3] = l1, b[2] = l2, b[1] = spare; /* level -j at (0 - j) mod 4 */
        g->newest[f] = 0;
        g->ring[f] = 4;
    }
    return 0;
}

void rt_ring_narrow(RtGrid *g)
{
    for (int f = 0; f < g->prog->nfields; f++) {
        if (g->ring[f] != 4)
            continue;
        CUdeviceptr *b = g->buf[f];
        int n = g->newest[f];
        CUdeviceptr l0 = b[n], l1 = b[(n + 3) % 4], l2 = b[(n + 2) % 4], spare = b[(n + 1) % 4];
        b[0] = l0, b[2] = l1, b[1] = l2, b[3] = spare; /* level -j at (0 - j) mod 3 */
        g->newest[f] = 0;
        g->ring[f] = 0;
    }
}
