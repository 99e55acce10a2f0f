/* hold=on: fused steps that wrap or reflect, run held on one GPU.
 *
 * A periodic program's fused steps wrap their loads, and a clamp or mirror program whose step is
 * symmetric reflects them (opt_temporal_geom.c); in a distributed run a rank's part instead runs
 * the kernel of the same program with fixed faces (Plan.held) over layers beyond each global
 * face that a copy refills before each launch, and that ran the reflected 5-point star at 0.96
 * of the fixed boundary's speed where one GPU's reflecting kernel ran at 0.88 (clamp) and 0.79
 * (mirror; H200, 2026-11-29, docs/performance.md). hold=on gives one GPU the same form: the run
 * copies each state and coef field into a buffer whose every face has hold_ext = tblock x halo
 * more layers, and then, before each fused launch, fills those layers of the buffers it reads by
 * a copy within the buffer (wrapping, or reflecting as the fused kernels do: mirror about the
 * edge point, a radius-1 clamp about the edge's middle), launches Plan.held over the extended
 * grid, and at the end copies the interiors back and fills the halos as the prologue does.
 *
 * The layers are as deep as the fused steps reach, so every owned point a launch writes is
 * computed from the points the one-GPU step would read; the kernel's fixed boundary lies beyond
 * them and what it computes there is overwritten by the next refill. The runtime (rt_hold.c) and
 * the emitted host code (emit_hold.c) run the same sequence; this file decides its shape and
 * prints the two copy kernels both use. */
#include "emit.h"
#include "opt_temporal.h"
#include "template.h"

#include <string.h>

void cg_hold_setup(Plan *plan)
{
    const IrProgram *p = plan->prog;
    memset(plan->hold_ext, 0, sizeof plan->hold_ext);
    memset(plan->hold_min_n, 0, sizeof plan->hold_min_n);
    plan->hold_kind = 0;
    BoundaryKind bc = BC_FIXED;
    if (plan->config.v[P_HOLD] != 2 || plan->step_count <= 1 || !plan->held || cg_temporal_edge(p, &bc) != TB_WRAP)
        return;
    plan->hold_kind = bc == BC_PERIODIC ? HOLD_WRAP : bc == BC_MIRROR ? HOLD_MIRROR : HOLD_CLAMP;
    for (int d = 0; d < p->dims; d++) {
        plan->hold_ext[d] = plan->step_count * p->halo[d];
        /* the layers' sources lie within the grid: a mirror's image of layer E is point E */
        plan->hold_min_n[d] = plan->hold_ext[d] + (plan->hold_kind == HOLD_MIRROR) + 1;
    }
}

/* Both kernels take the padded buffers' pitches: element (i, j, k) of a padded buffer is at
 * i + j * P0 + k * P01. @_hold_copy_ copies a box of e0 x e1 x e2 points between two layouts (the
 * pointers at its first point; threads along x, blocks along y and z); @_hold_edge_ fills the
 * layers [lo0, lo0 + w) and [hi0, hi0 + w) along axis a (blockIdx.z: which layer), over the whole
 * padded extent of the other two (threads along the first, blocks along the second), from
 * within the buffer: wrap (kind 1) from the points n away, reflect (2: mirror, 3: clamp) about
 * m2 / 2. Both loop where a grid axis would pass CUDA's 65535 blocks. */
static const char HOLD_KERNELS[] =
    "\n/* hold=on (codegen/hold.c): the copies between a field and its extended copy */\n"
    "extern \"C\" __global__ void @_hold_copy_(${T} *dst, const ${T} *src, long long d0, long long d01,\n"
    "    long long s0, long long s01, int e0, int e1, int e2)\n"
    "{\n"
    "    const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);\n"
    "    if (i >= e0)\n"
    "        return;\n"
    "    for (int k = (int)blockIdx.z; k < e2; k += (int)gridDim.z)\n"
    "        for (int j = (int)blockIdx.y; j < e1; j += (int)gridDim.y)\n"
    "            dst[i + j * d0 + k * d01] = src[i + j * s0 + k * s01];\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void @_hold_edge_(${T} *buf, int a, int kind, long long P0, long long P1,\n"
    "    long long P2, long long lo0, long long hi0, int w, long long n, long long m2lo, long long m2hi)\n"
    "{\n"
    "    const long long P[3] = {P0, P1, P2}, st[3] = {1, P0, P0 * P1};\n"
    "    const int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2, l = (int)blockIdx.z, high = l >= w;\n"
    "    const long long ib = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (ib >= P[b])\n"
    "        return;\n"
    "    const long long at = high ? hi0 + l - w : lo0 + l;\n"
    "    const long long from = kind == 1 ? (high ? at - n : at + n) : (high ? m2hi : m2lo) - at;\n"
    "    for (long long ic = blockIdx.y; ic < P[c]; ic += gridDim.y) {\n"
    "        const long long rest = ib * st[b] + ic * st[c];\n"
    "        buf[rest + at * st[a]] = buf[rest + from * st[a]];\n"
    "    }\n"
    "}\n";

void cg_hold_kernels(Plan *plan, Arena *arena, const char *prefix, StrBuf *src)
{
    if (!plan->hold_kind)
        return;
    plan->hold_copy = arena_printf(arena, "%s_hold_copy_", prefix);
    plan->hold_edge = arena_printf(arena, "%s_hold_edge_", prefix);
    const TplVar vars[] = {{"T", ir_elem_name(plan->prog->type)}, {NULL, NULL}};
    tpl_put(src, HOLD_KERNELS, prefix, prefix, vars);
}
