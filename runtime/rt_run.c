/* Device buffers of a grid, and running a plan's launch sequence on them exactly as the emitted
 * host code does: prologue once, then groups of `step` launches, then `single` launches for the
 * remaining steps, rotating the state fields' buffers after each launch marked rotate_after. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rt_internal.h"

static int field_buffers(const IrField *f) { return f->role == ROLE_STATE ? f->levels : 1; }

RtGrid *rt_grid_new(RtContext *rc, const IrProgram *prog, const int n[3], char *why, int whylen)
{
    if (prog->nfields > RT_MAX_FIELDS) {
        snprintf(why, (size_t)whylen, "%d fields (at most %d)", prog->nfields, RT_MAX_FIELDS);
        return NULL;
    }
    const long long wide[3] = {n[0], n[1], n[2]};
    if (ir_check_extent(prog->dims, prog->halo, wide, why, whylen) != 0)
        return NULL; /* before any size is computed in int */
    RtGrid *g = calloc(1, sizeof *g);
    if (!g || !(g->params = calloc((size_t)prog->nparams + 1, sizeof *g->params))) {
        free(g);
        snprintf(why, (size_t)whylen, "out of memory");
        return NULL;
    }
    g->rc = rc;
    g->prog = prog;
    g->total = 1;
    for (int d = 0; d < 3; d++) {
        g->n[d] = d < prog->dims ? n[d] : 1;
        g->pad[d] = g->n[d] + 2 * (d < prog->dims ? prog->halo[d] : 0);
        g->total *= g->pad[d];
    }
    g->bytes = (size_t)g->total * (size_t)ir_elem_size(prog);
    for (int p = 0; p < prog->nparams; p++)
        g->params[p] = prog->params[p].def;
    if (RT_CU(rc, CtxSetCurrent(rc->ctx), "cuCtxSetCurrent", why, whylen))
        goto fail;
    for (int f = 0; f < prog->nfields; f++) {
        for (int l = 0; l < field_buffers(&prog->fields[f]); l++) {
            char what[160];
            snprintf(what, sizeof what, "allocating %zu bytes for field %s", g->bytes,
                     prog->fields[f].name);
            if (RT_CU(rc, MemAlloc(&g->buf[f][l], g->bytes), what, why, whylen))
                goto fail;
        }
    }
    return g;
fail:
    rt_grid_free(g);
    return NULL;
}

void rt_grid_free(RtGrid *g)
{
    if (!g)
        return;
    for (int f = 0; f < RT_MAX_FIELDS; f++)
        for (int l = 0; l < 4; l++) {
            if (g->buf[f][l])
                g->rc->api.MemFree(g->buf[f][l]);
            if (g->hold[f][l])
                g->rc->api.MemFree(g->hold[f][l]);
        }
    free(g->params);
    free(g);
}

/* Host staging: one buffer converted to or from the element type. */
static void *stage_alloc(const RtGrid *g, char *why, int whylen)
{
    void *p = malloc(g->bytes ? g->bytes : 1);
    if (!p)
        snprintf(why, (size_t)whylen, "out of host memory (%zu bytes)", g->bytes);
    return p;
}

static int same_shape(const RtGrid *g, const InterpGrid *ig, char *why, int whylen)
{
    if (ig->prog != g->prog && ig->prog->nfields != g->prog->nfields)
        goto bad;
    for (int d = 0; d < 3; d++)
        if (ig->pad[d] != g->pad[d])
            goto bad;
    return 0;
bad:
    snprintf(why, (size_t)whylen, "interpreter grid and device grid differ in shape");
    return -1;
}

int rt_grid_upload(RtGrid *g, const InterpGrid *ig, char *why, int whylen)
{
    const IrProgram *prog = g->prog;
    if (same_shape(g, ig, why, whylen) != 0)
        return -1;
    void *stage = stage_alloc(g, why, whylen);
    if (!stage)
        return -1;
    int is_double = prog->type == ELEM_DOUBLE;
    for (int f = 0; f < prog->nfields; f++) {
        for (int l = 0; l < field_buffers(&prog->fields[f]); l++) {
            const double *src = ig->buf[f][l];
            for (long i = 0; i < g->total; i++) {
                if (is_double)
                    ((double *)stage)[i] = src[i];
                else
                    ((float *)stage)[i] = (float)src[i];
            }
            if (RT_CU(g->rc, MemcpyHtoD(g->buf[f][l], stage, g->bytes), "upload", why, whylen)) {
                free(stage);
                return -1;
            }
        }
        g->newest[f] = ig->newest[f];
    }
    for (int p = 0; p < prog->nparams; p++)
        g->params[p] = ig->params[p];
    free(stage);
    return 0;
}

int rt_grid_download(RtGrid *g, InterpGrid *ig, char *why, int whylen)
{
    const IrProgram *prog = g->prog;
    if (same_shape(g, ig, why, whylen) != 0)
        return -1;
    void *stage = stage_alloc(g, why, whylen);
    if (!stage)
        return -1;
    int is_double = prog->type == ELEM_DOUBLE;
    for (int f = 0; f < prog->nfields; f++) {
        for (int l = 0; l < field_buffers(&prog->fields[f]); l++) {
            if (RT_CU(g->rc, MemcpyDtoH(stage, g->buf[f][l], g->bytes), "download", why, whylen)) {
                free(stage);
                return -1;
            }
            double *dst = ig->buf[f][l];
            for (long i = 0; i < g->total; i++)
                dst[i] = is_double ? ((double *)stage)[i] : (double)((float *)stage)[i];
        }
        ig->newest[f] = g->newest[f];
    }
    free(stage);
    return 0;
}

int rt_grid_read(RtGrid *g, int f, long long at, int count, double *out, char *why, int whylen)
{
    int esize = ir_elem_size(g->prog);
    if (f < 0 || f >= g->prog->nfields || at < 0 || count < 0 || at + count > g->total) {
        snprintf(why, (size_t)whylen, "reading %d elements at %lld of field %d: outside the grid",
                 count, at, f);
        return -1;
    }
    double staged[64]; /* 64 elements of either type */
    for (int done = 0; done < count; done += 64) {
        int len = count - done < 64 ? count - done : 64;
        CUdeviceptr from = g->buf[f][g->newest[f]] + (CUdeviceptr)((at + done) * esize);
        if (RT_CU(g->rc, MemcpyDtoH(staged, from, (size_t)len * (size_t)esize), "read", why, whylen))
            return -1;
        for (int i = 0; i < len; i++)
            out[done + i] = esize == 8 ? staged[i] : (double)((const float *)staged)[i];
    }
    return 0;
}

int rt_grid_fill_random(RtGrid *g, unsigned seed, char *why, int whylen)
{
    const IrProgram *prog = g->prog;
    int esize = ir_elem_size(prog);
    /* A block of random values repeated over each buffer: the grid may be too big to generate
     * value by value on the host, and timing only needs data that is neither zero nor uniform.
     * The block length is prime so that the repetition does not line up with rows. */
    long chunk = g->total < 1048573 ? g->total : 1048573;
    char *stage = malloc((size_t)chunk * (size_t)esize);
    if (!stage) {
        snprintf(why, (size_t)whylen, "out of host memory");
        return -1;
    }
    for (int f = 0; f < prog->nfields; f++) {
        unsigned long long s = (unsigned long long)seed * 0x9E3779B97F4A7C15ull + (unsigned)f + 1;
        for (long i = 0; i < chunk; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double v = 0.5 + (double)(s >> 11) * (1.0 / 9007199254740992.0);
            if (esize == 8)
                ((double *)stage)[i] = v;
            else
                ((float *)stage)[i] = (float)v;
        }
        for (int l = 0; l < field_buffers(&prog->fields[f]); l++) {
            for (long at = 0; at < g->total; at += chunk) {
                long len = g->total - at < chunk ? g->total - at : chunk;
                if (RT_CU(g->rc, MemcpyHtoD(g->buf[f][l] + (CUdeviceptr)(at * esize), stage,
                                            (size_t)(len * esize)), "fill", why, whylen)) {
                    free(stage);
                    return -1;
                }
            }
        }
        g->newest[f] = 0;
    }
    for (int p = 0; p < prog->nparams; p++)
        g->params[p] = prog->params[p].def;
    free(stage);
    return 0;
}

int rt_launch_grid(const PlanLaunch *l, const int n[3], unsigned grid[3], char *why, int whylen)
{
    static const long long limit[3] = {2147483647LL, 65535LL, 65535LL}; /* CUDA's grid limits */
    for (int d = 0; d < 3; d++) {
        grid[d] = 1;
        if (l->tile[d] <= 0)
            continue;
        int axis = l->axis_of[d];
        long long cover = (long long)(axis >= 0 && axis < 3 ? n[axis] : 1) + l->extra[d];
        long long blocks = cover > 0 ? (cover + l->tile[d] - 1) / l->tile[d] : 1;
        if (blocks > limit[d]) {
            snprintf(why, (size_t)whylen, "kernel %s needs %lld blocks along %c (CUDA allows %lld): "
                     "the grid is too large for the launch shape", l->kernel, blocks, "xyz"[d], limit[d]);
            return -1;
        }
        grid[d] = (unsigned)blocks;
    }
    return 0;
}

/* The buffer a level of a field names now: level 0 is step t, -1 step t-1, +1 the one written
 * (for two levels the same buffer as t-1; +2 the one a fused launch writes step t+K to). */
static CUdeviceptr level_buffer(const RtGrid *g, int field, int level)
{
    const IrField *f = &g->prog->fields[field];
    int nb = g->ring[field] ? g->ring[field] : field_buffers(f);
    int idx = ((g->newest[field] + level) % nb + nb) % nb;
    return g->buf[field][idx];
}

static void rotate(RtGrid *g, const Plan *plan, const PlanLaunch *l)
{
    for (int f = 0; f < g->prog->nfields; f++) {
        const IrField *fl = &g->prog->fields[f];
        int nb = g->ring[f] ? g->ring[f] : fl->levels;
        if (fl->role == ROLE_STATE && fl->levels > 1)
            g->newest[f] = (g->newest[f] + plan_rotations(plan, l, f)) % nb;
    }
}

typedef union { CUdeviceptr ptr; float f; double d; int i; } ArgValue;

static int launch(RtModule *m, RtGrid *g, const PlanLaunch *l, CUfunction fn, char *why,
                  int whylen)
{
    enum { MAX_ARGS = 256 };
    ArgValue vals[MAX_ARGS];
    void *ptrs[MAX_ARGS];
    if (l->nargs > MAX_ARGS) {
        snprintf(why, (size_t)whylen, "kernel %s has %d arguments (at most %d)", l->kernel,
                 l->nargs, MAX_ARGS);
        return -1;
    }
    const IrProgram *prog = g->prog;
    int i;
    for (i = 0; i < l->nargs; i++) {
        const PlanArg *a = &l->args[i];
        switch (a->kind) {
        case ARG_BUF:
            if (a->field < 0 || a->field >= prog->nfields) goto bad_arg;
            vals[i].ptr = level_buffer(g, a->field, a->level);
            break;
        case ARG_PARAM:
            if (a->index < 0 || a->index >= prog->nparams) goto bad_arg;
            if (prog->type == ELEM_DOUBLE)
                vals[i].d = g->params[a->index];
            else
                vals[i].f = (float)g->params[a->index];
            break;
        case ARG_DIM:
            if (a->index < 0 || a->index > 2) goto bad_arg;
            vals[i].i = g->n[a->index];
            break;
        case ARG_COORD: /* one GPU: the origin is 0, the extent the grid's */
            if (a->index < 0 || a->index > COORD_STEP) goto bad_arg;
            vals[i].i = a->index == COORD_STEP ? (int)g->step : a->index >= COORD_EXTENT ? g->n[a->index % 3] : 0;
            break;
        case ARG_SCRATCH:
            if (!g->scratch || a->index < 0) goto bad_arg;
            vals[i].ptr = g->scratch + (CUdeviceptr)a->index * sizeof(double);
            break;
        default:
            goto bad_arg;
        }
        ptrs[i] = &vals[i];
    }
    unsigned grid[3];
    if (rt_launch_grid(l, g->n, grid, why, whylen) != 0)
        return -1;
    char what[300];
    snprintf(what, sizeof what, "launching %s (grid %ux%ux%u, block %dx%dx%d, %d bytes shared)",
             l->kernel, grid[0], grid[1], grid[2], l->block[0], l->block[1], l->block[2],
             l->smem_bytes);
    if (RT_CU(m->rc, LaunchKernel(fn, grid[0], grid[1], grid[2], (unsigned)l->block[0],
                                  (unsigned)l->block[1], (unsigned)l->block[2],
                                  (unsigned)l->smem_bytes, NULL, ptrs, NULL), what, why, whylen))
        return -1;
    rotate(g, m->plan, l);
    return 0;
bad_arg:
    snprintf(why, (size_t)whylen, "kernel %s: argument %d names nothing in the program",
             l->kernel, i);
    return -1;
}

int rt_launch_list(RtModule *m, RtGrid *g, const PlanLaunch *ls, const CUfunction *fns, int n, char *why,
                   int whylen)
{
    for (int i = 0; i < n; i++)
        if (launch(m, g, &ls[i], fns[i], why, whylen) != 0)
            return -1;
    return 0;
}

int rt_run_prologue(RtModule *m, RtGrid *g, char *why, int whylen)
{
    if (RT_CU(m->rc, CtxSetCurrent(m->rc->ctx), "cuCtxSetCurrent", why, whylen))
        return -1;
    g->step = 0;
    if (rt_ring_widen(g, m->plan, why, whylen) != 0)
        return -1;
    int status = rt_launch_list(m, g, m->plan->prologue, m->prologue, m->plan->nprologue, why, whylen);
    rt_ring_narrow(g);
    return status;
}

int rt_run_steps(RtModule *m, RtGrid *g, long steps, char *why, int whylen)
{
    const Plan *p = m->plan;
    int per_group = p->step_count > 0 ? p->step_count : 1;
    long groups = steps / per_group, rest = steps % per_group;
    for (int d = 0; d < 3; d++)
        if (g->n[d] < p->fused_min_n[d]) /* the fused steps cannot take this grid */
            groups = 0, rest = steps;
    if (rest > 0 && p->nsingle == 0) {
        snprintf(why, (size_t)whylen, "plan advances %d steps per group and has no single step "
                 "for the remaining %ld", per_group, rest);
        return -1;
    }
    if (rt_ring_widen(g, p, why, whylen) != 0)
        return -1;
    int status = 0;
    if (groups > 0 && rt_hold_fits(p, g->n)) { /* hold=on: held over extended copies */
        status = rt_run_held(m, g, groups, why, whylen);
        groups = 0;
    }
    for (long s = 0; s < groups && status == 0; s++, g->step += per_group)
        status = rt_launch_list(m, g, p->step, m->step, p->nstep, why, whylen);
    for (long s = 0; s < rest && status == 0; s++, g->step++)
        status = rt_launch_list(m, g, p->single, m->single, p->nsingle, why, whylen);
    rt_ring_narrow(g);
    return status;
}

int rt_run(RtModule *m, RtGrid *g, long steps, char *why, int whylen)
{
    if (rt_run_prologue(m, g, why, whylen) != 0 || rt_run_steps(m, g, steps, why, whylen) != 0)
        return -1;
    return rt_sync(m->rc, why, whylen);
}

int rt_sync(RtContext *rc, char *why, int whylen)
{
    return RT_CU(rc, CtxSynchronize(), "running the kernels", why, whylen);
}
