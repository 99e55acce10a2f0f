/* The overlapped step of a distributed run (docs/distributed.md, "Overlap"): the slabs that are
 * sent are computed first, on the exchange's own stream (created at the highest priority), and
 * exchanged there, while the interior is computed on the caller's stream beside them. Two kinds:
 *
 *   CG_OVERLAP_PLANES  a one-step kernel (depth 1): it runs on slabs of planes of the outermost
 *                        axis through buffer pointers moved by whole planes (NAME_drange_);
 *   CG_OVERLAP_CHUNKS  a kernel that fuses T steps (depth a multiple of T): the last launch of
 *                        each group runs its blocks along the outermost axis in three ranges, the
 *                        edge ones first, through a copy of the kernel whose blocks are numbered
 *                        from an offset (kir_offset_blocks; NAME_dchunks_). Moved pointers would
 *                        not do: a fused block reads the planes around its tile at every step.
 *
 * Both need one stage, a step that is one kernel followed by halo fills, no built-ins (moved
 * pointers move the interior's origin). */
#include "emit_api.h"

#include <stdio.h>

/* The grid axis of the step kernel's blocks along the outermost array axis, or -1. */
static int outer_grid_axis(const Plan *plan)
{
    const PlanLaunch *l = &plan->step[0];
    for (int d = 0; d < 3; d++)
        if (l->axis_of[d] == plan->prog->dims - 1 && l->tile[d] > 0)
            return d;
    return -1;
}

int api_dist_overlap_kind(const Plan *plan)
{
    const IrProgram *p = plan->prog;
    if (p->nstages != 1 || plan->nstep < 1 || plan->step[0].fill || plan->step[0].rotate_after != 1)
        return CG_OVERLAP_NONE;
    if (ir_stage_builtins(&p->stages[0]))
        return CG_OVERLAP_NONE;
    for (int i = 1; i < plan->nstep; i++)
        if (!plan->step[i].fill)
            return CG_OVERLAP_NONE;
    if (plan->step_count == 1)
        return CG_OVERLAP_PLANES;
    /* (a fused launch of three-level fields rotates twice: refused above) */
    int d = outer_grid_axis(plan);
    return d < 0 || plan->step[0].extra[d] != 0 ? CG_OVERLAP_NONE : CG_OVERLAP_CHUNKS;
}

/* The blocks' tile along the outermost axis (1 where the kernel has none). */
static int outer_tile(const Plan *plan)
{
    int d = outer_grid_axis(plan);
    return d < 0 ? 1 : plan->step[0].tile[d];
}

/* The overlapped launch's three parts along the outermost axis, as C: the low edge [0, lo), the
 * interior [lo, hi), the high edge [hi, end), the edges holding the sent planes; in planes
 * (whole tiles of the kernel where they fit twice) or in chunks of blocks. d: the NAME_dist, len:
 * the local interior's length. */
static void part_ranges(const Plan *plan, int kind, const char *d, const char *len, StrBuf *o)
{
    int a = plan->prog->dims - 1;
    sb_printf(o, "    const int tile = %d, w = %s->width[%d], len = %s;\n", outer_tile(plan), d, a, len);
    if (kind == CG_OVERLAP_CHUNKS)
        sb_printf(o, "    const int end = (len + tile - 1) / tile, lo = (%s->ext_lo[%d] + w + tile - 1) / tile;\n"
                  "    const int hi = (len - %s->ext_hi[%d] - w) / tile;\n", d, a, d, a);
    else
        sb_puts(o, "    const int t = 2 * ((w + tile - 1) / tile * tile) <= len ? (w + tile - 1) / tile * tile : w;\n"
                   "    const int lo = t, hi = len - t, end = len;\n");
    sb_puts(o, "    (void)end;\n");
}

void api_emit_dist_overlap_fits(const Api *api, StrBuf *o)
{
    const Plan *plan = api->plan;
    int kind = api_dist_overlap_kind(plan);
    sb_printf(o, "/* Whether the overlapped step fits d's depth and part (NAME_dist_set_overlap) */\n"
              "static int %s_dist_overlap_fits_(const %s_dist *d)\n{\n    (void)d;\n", api->pfx, api->pfx);
    if (kind == CG_OVERLAP_PLANES)
        sb_puts(o, "    return d->depth == 1;\n");
    else if (kind == CG_OVERLAP_CHUNKS) {
        part_ranges(plan, kind, "d", arena_printf(api->arena, "d->local[%d]", plan->prog->dims - 1), o);
        sb_printf(o, "    return d->depth %% %d == 0 && lo <= hi;\n", plan->step_count);
    } else
        sb_puts(o, "    return 0;\n");
    sb_puts(o, "}\n\n");
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
    PlanLaunch l = api->plan->step[0];
    l.rotate_after = 0; /* the caller rotates once, after the three parts */
    api_emit_launch(api, &l, o);
    sb_puts(o, "    return err;\n}\n\n");
}

/* NAME_dchunks_: the step's fused kernel on its blocks [first, first + count) along the outermost
 * axis, through its copy with offset block numbers (printed here, after the plan's kernels). */
static void emit_chunks(const Api *api, StrBuf *o)
{
    const Plan *plan = api->plan;
    const char *x = api->pfx;
    const PlanLaunch *l = &plan->step[0];
    const KKernel *k = k_module_kernel(&plan->module, l->kernel);
    const char *name = arena_printf(api->arena, "%s_off_", l->kernel);
    Kb kb = {api->arena, plan->prog->type};
    int d = outer_grid_axis(plan);
    kir_cuda_kernel(o, kir_offset_blocks(&kb, k, name, d, "stc_boff_"));
    sb_printf(o, "static cudaError_t %s_dchunks_(const %s_bufs_ *b, const %s_params *p, const int n[3],\n"
              "    cudaStream_t stream, int first, int count)\n{\n"
              "    dim3 grid;\n    cudaError_t err = cudaSuccess;\n    (void)p;\n", x, x, x);
    api_emit_launch_part(api, l, name, d, o);
    sb_puts(o, "    return err;\n}\n\n");
}

/* NAME_dstep_overlap_: one launch with its exchange in flight. On the exchange stream (of the
 * highest priority, so that its blocks go first wherever both streams have some waiting): the
 * two edge parts, then the exchange of the new buffers' slabs; meanwhile, on the caller's stream,
 * the interior; then the rotation and the fills of the global faces (which also fill the
 * received planes' edges). Both streams start from the end of the launch before. The edge parts
 * hold the sent planes; the exchange overwrites what they computed beyond the owned points.
 * (Starting the interior only after the edges, so that NCCL's kernel does not wait behind the
 * interior's long streaming blocks, lost more: 2 H200s, bench/DISTRIBUTED.md.) */
static void emit_overlap_step(const Api *api, int kind, StrBuf *o)
{
    const IrProgram *p = api->prog;
    const char *x = api->pfx;
    int a = p->dims - 1;
    sb_printf(o, "static cudaError_t %s_dstep_overlap_(%s_bufs_ *b, const %s_params *p, const int n[3],\n"
              "    cudaStream_t stream, %s_dist *dd, int *xst)\n{\n", x, x, x, x);
    const char *part = kind == CG_OVERLAP_CHUNKS ? "dchunks" : "drange";
    part_ranges(api->plan, kind, "dd", arena_printf(api->arena, "n[%d]", a), o);
    sb_printf(o, "    cudaStream_t xs_ = dd->xstream_;\n    %s_xfield_ xs[%s_DIST_MAXF_ + 1];\n    int nx = 0;\n", x, x);
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if (fl->role == ROLE_STATE && cg_writing_stage(p, f) >= 0)
            sb_printf(o, "    xs[nx++] = (%s_xfield_){b->%s[%d], %d};\n", x, api->member[f], fl->levels - 1,
                      api_periodic_axes(p, f));
    }
    sb_printf(o, "    cudaError_t err = cudaEventRecord(dd->xevent_[0], stream);\n"
              "    if (err == cudaSuccess)\n        err = cudaStreamWaitEvent(xs_, dd->xevent_[0], 0);\n"
              "    if (err == cudaSuccess)\n        err = %s_%s_(b, p, n, xs_, 0, lo);\n"
              "    if (err == cudaSuccess && end > hi)\n        err = %s_%s_(b, p, n, xs_, hi, end - hi);\n"
              "    if (*xst == 0)\n        *xst = %s_dist_axis_direct_(dd, xs, nx, %d, xs_);\n"
              "    cudaError_t rec = cudaEventRecord(dd->xevent_[1], xs_);\n"
              "    if (err == cudaSuccess && hi > lo)\n        err = %s_%s_(b, p, n, stream, lo, hi - lo);\n"
              "    if (err == cudaSuccess)\n        err = rec;\n"
              "    if (err == cudaSuccess)\n        err = cudaStreamWaitEvent(stream, dd->xevent_[1], 0);\n",
              x, part, x, part, x, a, x, part);
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
    if (kind == CG_OVERLAP_CHUNKS)
        emit_chunks(api, cu);
    else
        emit_range(api, cu);
    emit_overlap_step(api, kind, cu);
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
