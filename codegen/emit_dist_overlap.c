/* The overlapped step of a distributed run (docs/distributed.md, "Overlap"): the parts that hold
 * what is sent are computed first, on the exchange's own stream (created at the highest
 * priority), and exchanged there, while the interior is computed on the caller's stream beside
 * them. Two ways to cut the launch:
 *
 *   planes  a one-step kernel (depth 1) where only the outermost axis exchanges: the kernel on
 *           slabs of planes through buffer pointers moved by whole planes (NAME_drange_);
 *   blocks  any split: the kernel's blocks in ranges along each exchanged axis, through a copy
 *           of the kernel whose blocks are numbered from offsets (kir_offset_blocks;
 *           NAME_dpart_): per exchanged axis, outermost first, its two edge ranges within the
 *           interior ranges of the axes before it, then the interior box. Fused kernels
 *           (CG_OVERLAP_CHUNKS, depth a multiple of T) have only this way: moved pointers would
 *           not do, a fused block reads the planes around its tile at every step.
 *
 * Both need one stage, a step that is one kernel followed by halo fills, no built-ins (moved
 * pointers move the interior's origin). */
#include "emit_api.h"

#include <stdio.h>

/* The grid axis whose blocks tile array axis a with no extra blocks, or -1. */
static int grid_axis_of(const Plan *plan, int a)
{
    const PlanLaunch *l = &plan->step[0];
    for (int d = 0; d < 3; d++)
        if (l->axis_of[d] == a && l->tile[d] > 0)
            return l->extra[d] == 0 ? d : -1;
    return -1;
}

unsigned api_dist_overlap_axes(const Plan *plan)
{
    unsigned m = 0;
    for (int a = 0; a < plan->prog->dims; a++)
        if (grid_axis_of(plan, a) >= 0)
            m |= 1u << a;
    return m;
}

int api_dist_overlap_tile(const Plan *plan, int a)
{
    int d = a < plan->prog->dims ? grid_axis_of(plan, a) : -1;
    return d < 0 ? 0 : plan->step[0].tile[d];
}

int api_dist_overlap_kind(const Plan *plan)
{
    const IrProgram *p = plan->prog;
    if (p->nstages != 1 || plan->nstep < 1 || plan->step[0].fill || plan->step[0].rotate_after != 1)
        return CG_OVERLAP_NONE;
    /* reflected global faces: every axis "exchanges", so its edges would run apart, for a copy
     * within the buffer that hides nothing (one rank: 1199 against 1809 GStencil/s, H200,
     * docs/distributed.md) */
    if (api_dist_reflects(plan))
        return CG_OVERLAP_NONE;
    if (ir_stage_builtins(&p->stages[0]))
        return CG_OVERLAP_NONE;
    for (int i = 1; i < plan->nstep; i++)
        if (!plan->step[i].fill)
            return CG_OVERLAP_NONE;
    if (plan->step_count == 1)
        return CG_OVERLAP_PLANES;
    /* (a fused launch of three-level fields rotates twice: refused above) */
    return api_dist_overlap_axes(plan) >> (p->dims - 1) & 1 ? CG_OVERLAP_CHUNKS : CG_OVERLAP_NONE;
}

/* The planes way's three parts along the outermost axis, as C: the low edge [0, lo), the
 * interior [lo, hi), the high edge [hi, end), in planes (whole tiles of the kernel where they fit
 * twice). d: the NAME_dist, len: the local interior's length. */
static void plane_ranges(const Plan *plan, const char *d, const char *len, StrBuf *o)
{
    int a = plan->prog->dims - 1, tile = api_dist_overlap_tile(plan, a);
    sb_printf(o, "        const int tile = %d, w = %s->width[%d], len = %s;\n", tile > 0 ? tile : 1, d, a, len);
    sb_puts(o, "        const int t = 2 * ((w + tile - 1) / tile * tile) <= len ? (w + tile - 1) / tile * tile : w;\n"
               "        const int lo = t, hi = len - t, end = len;\n");
}

/* NAME_dist_planes_ (where the kernel takes one step): whether the overlapped step runs the planes
 * way, only the outermost axis exchanging. NAME_dblocks_ (where some axis runs in ranges): the
 * blocks way's ranges along each axis, for an exchanged one the low edge [0, lo), the interior
 * [lo, hi) and the high edge [hi, end) (the edges hold the sent layers, and the deep-halo layers
 * next to them), for the others the whole [0, end). */
static void emit_ways(const Api *api, int kind, StrBuf *o)
{
    const char *x = api->pfx;
    int dims = api->prog->dims;
    if (kind == CG_OVERLAP_PLANES) {
        sb_printf(o, "static int %s_dist_planes_(const %s_dist *d)\n{\n    int outer = 1;\n"
                  "    for (int a = 0; a < %d; a++)\n        outer = outer && !%s_dist_exchanges_(d, a);\n"
                  "    return outer;\n}\n\n", x, x, dims - 1, x);
    }
    if (!api_dist_overlap_axes(api->plan))
        return;
    sb_printf(o, "static const int %s_otile_[3] = {%d, %d, %d};\n\n", x, api_dist_overlap_tile(api->plan, 0),
              api_dist_overlap_tile(api->plan, 1), api_dist_overlap_tile(api->plan, 2));
    sb_printf(o, "static void %s_dblocks_(const %s_dist *d, const int n[3], int lo[3], int hi[3], int end[3])\n{\n"
              "    for (int a = 0; a < 3; a++) {\n"
              "        const int t = %s_otile_[a] > 0 ? %s_otile_[a] : 1, w = d->width[a];\n"
              "        end[a] = (n[a] + t - 1) / t;\n"
              "        lo[a] = 0;\n        hi[a] = end[a];\n"
              "        if (%s_dist_exchanges_(d, a)) {\n"
              "            lo[a] = (d->ext_lo[a] + w + t - 1) / t;\n"
              "            hi[a] = (n[a] - d->ext_hi[a] - w) / t;\n"
              "        }\n    }\n}\n\n", x, x, x, x, x);
}

/* NAME_dist_overlap_fits_: whether the overlapped step fits d's split, depth and part (the test
 * of NAME_dist_set_overlap, made by each rank for its own part: the loop makes the same
 * exchanges either way). */
static void emit_fits(const Api *api, int kind, StrBuf *o)
{
    const char *x = api->pfx;
    int outer = api->prog->dims - 1;
    sb_printf(o, "static int %s_dist_overlap_fits_(const %s_dist *d)\n{\n    int some = 0;\n"
              "    for (int a = 0; a < 3; a++)\n        some = some || %s_dist_exchanges_(d, a);\n", x, x, x);
    if (kind == CG_OVERLAP_PLANES)
        sb_printf(o, "    if (!some || d->depth != 1)\n        return 0;\n"
                  "    if (%s_dist_planes_(d))\n        return d->n[%d] >= 2 * d->width[%d];\n", x, outer, outer);
    else
        sb_printf(o, "    if (!some || d->depth %% %d != 0)\n        return 0;\n", api->plan->step_count);
    if (api_dist_overlap_axes(api->plan))
        sb_printf(o, "    int lo[3], hi[3], end[3];\n    %s_dblocks_(d, d->local, lo, hi, end);\n"
                  "    for (int a = 0; a < 3; a++)\n"
                  "        if (%s_dist_exchanges_(d, a) && (%s_otile_[a] == 0 || lo[a] > hi[a]))\n"
                  "            return 0;\n    return 1;\n}\n\n", x, x, x);
    else
        sb_puts(o, "    return 0;\n}\n\n");
}

void api_emit_dist_overlap_fits(const Api *api, StrBuf *cu)
{
    int kind = api_dist_overlap_kind(api->plan);
    /* (printed before the distributed template, which defines it) */
    sb_printf(cu, "static int %s_dist_exchanges_(const %s_dist *d, int a);\n\n", api->pfx, api->pfx);
    if (kind == CG_OVERLAP_NONE) {
        sb_printf(cu, "static int %s_dist_overlap_fits_(const %s_dist *d)\n{\n    (void)d;\n    return 0;\n}\n\n",
                  api->pfx, api->pfx);
        return;
    }
    emit_ways(api, kind, cu);
    emit_fits(api, kind, cu);
}

/* NAME_drange_: the step's kernel alone on planes [first, first + count) of the outermost axis,
 * through a copy of the buffer set moved by whole planes (the kernels index from the buffer's
 * start; a plane's offset keeps alignment, which NAME_dist_set_overlap checks). */
static void emit_range(const Api *api, StrBuf *o)
{
    const IrProgram *p = api->prog;
    const char *x = api->pfx;
    int a = p->dims - 1;
    sb_printf(o, "static cudaError_t %s_drange_(const %s_bufs_ *b0, const %s_params *p, const int n0[3],\n"
              "    cudaStream_t stream, int first, int count)\n{\n", x, x, x);
    sb_puts(o, "    size_t layer = 1;\n");
    for (int d = 0; d < a; d++)
        sb_printf(o, "    layer *= (size_t)n0[%d] + %d;\n", d, 2 * p->halo[d]);
    sb_printf(o, "    const size_t shift = layer * (size_t)first;\n    %s_bufs_ moved = *b0;\n", x);
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        const char *m = api->member[f];
        if (fl->role == ROLE_STATE)
            for (int l = 0; l < fl->levels; l++)
                sb_printf(o, "    moved.%s[%d] += shift;\n", m, l);
        else if (fl->role == ROLE_COEF)
            sb_printf(o, "    if (moved.%s)\n        moved.%s += shift;\n", m, m);
        else if (api_temp_has_buffer(p, f))
            sb_printf(o, "    moved.%s += shift;\n", m);
    }
    sb_printf(o, "    %s_bufs_ *b = &moved;\n    const int n[3] = {%s, %s, %s};\n", x,
              a == 0 ? "count" : "n0[0]", a == 1 ? "count" : "n0[1]", a == 2 ? "count" : "n0[2]");
    sb_puts(o, "    dim3 grid;\n    cudaError_t err = cudaSuccess;\n    (void)p;\n");
    const PlanLaunch *l = &api->plan->step[0]; /* no rotation: the caller rotates after the parts */
    api_emit_launch_part(api, l, l->kernel, 0, o);
    sb_puts(o, "    return err;\n}\n\n");
}

/* NAME_dpart_: the step's kernel on its blocks [first[a], first[a] + count[a]) along each array
 * axis a that runs in ranges (whole along the others), through its copy with offset block numbers
 * (printed here, after the plan's kernels). NAME_dedges_: the two edge ranges of exchanged axis a,
 * within the interior ranges of the exchanged axes outside it (their edges hold the rest), whole
 * along the others. */
static void emit_part(const Api *api, StrBuf *o)
{
    const Plan *plan = api->plan;
    const char *x = api->pfx;
    const PlanLaunch *l = &plan->step[0];
    const KKernel *k = k_module_kernel(&plan->module, l->kernel);
    const char *name = arena_printf(api->arena, "%s_off_", l->kernel);
    Kb kb = {api->arena, plan->prog->type};
    unsigned grid_axes = 0, axes = api_dist_overlap_axes(plan);
    for (int a = 0; a < 3; a++)
        if (axes >> a & 1)
            grid_axes |= 1u << grid_axis_of(plan, a);
    kir_cuda_kernel(o, kir_offset_blocks(&kb, k, name, grid_axes, "stc_boff"));
    sb_printf(o, "static cudaError_t %s_dpart_(const %s_bufs_ *b, const %s_params *p, const int n[3],\n"
              "    cudaStream_t stream, const int first[3], const int count[3])\n{\n"
              "    dim3 grid;\n    cudaError_t err = cudaSuccess;\n    (void)p;\n", x, x, x);
    api_emit_launch_part(api, l, name, grid_axes, o);
    sb_puts(o, "    return err;\n}\n\n");
    sb_printf(o, "static cudaError_t %s_dedges_(const %s_bufs_ *b, const %s_params *p, const int n[3],\n"
              "    cudaStream_t stream, const %s_dist *dd, int a, const int lo[3], const int hi[3], const int end[3])\n{\n"
              "    int first[3], count[3];\n"
              "    for (int o = 0; o < 3; o++) {\n"
              "        const int in = o > a && %s_dist_exchanges_(dd, o);\n"
              "        first[o] = in ? lo[o] : 0;\n        count[o] = in ? hi[o] - lo[o] : end[o];\n    }\n"
              "    cudaError_t err = cudaSuccess;\n"
              "    for (int side = 0; side < 2 && err == cudaSuccess; side++) {\n"
              "        first[a] = side ? hi[a] : 0;\n        count[a] = side ? end[a] - hi[a] : lo[a];\n"
              "        if (count[0] > 0 && count[1] > 0 && count[2] > 0)\n"
              "            err = %s_dpart_(b, p, n, stream, first, count);\n    }\n"
              "    return err;\n}\n\n", x, x, x, x, x, x);
}

/* NAME_dsent_: the parts that hold what is sent, on the exchange stream; NAME_drest_: the rest,
 * on the caller's. Each the planes way or the blocks way (NAME_dist_planes_). */
static void emit_sent_rest(const Api *api, int kind, StrBuf *o)
{
    const char *x = api->pfx;
    int dims = api->prog->dims, blocks = api_dist_overlap_axes(api->plan) != 0;
    for (int rest = 0; rest < 2; rest++) {
        sb_printf(o, "static cudaError_t %s_%s_(const %s_bufs_ *b, const %s_params *p, const int n[3],\n"
                  "    cudaStream_t stream, const %s_dist *dd)\n{\n", x, rest ? "drest" : "dsent", x, x, x);
        sb_puts(o, "    cudaError_t err = cudaSuccess;\n");
        if (kind == CG_OVERLAP_PLANES) {
            sb_printf(o, "    if (%s_dist_planes_(dd)) {\n", x);
            plane_ranges(api->plan, "dd", arena_printf(api->arena, "n[%d]", dims - 1), o);
            if (rest)
                sb_printf(o, "        if (hi > lo)\n            err = %s_drange_(b, p, n, stream, lo, hi - lo);\n", x);
            else
                sb_printf(o, "        err = %s_drange_(b, p, n, stream, 0, lo);\n"
                          "        if (err == cudaSuccess && end > hi)\n"
                          "            err = %s_drange_(b, p, n, stream, hi, end - hi);\n", x, x);
            sb_puts(o, "        (void)end;\n        return err;\n    }\n");
        }
        if (!blocks)
            sb_puts(o, "    (void)b;\n    (void)p;\n    (void)n;\n    (void)stream;\n    (void)dd;\n");
        else {
            sb_printf(o, "    int lo[3], hi[3], end[3];\n    %s_dblocks_(dd, n, lo, hi, end);\n", x);
            if (rest)
                sb_printf(o, "    int count[3];\n    for (int a = 0; a < 3; a++)\n        count[a] = hi[a] - lo[a];\n"
                          "    if (count[0] > 0 && count[1] > 0 && count[2] > 0)\n"
                          "        err = %s_dpart_(b, p, n, stream, lo, count);\n", x);
            else
                sb_printf(o, "    for (int a = 2; a >= 0 && err == cudaSuccess; a--)\n"
                          "        if (%s_dist_exchanges_(dd, a))\n"
                          "            err = %s_dedges_(b, p, n, stream, dd, a, lo, hi, end);\n", x, x);
        }
        sb_puts(o, "    return err;\n}\n\n");
    }
}

/* NAME_dstep_overlap_: one launch with its exchange in flight. On the exchange stream (of the
 * highest priority, so that its blocks go first wherever both streams have some waiting): the
 * parts that hold the sent layers, then the exchange of the new buffers' layers; meanwhile, on
 * the caller's stream, the rest; then the rotation and the fills of the global faces (which also
 * fill the received layers' edges). Both streams start from the end of the launch before. The
 * exchange overwrites what the edge parts computed beyond the owned points. (Starting the rest
 * only after the edges, so that NCCL's kernel does not wait behind long streaming blocks, lost
 * more: 2 H200s, bench/DISTRIBUTED.md.) */
static void emit_overlap_step(const Api *api, StrBuf *o)
{
    const IrProgram *p = api->prog;
    const char *x = api->pfx;
    sb_printf(o, "static cudaError_t %s_dstep_overlap_(%s_bufs_ *b, const %s_params *p, const int n[3],\n"
              "    cudaStream_t stream, %s_dist *dd, int *xst)\n{\n", x, x, x, x);
    sb_printf(o, "    cudaStream_t xs_ = dd->xstream_;\n    %s_xfield_ xs[%s_DIST_MAXF_ + 1];\n    int nx = 0;\n", x, x);
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if (fl->role == ROLE_STATE && cg_writing_stage(p, f) >= 0)
            sb_printf(o, "    xs[nx++] = (%s_xfield_){b->%s[%d], %d};\n", x, api->member[f], fl->levels - 1,
                      api_periodic_axes(p, f));
    }
    sb_printf(o, "    cudaError_t err = cudaEventRecord(dd->xevent_[0], stream);\n"
              "    if (err == cudaSuccess)\n        err = cudaStreamWaitEvent(xs_, dd->xevent_[0], 0);\n"
              "    if (err == cudaSuccess)\n        err = %s_dsent_(b, p, n, xs_, dd);\n"
              "    if (*xst == 0)\n        *xst = %s_dist_exchange_(dd, xs, nx, xs_);\n"
              "    cudaError_t rec = cudaEventRecord(dd->xevent_[1], xs_);\n"
              "    if (err == cudaSuccess)\n        err = %s_drest_(b, p, n, stream, dd);\n"
              "    if (err == cudaSuccess)\n        err = rec;\n"
              "    if (err == cudaSuccess)\n        err = cudaStreamWaitEvent(stream, dd->xevent_[1], 0);\n",
              x, x, x);
    api_emit_rotation(api, o);
    sb_printf(o, "    if (err == cudaSuccess)\n        err = %s_dfills_(b, p, n, 0, stream, dd);\n    return err;\n}\n\n",
              x);
}

void api_emit_dist_overlap(const Api *api, StrBuf *cu)
{
    const Plan *plan = api->plan;
    int kind = api_dist_overlap_kind(plan);
    if (kind == CG_OVERLAP_NONE)
        return;
    api_emit_group(api, "dfills", plan->step + 1, plan->nstep - 1, 1, cu);
    if (kind == CG_OVERLAP_PLANES)
        emit_range(api, cu);
    if (api_dist_overlap_axes(plan))
        emit_part(api, cu);
    emit_sent_rest(api, kind, cu);
    emit_overlap_step(api, cu);
}

/* In the local run's loop over groups of `depth` steps: with overlap, a group's last launch is
 * the overlapped one, whose exchange serves the next group. The last group (no group follows)
 * runs as without overlap, and so does a shorter one: every rank makes the same exchanges,
 * whether or not it overlaps them (the parts of an uneven split may fit the overlap on some
 * ranks only; a caller may set it on some only). */
void api_emit_dist_overlap_loop(const Api *api, StrBuf *o)
{
    const Plan *plan = api->plan;
    const char *x = api->pfx;
    int kind = api_dist_overlap_kind(plan);
    if (kind == CG_OVERLAP_PLANES)
        sb_printf(o, "        if (dd->overlap && left > 0) {\n"
                  "            const cudaError_t e = %s_dstep_overlap_(&b, p, n, stream, dd, xst);\n"
                  "            err = err == cudaSuccess ? e : err;\n"
                  "            sent = 1;\n"
                  "            continue;\n"
                  "        }\n", x);
    else if (kind == CG_OVERLAP_CHUNKS)
        sb_printf(o, "        if (dd->overlap && left > 0 && group == dd->depth%s) {\n"
                  "            for (; err == cudaSuccess && group > %d; group -= %d)\n"
                  "                err = %s_dstep_(&b, p, n, steps - left - group, stream, dd);\n"
                  "            const cudaError_t e = %s_dstep_overlap_(&b, p, n, stream, dd, xst);\n"
                  "            err = err == cudaSuccess ? e : err;\n"
                  "            sent = 1;\n"
                  "            continue;\n"
                  "        }\n", api_fused_fits(api), plan->step_count, plan->step_count, x, x);
}
