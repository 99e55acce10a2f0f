/* The reference interpreter: double precision, the padded layout of ir.h, the boundary
 * conditions of docs/language.md. Each stage is evaluated a row of x at a time, node by node,
 * so the per-node dispatch is paid once per row rather than once per point. */
#include "interp.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fputs("stencilc: out of memory\n", stderr);
        exit(3);
    }
    return p;
}

InterpGrid *interp_grid_new(const IrProgram *prog, const int n[3])
{
    long long wide[3];
    for (int d = 0; d < 3; d++)
        wide[d] = d < prog->dims ? (n[d] > 0 ? n[d] : 1) : 1;
    if (ir_check_extent(prog->dims, prog->halo, wide, NULL, 0) != 0)
        return NULL;
    InterpGrid *g = xcalloc(1, sizeof *g);
    g->prog = prog;
    g->total = 1;
    for (int d = 0; d < 3; d++) {
        g->n[d] = (int)wide[d];
        g->pad[d] = g->n[d] + 2 * prog->halo[d];
        g->total *= g->pad[d];
    }
    for (int f = 0; f < prog->nfields && f < 64; f++) {
        int levels = prog->fields[f].role == ROLE_STATE ? prog->fields[f].levels : 1;
        g->buf[f] = xcalloc((size_t)levels, sizeof *g->buf[f]);
        for (int l = 0; l < levels; l++)
            g->buf[f][l] = xcalloc((size_t)g->total, sizeof(double));
        g->newest[f] = 0;
    }
    g->params = xcalloc((size_t)prog->nparams, sizeof(double));
    for (int i = 0; i < prog->nparams; i++)
        g->params[i] = prog->params[i].def;
    return g;
}

static int field_levels(const InterpGrid *g, int f)
{
    const IrField *fd = &g->prog->fields[f];
    return fd->role == ROLE_STATE ? fd->levels : 1;
}

void interp_grid_free(InterpGrid *g)
{
    if (!g)
        return;
    for (int f = 0; f < g->prog->nfields && f < 64; f++) {
        for (int l = 0; l < field_levels(g, f); l++)
            free(g->buf[f][l]);
        free(g->buf[f]);
    }
    free(g->params);
    free(g);
}

/* A hash of (seed, field, index): the values do not depend on the order of filling. */
static double random_value(unsigned seed, int f, long i)
{
    uint64_t z = ((uint64_t)seed << 40) ^ ((uint64_t)(unsigned)f << 32) ^ (uint64_t)i;
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return 0.5 + (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

void interp_fill_random(InterpGrid *g, unsigned seed)
{
    for (int f = 0; f < g->prog->nfields && f < 64; f++)
        for (int l = 0; l < field_levels(g, f); l++)
            for (long i = 0; i < g->total; i++)
                g->buf[f][l][i] = random_value(seed, f, i);
}

long interp_index(const InterpGrid *g, int i, int j, int k)
{
    const int *h = g->prog->halo;
    return ((long)(k + h[2]) * g->pad[1] + (j + h[1])) * g->pad[0] + (i + h[0]);
}

int interp_map_coord(BoundaryKind bc, int x, int n)
{
    if (x >= 0 && x < n)
        return x;
    switch (bc) {
    case BC_PERIODIC:
        return (int)(((long long)x % n + n) % n);
    case BC_CLAMP:
        return x < 0 ? 0 : n - 1;
    case BC_MIRROR: {
        if (n == 1)
            return 0;
        long long m = 2LL * (n - 1), r = ((x % m) + m) % m; /* 2(n-1) passes INT_MAX */
        return (int)(r >= n ? m - r : r);
    }
    default:
        return x;
    }
}

/* The halo layers of face s of axis a of one buffer, over the padded extent of the other axes:
 * the face's constant, or a copy of the point its condition maps the coordinate to. */
static void fill_face(InterpGrid *g, double *b, int a, int s, IrBc bc)
{
    const int *h = g->prog->halo;
    int lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = -h[d];
        hi[d] = g->n[d] + h[d];
    }
    lo[a] = s ? g->n[a] : -h[a];
    hi[a] = s ? g->n[a] + h[a] : 0;
    for (int k = lo[2]; k < hi[2]; k++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int i = lo[0]; i < hi[0]; i++) {
                int c[3] = {i, j, k};
                long at = interp_index(g, i, j, k);
                if (bc.kind == BC_CONSTANT) {
                    b[at] = bc.value;
                    continue;
                }
                c[a] = interp_map_coord(bc.kind, c[a], g->n[a]);
                b[at] = b[interp_index(g, c[0], c[1], c[2])];
            }
}

/* Fills the halo of one buffer by the field's conditions (docs/language.md): axis by axis, x
 * first, each over the padded extent of the axes before and after it, so an edge or a corner
 * takes its last axis's condition applied to what the earlier axes left; a fixed face is left
 * alone. With one mapping condition (periodic, clamp, mirror) on every face this maps each
 * coordinate independently. */
static void fill_halo(InterpGrid *g, double *b, const IrField *f)
{
    for (int a = 0; a < g->prog->dims; a++)
        for (int s = 0; s < 2 && g->prog->halo[a] > 0; s++)
            if (ir_bc(f, a, s).kind != BC_FIXED)
                fill_face(g, b, a, s, ir_bc(f, a, s));
}

static void for_each_halo_point(InterpGrid *g, double *dst, const double *src)
{
    const int *h = g->prog->halo;
    for (int k = -h[2]; k < g->n[2] + h[2]; k++)
        for (int j = -h[1]; j < g->n[1] + h[1]; j++)
            for (int i = -h[0]; i < g->n[0] + h[0]; i++) {
                if (i >= 0 && i < g->n[0] && j >= 0 && j < g->n[1] && k >= 0 && k < g->n[2])
                    continue;
                long at = interp_index(g, i, j, k);
                dst[at] = src ? src[at] : 0.0;
            }
}

void interp_fill_halos(InterpGrid *g)
{
    for (int f = 0; f < g->prog->nfields && f < 64; f++) {
        const IrField *fd = &g->prog->fields[f];
        fill_halo(g, g->buf[f][g->newest[f]], fd);
    }
}

/* The value of a built-in (N_COORD, N_EXTENT, N_STEP) at row (j, k), column x, of step t. */
static double builtin_value(const InterpGrid *g, const IrNode *n, int x, int j, int k, int t)
{
    if (n->op == N_STEP)
        return t;
    if (n->op == N_EXTENT)
        return g->n[n->param];
    return n->param == 0 ? x : n->param == 1 ? j : k;
}

/* Receives the node values of one row of x (node i's at v + i * nx) whose first point is
 * element base of a buffer. */
typedef void (*RowFn)(void *ctx, const IrStage *st, const double *v, int nx, long base);

/* Evaluates one stage's nodes of step t on the whole interior, a row at a time, handing each row
 * to row. */
static void eval_rows(const InterpGrid *g, const IrStage *st, int t, RowFn row, void *ctx)
{
    const IrProgram *p = g->prog;
    int nx = g->n[0], nn = st->nnodes;
    if (nn == 0)
        return;
    double *v = xcalloc((size_t)nn * (size_t)nx, sizeof(double));
    const double **src = xcalloc((size_t)nn, sizeof *src);
    long stride1 = g->pad[0], stride2 = (long)g->pad[0] * g->pad[1];
    for (int i = 0; i < nn; i++) {
        const IrNode *n = &st->nodes[i];
        double *r = v + (size_t)i * (size_t)nx;
        if (n->op == N_CONST || n->op == N_PARAM) {
            double c = n->op == N_CONST ? n->value : g->params[n->param];
            for (int x = 0; x < nx; x++)
                r[x] = c;
        } else if (n->op == N_READ) {
            int f = n->field, levels = field_levels(g, f);
            int l = (g->newest[f] + n->level % levels + levels) % levels;
            src[i] = g->buf[f][l] + n->off[0] + n->off[1] * stride1 + n->off[2] * stride2;
        }
    }
    for (int k = 0; k < g->n[2]; k++)
        for (int j = 0; j < g->n[1]; j++) {
            long base = interp_index(g, 0, j, k);
            for (int i = 0; i < nn; i++) {
                const IrNode *n = &st->nodes[i];
                double *r = v + (size_t)i * (size_t)nx;
                const double *a = n->a >= 0 ? v + (size_t)n->a * (size_t)nx : NULL;
                const double *b = n->b >= 0 ? v + (size_t)n->b * (size_t)nx : NULL;
                const double *c = n->c >= 0 ? v + (size_t)n->c * (size_t)nx : NULL;
                switch (n->op) {
                case N_CONST:
                case N_PARAM:
                    break;
                case N_READ:
                    memcpy(r, src[i] + base, sizeof(double) * (size_t)nx);
                    break;
                case N_COORD:
                case N_EXTENT:
                case N_STEP:
                    for (int x = 0; x < nx; x++)
                        r[x] = builtin_value(g, n, x, j, k, t);
                    break;
                case N_ADD: for (int x = 0; x < nx; x++) r[x] = a[x] + b[x]; break;
                case N_SUB: for (int x = 0; x < nx; x++) r[x] = a[x] - b[x]; break;
                case N_MUL: for (int x = 0; x < nx; x++) r[x] = a[x] * b[x]; break;
                case N_DIV: for (int x = 0; x < nx; x++) r[x] = a[x] / b[x]; break;
                case N_NEG: for (int x = 0; x < nx; x++) r[x] = -a[x]; break;
                default:
                    for (int x = 0; x < nx; x++)
                        r[x] = ir_eval_op(n->op, a[x], b ? b[x] : 0.0, c ? c[x] : 0.0);
                    break;
                }
            }
            row(ctx, st, v, nx, base);
        }
    free(v);
    free(src);
    (void)p;
}

/* A row's writes into target[field]. */
static void store_row(void *target, const IrStage *st, const double *v, int nx, long base)
{
    for (int w = 0; w < st->nwrites; w++) {
        const IrWrite *wr = &st->writes[w];
        memcpy(((double *const *)target)[wr->field] + base, v + (size_t)wr->node * (size_t)nx,
               sizeof(double) * (size_t)nx);
    }
}

/* Evaluates one stage of step t on the whole interior, writing state fields into target[f]. */
static void run_stage(InterpGrid *g, const IrStage *st, double *const *target, int t)
{
    eval_rows(g, st, t, store_row, (void *)target);
}

typedef struct {
    IrReduceKind kind;
    double acc;
    double mag; /* the sum of |x| */
} Reducing;

/* A row's values folded into the reduction, in order along x. */
static void reduce_row(void *ctx, const IrStage *st, const double *v, int nx, long base)
{
    Reducing *r = ctx;
    const double *x = v + (size_t)st->writes[0].node * (size_t)nx;
    for (int i = 0; i < nx; i++) {
        r->mag += fabs(x[i]);
        if (r->kind == RED_SUM)
            r->acc += x[i];
        else if (isnan(x[i]) || (r->kind == RED_MIN ? x[i] < r->acc : x[i] > r->acc))
            r->acc = x[i]; /* a NaN stays: comparisons with it are false */
    }
    (void)base;
}

void interp_reduce(const InterpGrid *g, double *out, double *scale)
{
    for (int i = 0; i < g->prog->nreduces; i++) {
        const IrReduce *red = &g->prog->reduces[i];
        Reducing r = {red->kind, red->kind == RED_SUM ? 0.0 : red->kind == RED_MIN ? INFINITY : -INFINITY, 0.0};
        if (red->stage.nwrites == 1)
            eval_rows(g, &red->stage, 0, reduce_row, &r); /* x, y, z: the point; lowering refuses step */
        out[i] = r.acc;
        if (scale)
            scale[i] = red->kind == RED_SUM ? r.mag : fabs(r.acc);
    }
}

/* Start of a run: every buffer's halo made consistent with its boundary condition. */
static void prepare(InterpGrid *g)
{
    const IrProgram *p = g->prog;
    for (int f = 0; f < p->nfields && f < 64; f++) {
        const IrField *fd = &p->fields[f];
        int levels = field_levels(g, f);
        double *newest = g->buf[f][g->newest[f]];
        if (fd->role == ROLE_TEMP && ir_bc_any(fd, BC_FIXED))
            for_each_halo_point(g, newest, NULL); /* a fixed face of a temp holds 0 */
        for (int l = 0; l < levels; l++) {
            if (ir_bc_any(fd, BC_FIXED) && l != g->newest[f])
                for_each_halo_point(g, g->buf[f][l], newest); /* fixed faces: the newest halo */
            fill_halo(g, g->buf[f][l], fd);
        }
    }
}

void interp_run(InterpGrid *g, int steps) { interp_run_ticking(g, steps, NULL, NULL); }

int interp_run_ticking(InterpGrid *g, int steps, InterpTick tick, void *ctx)
{
    const IrProgram *p = g->prog;
    double *target[64];
    prepare(g);
    for (int t = 0; t < steps; t++) {
        if (tick && tick(ctx, t, steps))
            return t;
        for (int f = 0; f < p->nfields && f < 64; f++) {
            int levels = field_levels(g, f);
            target[f] = g->buf[f][(g->newest[f] + 1) % levels];
        }
        for (int s = 0; s < p->nstages; s++) {
            run_stage(g, &p->stages[s], target, t);
            for (int f = 0; f < p->nfields; f++) {
                const IrField *fd = &p->fields[f];
                if (fd->role == ROLE_TEMP && fd->write_stage == s)
                    fill_halo(g, g->buf[f][0], fd);
            }
        }
        for (int f = 0; f < p->nfields && f < 64; f++) {
            const IrField *fd = &p->fields[f];
            if (fd->role != ROLE_STATE)
                continue;
            int levels = field_levels(g, f), next = (g->newest[f] + 1) % levels;
            if (!fd->written) /* keeps its value: the whole buffer, halo included */
                memcpy(g->buf[f][next], g->buf[f][g->newest[f]], sizeof(double) * (size_t)g->total);
            g->newest[f] = next;
            fill_halo(g, g->buf[f][next], fd);
        }
    }
    return steps;
}
