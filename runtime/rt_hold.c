/* hold=on (codegen/hold.c): the fused groups of a run over extended copies of the fields, as the
 * emitted host code runs them (codegen/emit_hold.c): copy in, then per group the layers of the
 * buffers the launch reads refilled and Plan.held launched over the extended grid, then the
 * interiors copied back and the halos filled by the prologue. */
#include <stdio.h>
#include <string.h>
#include "rt_internal.h"

typedef struct {
    int n[3];            /* the extended interior: n + 2 * hold_ext */
    long long pad[3];    /* its padded extents */
    size_t bytes;        /* one extended buffer */
} HoldShape;

static void hold_shape(const RtGrid *g, const Plan *p, HoldShape *s)
{
    long long total = 1;
    for (int d = 0; d < 3; d++) {
        s->n[d] = g->n[d] + 2 * p->hold_ext[d];
        s->pad[d] = s->n[d] + 2LL * g->prog->halo[d];
        total *= s->pad[d];
    }
    s->bytes = (size_t)total * (size_t)ir_elem_size(g->prog);
}

/* As the emitted @_hold_bytes_ decides (codegen/emit_hold.c): the layers' sources within the grid,
 * and the extended grid within the API's limits (ir_check_extent, as a grid's own). */
int rt_hold_fits(const Plan *p, const int n[3])
{
    if (!p->hold_kind)
        return 0;
    long long wide[3];
    for (int d = 0; d < 3; d++) {
        if (d < p->prog->dims && n[d] < p->hold_min_n[d])
            return 0;
        wide[d] = (long long)n[d] + 2LL * p->hold_ext[d];
    }
    return ir_check_extent(p->prog->dims, p->prog->halo, wide, NULL, 0) == 0;
}

static int launch(RtModule *m, CUfunction fn, const long long grid[3], void **args, const char *what, char *why,
                  int whylen)
{
    unsigned gx = (unsigned)grid[0], gy = (unsigned)(grid[1] < 65535 ? grid[1] : 65535);
    unsigned gz = (unsigned)(grid[2] < 65535 ? grid[2] : 65535);
    return RT_CU(m->rc, LaunchKernel(fn, gx, gy, gz, 256, 1, 1, 0, NULL, args, NULL), what, why, whylen);
}

/* Copies the interior of g's layout (std) into the extended layout (ext), or back. */
static int copy_box(RtModule *m, const RtGrid *g, const HoldShape *s, CUdeviceptr ext, CUdeviceptr std, int in,
                    char *why, int whylen)
{
    const Plan *p = m->plan;
    const size_t es = (size_t)ir_elem_size(g->prog);
    long long xo = 0, so = 0, xs = 1, ss = 1;
    for (int d = 0; d < 3; d++) {
        long long h = g->prog->halo[d];
        xo += (h + p->hold_ext[d]) * xs;
        so += h * ss;
        xs *= s->pad[d];
        ss *= g->pad[d];
    }
    CUdeviceptr x = ext + (CUdeviceptr)xo * es, o = std + (CUdeviceptr)so * es;
    CUdeviceptr dst = in ? x : o, src = in ? o : x;
    long long X0 = s->pad[0], X01 = s->pad[0] * s->pad[1], P0 = g->pad[0], P01 = (long long)g->pad[0] * g->pad[1];
    long long d0 = in ? X0 : P0, d01 = in ? X01 : P01, s0 = in ? P0 : X0, s01 = in ? P01 : X01;
    int e0 = g->n[0], e1 = g->n[1], e2 = g->n[2];
    void *args[] = {&dst, &src, &d0, &d01, &s0, &s01, &e0, &e1, &e2};
    const long long grid[3] = {(e0 + 255) / 256, e1, e2};
    return launch(m, m->hold_copy, grid, args, "the held run's copy", why, whylen);
}

/* The layers beyond every face of one extended buffer, axis by axis. */
static int refill(RtModule *m, const RtGrid *g, const HoldShape *s, CUdeviceptr buf, char *why, int whylen)
{
    const Plan *p = m->plan;
    for (int a = 0; a < g->prog->dims; a++) {
        long long h = g->prog->halo[a], n = g->n[a];
        int w = p->hold_ext[a], kind = p->hold_kind, half = p->hold_kind == HOLD_CLAMP;
        long long lo0 = h, first = h + w, last = first + n - 1, hi0 = last + 1;
        long long m2lo = 2 * first - half, m2hi = 2 * last + half;
        long long P0 = s->pad[0], P1 = s->pad[1], P2 = s->pad[2];
        void *args[] = {&buf, &a, &kind, &P0, &P1, &P2, &lo0, &hi0, &w, &n, &m2lo, &m2hi};
        int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2;
        const long long grid[3] = {(s->pad[b] + 255) / 256, s->pad[c], 2 * w};
        if (launch(m, m->hold_edge, grid, args, "the held run's refill", why, whylen) != 0)
            return -1;
    }
    return 0;
}

static int field_copies(const IrField *f) { return f->role == ROLE_STATE ? f->levels : f->role == ROLE_COEF; }

/* g->hold: one extended copy per state buffer and coef field, allocated at the first held run
 * (again when the size changes) and kept with the grid (rt_grid_free frees them). */
static int keep_copies(RtModule *m, RtGrid *g, const HoldShape *s, char *why, int whylen)
{
    if (g->hold_bytes == s->bytes)
        return 0;
    for (int f = 0; f < RT_MAX_FIELDS; f++)
        for (int l = 0; l < 4; l++)
            if (g->hold[f][l]) {
                m->rc->api.MemFree(g->hold[f][l]);
                g->hold[f][l] = 0;
            }
    g->hold_bytes = 0;
    for (int f = 0; f < g->prog->nfields; f++)
        for (int l = 0; l < field_copies(&g->prog->fields[f]); l++)
            if (RT_CU(m->rc, MemAlloc(&g->hold[f][l], s->bytes), "allocating a held copy", why, whylen))
                return -1;
    g->hold_bytes = s->bytes;
    return 0;
}

/* Runs `groups` fused groups held; g's buffers end as a run of `step` would leave them. */
int rt_run_held(RtModule *m, RtGrid *g, long groups, char *why, int whylen)
{
    const Plan *p = m->plan;
    const IrProgram *prog = g->prog;
    HoldShape s;
    hold_shape(g, p, &s);
    CUdeviceptr saved[RT_MAX_FIELDS][4];
    int status = keep_copies(m, g, &s, why, whylen);
    for (int f = 0; f < prog->nfields && status == 0; f++)
        for (int l = 0; l < field_copies(&prog->fields[f]) && status == 0; l++) {
            CUdeviceptr x = g->hold[f][l];
            status = RT_CU(m->rc, MemsetD8Async(x, 0, s.bytes, NULL), "clearing a held copy", why, whylen)
                  || copy_box(m, g, &s, x, g->buf[f][l], 1, why, whylen)
                  || (prog->fields[f].role == ROLE_COEF && refill(m, g, &s, x, why, whylen));
        }
    int n[3];
    memcpy(n, g->n, sizeof n);
    memcpy(saved, g->buf, sizeof saved);
    for (long k = 0; k < groups && status == 0; k++, g->step += p->step_count) {
        for (int f = 0; f < prog->nfields && status == 0; f++)
            if (prog->fields[f].role == ROLE_STATE)
                status = refill(m, g, &s, g->hold[f][g->newest[f]], why, whylen);
        memcpy(g->buf, g->hold, sizeof g->hold);
        memcpy(g->n, s.n, sizeof g->n);
        if (status == 0)
            status = rt_launch_list(m, g, p->held, m->held, p->nheld, why, whylen);
        memcpy(g->buf, saved, sizeof saved);
        memcpy(g->n, n, sizeof n);
    }
    for (int f = 0; f < prog->nfields && status == 0; f++)
        if (prog->fields[f].role == ROLE_STATE)
            for (int l = 0; l < prog->fields[f].levels && status == 0; l++)
                status = copy_box(m, g, &s, g->hold[f][l], g->buf[f][l], 0, why, whylen);
    if (status == 0)
        status = rt_launch_list(m, g, p->prologue, m->prologue, p->nprologue, why, whylen);
    return status;
}
