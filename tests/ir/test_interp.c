/* The interpreter against plain C loops written here: benchmark stencils, a three-level wave
 * equation with a coef field, a coupled two-field system, every boundary condition on odd
 * grids, and a two-stage program with temp fields. */
#include "ast_build.h"
#include "interp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

/* The layout, computed independently of the interpreter's. */
typedef struct {
    int dims, n[3], h[3], p[3];
    long total;
} Shape;

static Shape shape_of(const IrProgram *prog, const int n[3])
{
    Shape s;
    s.dims = prog->dims;
    s.total = 1;
    for (int d = 0; d < 3; d++) {
        s.n[d] = d < prog->dims ? n[d] : 1;
        s.h[d] = prog->halo[d];
        s.p[d] = s.n[d] + 2 * s.h[d];
        s.total *= s.p[d];
    }
    return s;
}

static long at(const Shape *s, int i, int j, int k)
{
    return ((long)(k + s->h[2]) * s->p[1] + j + s->h[1]) * s->p[0] + i + s->h[0];
}

static double *copy_buf(const double *src, long n)
{
    double *b = malloc(sizeof *b * (size_t)n);
    for (long i = 0; i < n; i++)
        b[i] = src[i];
    return b;
}

/* Largest difference over the whole padded buffer (interior and halo). */
static double max_diff(const double *a, const double *b, long n)
{
    double m = 0;
    for (long i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (d > m || d != d)
            m = d != d ? INFINITY : d;
    }
    return m;
}

static IrProgram *lower(TB *t, Diag *dg)
{
    diag_init(dg, NULL, stderr);
    IrProgram *p = ir_lower(&t->st, t->a, dg);
    CHECK(p != NULL);
    return p;
}

/* ---- weighted sums with a fixed boundary (the benchmarks' convention) ---- */

static void weighted_case(const char *name, int dims, int npts, int (*off)[3],
                          double divisor, const int n[3], int steps)
{
    Arena *a = arena_new();
    TB t;
    Diag dg;
    tb_init(&t, a, name, dims);
    tb_field(&t, "u", ROLE_STATE, 0, BC_FIXED, 0);
    double w[800];
    for (int i = 0; i < npts; i++)
        w[i] = (0.5 + 0.37 * i - 0.011 * i * i) / npts;
    tb_assign(&t, "u", tb_weighted(&t, "u", npts, off, w, divisor));
    IrProgram *p = lower(&t, &dg);
    if (!p) {
        arena_free(a);
        return;
    }
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, 7);
    Shape s = shape_of(p, n);
    double *cur = copy_buf(g->buf[0][g->newest[0]], s.total);
    double *next = copy_buf(cur, s.total);
    interp_run(g, steps);
    for (int st = 0; st < steps; st++) {
        for (int k = 0; k < s.n[2]; k++)
            for (int j = 0; j < s.n[1]; j++)
                for (int i = 0; i < s.n[0]; i++) {
                    double sum = 0;
                    for (int q = 0; q < npts; q++) {
                        double term = w[q] * cur[at(&s, i + off[q][0], j + off[q][1], k + off[q][2])];
                        sum = q ? sum + term : term;
                    }
                    next[at(&s, i, j, k)] = divisor != 0 ? sum / divisor : sum;
                }
        double *tmp = cur;
        cur = next;
        next = tmp;
    }
    double d = max_diff(cur, g->buf[0][g->newest[0]], s.total);
    if (d > 1e-12)
        fprintf(stderr, "%s: max difference %g\n", name, d);
    CHECK(d <= 1e-12);
    free(cur);
    free(next);
    interp_grid_free(g);
    arena_free(a);
}

static void test_benchmarks(void)
{
    int star3d1r[7][3] = {{0,0,-1},{0,-1,0},{-1,0,0},{0,0,0},{1,0,0},{0,1,0},{0,0,1}};
    weighted_case("star3d1r", 3, 7, star3d1r, 0, (int[]){13, 11, 9}, 3);
    int box2d2r[25][3], j3d27pt[27][3], q = 0;
    for (int y = -2; y <= 2; y++)
        for (int x = -2; x <= 2; x++, q++) {
            box2d2r[q][0] = x;
            box2d2r[q][1] = y;
            box2d2r[q][2] = 0;
        }
    weighted_case("box2d2r", 2, 25, box2d2r, 0, (int[]){17, 13, 1}, 4);
    q = 0;
    for (int z = -1; z <= 1; z++)
        for (int y = -1; y <= 1; y++)
            for (int x = -1; x <= 1; x++, q++) {
                j3d27pt[q][0] = x;
                j3d27pt[q][1] = y;
                j3d27pt[q][2] = z;
            }
    weighted_case("j3d27pt", 3, 27, j3d27pt, 159.0, (int[]){11, 9, 7}, 3);
}

/* ---- gradient2d: lets and a square root ---- */

static void test_gradient2d(void)
{
    Arena *a = arena_new();
    TB t;
    Diag dg;
    tb_init(&t, a, "gradient2d", 2);
    tb_field(&t, "u", ROLE_STATE, 0, BC_FIXED, 0);
    tb_let(&t, "c", tb_name(&t, "u"));
    tb_let(&t, "w", tb_read(&t, "u", -1, 0, 0));
    tb_let(&t, "e", tb_read(&t, "u", 1, 0, 0));
    tb_let(&t, "s", tb_read(&t, "u", 0, -1, 0));
    tb_let(&t, "n", tb_read(&t, "u", 0, 1, 0));
    const char *nb[4] = {"w", "e", "n", "s"};
    AstExpr *sum = tb_num(&t, 0.0001);
    for (int i = 0; i < 4; i++) {
        AstExpr *d1 = tb_bin(&t, OP_SUB, tb_name(&t, "c"), tb_name(&t, nb[i]));
        AstExpr *d2 = tb_bin(&t, OP_SUB, tb_name(&t, "c"), tb_name(&t, nb[i]));
        sum = tb_bin(&t, OP_ADD, sum, tb_bin(&t, OP_MUL, d1, d2));
    }
    tb_assign(&t, "u", tb_bin(&t, OP_ADD, tb_name(&t, "c"),
                              tb_bin(&t, OP_DIV, tb_num(&t, 1), tb_call(&t, "sqrt", 1, sum))));
    IrProgram *p = lower(&t, &dg);
    CHECK(p && p->an.flops_written == 19);
    CHECK(p && p->an.flops == 15); /* each difference computed once */
    CHECK(p && p->an.points == 5);
    int n[3] = {19, 15, 1};
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, 3);
    Shape s = shape_of(p, n);
    double *cur = copy_buf(g->buf[0][0], s.total), *next = copy_buf(cur, s.total);
    interp_run(g, 3);
    for (int st = 0; st < 3; st++) {
        for (int j = 0; j < s.n[1]; j++)
            for (int i = 0; i < s.n[0]; i++) {
                double c = cur[at(&s, i, j, 0)];
                double w = cur[at(&s, i - 1, j, 0)], e = cur[at(&s, i + 1, j, 0)];
                double so = cur[at(&s, i, j - 1, 0)], no = cur[at(&s, i, j + 1, 0)];
                next[at(&s, i, j, 0)] = c + 1 / sqrt(0.0001 + (c - w) * (c - w) + (c - e) * (c - e) +
                                                     (c - no) * (c - no) + (c - so) * (c - so));
            }
        double *tmp = cur;
        cur = next;
        next = tmp;
    }
    CHECK(max_diff(cur, g->buf[0][g->newest[0]], s.total) <= 1e-12);
    free(cur);
    free(next);
    interp_grid_free(g);
    arena_free(a);
}

/* ---- the 2D wave equation: three levels and a coef velocity ---- */

static void test_wave2d(void)
{
    Arena *a = arena_new();
    TB t;
    Diag dg;
    tb_init(&t, a, "wave2d", 2);
    tb_param(&t, "k", 0.2);
    tb_field(&t, "u", ROLE_STATE, 3, BC_FIXED, 0);
    tb_field(&t, "c", ROLE_COEF, 0, BC_FIXED, 0);
    AstExpr *lap = tb_bin(&t, OP_ADD, tb_read(&t, "u", -1, 0, 0), tb_read(&t, "u", 1, 0, 0));
    lap = tb_bin(&t, OP_ADD, lap, tb_read(&t, "u", 0, -1, 0));
    lap = tb_bin(&t, OP_ADD, lap, tb_read(&t, "u", 0, 1, 0));
    lap = tb_bin(&t, OP_SUB, lap, tb_bin(&t, OP_MUL, tb_num(&t, 4), tb_name(&t, "u")));
    tb_let(&t, "lap", lap);
    AstExpr *old = tb_name(&t, "u");
    old->level = -1;
    AstExpr *e = tb_bin(&t, OP_SUB, tb_bin(&t, OP_MUL, tb_num(&t, 2), tb_name(&t, "u")), old);
    AstExpr *kc = tb_bin(&t, OP_MUL, tb_bin(&t, OP_MUL, tb_name(&t, "k"), tb_name(&t, "c")),
                         tb_name(&t, "c"));
    tb_assign(&t, "u", tb_bin(&t, OP_ADD, e, tb_bin(&t, OP_MUL, kc, tb_name(&t, "lap"))));
    IrProgram *p = lower(&t, &dg);
    if (!p)
        return;
    CHECK(p->fields[0].levels == 3);
    int n[3] = {21, 17, 1}, steps = 5;
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, 11);
    /* Give t-1 different values than t so the older level matters. */
    for (long i = 0; i < g->total; i++)
        g->buf[0][2][i] = g->buf[0][0][i] * 0.75;
    Shape s = shape_of(p, n);
    double *prev = copy_buf(g->buf[0][2], s.total), *cur = copy_buf(g->buf[0][0], s.total);
    double *next = copy_buf(cur, s.total), *c = copy_buf(g->buf[1][0], s.total);
    interp_run(g, steps);
    for (int st = 0; st < steps; st++) {
        for (int j = 0; j < s.n[1]; j++)
            for (int i = 0; i < s.n[0]; i++) {
                long x = at(&s, i, j, 0);
                double l = cur[at(&s, i - 1, j, 0)] + cur[at(&s, i + 1, j, 0)] +
                           cur[at(&s, i, j - 1, 0)] + cur[at(&s, i, j + 1, 0)] - 4 * cur[x];
                next[x] = 2 * cur[x] - prev[x] + 0.2 * c[x] * c[x] * l;
            }
        double *tmp = prev;
        prev = cur;
        cur = next;
        next = tmp;
        /* The fixed halo of the buffer written next is the initial one (the interpreter
         * copies the newest buffer's halo to the others at the start). */
        for (int j = -1; j <= s.n[1]; j++)
            for (int i = -1; i <= s.n[0]; i++)
                if (i < 0 || j < 0 || i >= s.n[0] || j >= s.n[1])
                    next[at(&s, i, j, 0)] = cur[at(&s, i, j, 0)];
    }
    CHECK(max_diff(cur, g->buf[0][g->newest[0]], s.total) <= 1e-10);
    CHECK(max_diff(prev, g->buf[0][(g->newest[0] + 2) % 3], s.total) <= 1e-10);
    free(prev);
    free(cur);
    free(next);
    free(c);
    interp_grid_free(g);
    arena_free(a);
}

/* ---- a coupled two-field reaction-diffusion system (Jacobi semantics) ---- */

static AstExpr *lap5(TB *t, const char *f)
{
    AstExpr *l = tb_bin(t, OP_ADD, tb_read(t, f, -1, 0, 0), tb_read(t, f, 1, 0, 0));
    l = tb_bin(t, OP_ADD, l, tb_read(t, f, 0, -1, 0));
    l = tb_bin(t, OP_ADD, l, tb_read(t, f, 0, 1, 0));
    return tb_bin(t, OP_SUB, l, tb_bin(t, OP_MUL, tb_num(t, 4), tb_name(t, f)));
}

static void test_reaction_diffusion(void)
{
    Arena *a = arena_new();
    TB t;
    Diag dg;
    tb_init(&t, a, "gray_scott", 2);
    tb_param(&t, "F", 0.06);
    tb_param(&t, "K", 0.062);
    tb_field(&t, "u", ROLE_STATE, 0, BC_FIXED, 0);
    tb_field(&t, "v", ROLE_STATE, 0, BC_FIXED, 0);
    tb_let(&t, "uvv", tb_bin(&t, OP_MUL, tb_bin(&t, OP_MUL, tb_name(&t, "u"), tb_name(&t, "v")),
                             tb_name(&t, "v")));
    /* u = u + 0.16*lap(u) - uvv + F*(1-u);  v = v + 0.08*lap(v) + uvv - (F+K)*v */
    AstExpr *eu = tb_bin(&t, OP_ADD, tb_name(&t, "u"), tb_bin(&t, OP_MUL, tb_num(&t, 0.16), lap5(&t, "u")));
    eu = tb_bin(&t, OP_SUB, eu, tb_name(&t, "uvv"));
    eu = tb_bin(&t, OP_ADD, eu, tb_bin(&t, OP_MUL, tb_name(&t, "F"),
                                       tb_bin(&t, OP_SUB, tb_num(&t, 1), tb_name(&t, "u"))));
    tb_assign(&t, "u", eu);
    AstExpr *ev = tb_bin(&t, OP_ADD, tb_name(&t, "v"), tb_bin(&t, OP_MUL, tb_num(&t, 0.08), lap5(&t, "v")));
    ev = tb_bin(&t, OP_ADD, ev, tb_name(&t, "uvv"));
    ev = tb_bin(&t, OP_SUB, ev, tb_bin(&t, OP_MUL, tb_bin(&t, OP_ADD, tb_name(&t, "F"), tb_name(&t, "K")),
                                       tb_name(&t, "v")));
    tb_assign(&t, "v", ev);
    IrProgram *p = lower(&t, &dg);
    if (!p)
        return;
    CHECK(p->nstages == 1);
    int n[3] = {15, 13, 1}, steps = 4;
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, 5);
    g->params[0] = 0.05; /* a runtime value other than the default */
    Shape s = shape_of(p, n);
    double *u = copy_buf(g->buf[0][0], s.total), *v = copy_buf(g->buf[1][0], s.total);
    double *un = copy_buf(u, s.total), *vn = copy_buf(v, s.total);
    interp_run(g, steps);
    double F = 0.05, K = 0.062;
    for (int st = 0; st < steps; st++) {
        for (int j = 0; j < s.n[1]; j++)
            for (int i = 0; i < s.n[0]; i++) {
                long x = at(&s, i, j, 0);
                double lu = u[at(&s, i - 1, j, 0)] + u[at(&s, i + 1, j, 0)] + u[at(&s, i, j - 1, 0)] +
                            u[at(&s, i, j + 1, 0)] - 4 * u[x];
                double lv = v[at(&s, i - 1, j, 0)] + v[at(&s, i + 1, j, 0)] + v[at(&s, i, j - 1, 0)] +
                            v[at(&s, i, j + 1, 0)] - 4 * v[x];
                double uvv = u[x] * v[x] * v[x];
                un[x] = u[x] + 0.16 * lu - uvv + F * (1 - u[x]);
                vn[x] = v[x] + 0.08 * lv + uvv - (F + K) * v[x];
            }
        double *tmp = u; u = un; un = tmp;
        tmp = v; v = vn; vn = tmp;
    }
    CHECK(max_diff(u, g->buf[0][g->newest[0]], s.total) <= 1e-12);
    CHECK(max_diff(v, g->buf[1][g->newest[1]], s.total) <= 1e-12);
    free(u); free(v); free(un); free(vn);
    interp_grid_free(g);
    arena_free(a);
}

/* ---- every boundary condition, against loops that map coordinates on the fly ---- */

static int ref_map(BoundaryKind bc, int x, int n)
{
    switch (bc) {
    case BC_PERIODIC: return x < 0 ? x + n : x - n;      /* halo <= n here */
    case BC_CLAMP: return x < 0 ? 0 : n - 1;
    case BC_MIRROR: return x < 0 ? -x : 2 * (n - 1) - x; /* halo < n here */
    default: return x;
    }
}

/* A field's conditions per axis and face ([axis][0] low, [1] high), as docs/language.md
 * states them. */
typedef struct {
    const Shape *s;
    IrBc bc[3][2];
    const double *interior; /* padded buffer; its interior is used */
    const double *initial;  /* the initial padded buffer: the fixed halo */
} RefField;

/* The value at c after the halo passes of axes 0..last (docs/language.md): the condition of the
 * last axis along which c is outside applies to what the earlier axes left (constant: its value;
 * fixed: untouched; a mapping: the point it names); a point never written keeps its initial
 * value. Written from the rule, not from the interpreter's loops. */
static double ref_value(const RefField *f, int c[3], int last)
{
    int a = last;
    while (a >= 0 && c[a] >= 0 && c[a] < f->s->n[a])
        a--;
    if (a < 0) {
        int in = 1;
        for (int d = 0; d < 3; d++)
            in &= c[d] >= 0 && c[d] < f->s->n[d];
        return (in ? f->interior : f->initial)[at(f->s, c[0], c[1], c[2])];
    }
    IrBc bc = f->bc[a][c[a] < 0 ? 0 : 1];
    if (bc.kind == BC_CONSTANT)
        return bc.value;
    int m[3] = {c[0], c[1], c[2]};
    m[a] = ref_map(bc.kind, c[a], f->s->n[a]);
    return ref_value(f, m, a - 1);
}

static double ref_get(const RefField *f, int i, int j, int k)
{
    int c[3] = {i, j, k};
    return ref_value(f, c, f->s->dims - 1);
}

static RefField ref_clamp(const Shape *s, const double *values)
{
    RefField f = {s, {{{0}}}, values, values};
    for (int d = 0; d < 3; d++)
        f.bc[d][0] = f.bc[d][1] = (IrBc){BC_CLAMP, 0};
    return f;
}

/* A field declared with a condition per axis of the grid, `low | high` where they differ. */
static void tb_field_faces(TB *t, const char *name, IrBc bc[3][2], int dims)
{
    tb_field(t, name, ROLE_STATE, 0, BC_FIXED, 0);
    AstDecl *d = &t->st.decls[t->st.ndecls - 1];
    d->bc_axes = dims;
    for (int a = 0; a < dims; a++) {
        for (int s = 0; s < 2; s++)
            d->bc[a][s] = (AstBc){bc[a][s].kind, bc[a][s].kind == BC_CONSTANT ? tb_num(t, bc[a][s].value) : NULL,
                                  d->loc};
        d->bc_split[a] = 1;
    }
}

static const char *faces_name(IrBc bc[3][2], int dims, char *buf, int len)
{
    int at = 0;
    for (int a = 0; a < dims && at < len; a++)
        at += snprintf(buf + at, (size_t)(len - at), "%s%s|%s", a ? ", " : "", ir_bc_name(bc[a][0].kind),
                       ir_bc_name(bc[a][1].kind));
    return buf;
}

static void faces_case(IrBc bc[3][2], int dims, int radius, const int n[3], int steps)
{
    Arena *a = arena_new();
    TB t;
    Diag dg;
    tb_init(&t, a, "bc", dims);
    tb_field_faces(&t, "u", bc, dims);
    /* A full box of the given radius, so edges and corners of the halo are read. */
    int off[125][3], npts = 0;
    double w[125];
    for (int z = dims > 2 ? -radius : 0; z <= (dims > 2 ? radius : 0); z++)
        for (int y = dims > 1 ? -radius : 0; y <= (dims > 1 ? radius : 0); y++)
            for (int x = -radius; x <= radius; x++) {
                off[npts][0] = x;
                off[npts][1] = y;
                off[npts][2] = z;
                w[npts] = 1.0 / (npts + 2);
                npts++;
            }
    AstExpr *sum = NULL;
    for (int q = 0; q < npts; q++) {
        AstExpr *term = tb_bin(&t, OP_MUL, tb_num(&t, w[q]), tb_read(&t, "u", off[q][0], off[q][1], off[q][2]));
        sum = sum ? tb_bin(&t, OP_ADD, sum, term) : term;
    }
    tb_assign(&t, "u", sum);
    IrProgram *p = lower(&t, &dg);
    if (!p)
        return;
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, 9);
    Shape s = shape_of(p, n);
    double *init = copy_buf(g->buf[0][0], s.total);
    double *cur = copy_buf(init, s.total), *next = copy_buf(init, s.total);
    interp_run(g, steps);
    RefField f = {&s, {{{0}}}, cur, init};
    memcpy(f.bc, bc, sizeof f.bc);
    for (int st = 0; st < steps; st++) {
        f.interior = cur;
        for (int k = 0; k < s.n[2]; k++)
            for (int j = 0; j < s.n[1]; j++)
                for (int i = 0; i < s.n[0]; i++) {
                    double acc = 0;
                    for (int q = 0; q < npts; q++) {
                        double term = w[q] * ref_get(&f, i + off[q][0], j + off[q][1], k + off[q][2]);
                        acc = q ? acc + term : term;
                    }
                    next[at(&s, i, j, k)] = acc;
                }
        double *tmp = cur;
        cur = next;
        next = tmp;
    }
    /* Compare the interior and the halo the interpreter filled. */
    f.interior = cur;
    const double *got = g->buf[0][g->newest[0]];
    double worst = 0;
    for (int k = -s.h[2]; k < s.n[2] + s.h[2]; k++)
        for (int j = -s.h[1]; j < s.n[1] + s.h[1]; j++)
            for (int i = -s.h[0]; i < s.n[0] + s.h[0]; i++) {
                double d = fabs(got[at(&s, i, j, k)] - ref_get(&f, i, j, k));
                if (!(d <= worst))
                    worst = d;
            }
    char name[128];
    if (!(worst <= 1e-12))
        fprintf(stderr, "bc %s dims %d radius %d: max difference %g\n", faces_name(bc, dims, name, sizeof name),
                dims, radius, worst);
    CHECK(worst <= 1e-12);
    free(init);
    free(cur);
    free(next);
    interp_grid_free(g);
    arena_free(a);
}

static void bc_case(BoundaryKind kind, int dims, int radius, const int n[3], int steps)
{
    IrBc bc[3][2];
    for (int d = 0; d < 3; d++)
        bc[d][0] = bc[d][1] = (IrBc){kind, kind == BC_CONSTANT ? 0.625 : 0};
    faces_case(bc, dims, radius, n, steps);
}

static void test_boundaries(void)
{
    BoundaryKind all[5] = {BC_FIXED, BC_CONSTANT, BC_PERIODIC, BC_CLAMP, BC_MIRROR};
    for (int b = 0; b < 5; b++) {
        bc_case(all[b], 1, 2, (int[]){9, 1, 1}, 3);
        bc_case(all[b], 2, 1, (int[]){7, 5, 1}, 3);
        bc_case(all[b], 2, 2, (int[]){9, 5, 1}, 2);
        bc_case(all[b], 3, 1, (int[]){5, 7, 3}, 2);
    }
}

/* ---- a condition per axis and per face ---- */

#define F(kind) ((IrBc){BC_##kind, 0})
#define C(v) ((IrBc){BC_CONSTANT, v})

/* Against the rule's reference: every kind on every face of a 2D box, then 3D mixes. */
static void test_faces_by_rule(void)
{
    IrBc kinds[6] = {F(FIXED), C(0.625), F(PERIODIC), F(CLAMP), F(MIRROR), C(-2)};
    for (int x = 0; x < 6; x++)
        for (int y = 0; y < 6; y++) {
            /* periodic joins both faces of an axis; the others pair with their neighbour kind */
            IrBc bc[3][2] = {{kinds[x], kinds[x].kind == BC_PERIODIC ? kinds[x] : kinds[(x + 3) % 6]},
                             {kinds[y], kinds[y].kind == BC_PERIODIC ? kinds[y] : kinds[(y + 1) % 6]}};
            if (bc[0][1].kind == BC_PERIODIC && bc[0][0].kind != BC_PERIODIC)
                bc[0][1] = F(CLAMP);
            if (bc[1][1].kind == BC_PERIODIC && bc[1][0].kind != BC_PERIODIC)
                bc[1][1] = F(MIRROR);
            bc[2][0] = bc[1][0];
            bc[2][1] = bc[1][1];
            faces_case(bc, 2, 1, (int[]){7, 5, 1}, 2);
            faces_case(bc, 2, 2, (int[]){9, 6, 1}, 2);
        }
    IrBc channel3[3][2] = {{F(PERIODIC), F(PERIODIC)}, {F(FIXED), F(FIXED)}, {F(MIRROR), F(MIRROR)}};
    IrBc inflow3[3][2] = {{C(1), F(CLAMP)}, {F(MIRROR), F(PERIODIC)}, {F(CLAMP), C(0.5)}};
    inflow3[1][1] = F(MIRROR);
    IrBc box3[3][2] = {{F(CLAMP), F(MIRROR)}, {C(2), F(FIXED)}, {F(PERIODIC), F(PERIODIC)}};
    faces_case(channel3, 3, 1, (int[]){5, 7, 3}, 2);
    faces_case(inflow3, 3, 1, (int[]){5, 4, 6}, 2);
    faces_case(box3, 3, 2, (int[]){6, 5, 7}, 2);
}

/* By hand: `boundary constant(7) | clamp, mirror` and `periodic, fixed` on a 3 x 3 grid with
 * u(i, j) = 10 j + i, the fixed halo starting at 100 + 10 (j + 1) + (i + 1). Rows j = -1..3,
 * columns i = -1..3 of the filled buffer. */
static void test_faces_by_hand(void)
{
    static const double inflow[5][5] = {
        {7, 10, 11, 12, 12}, /* j = -1 mirrors row 1, x's halo included */
        {7, 0, 1, 2, 2},     /* x: the constant below, clamp above */
        {7, 10, 11, 12, 12},
        {7, 20, 21, 22, 22},
        {7, 10, 11, 12, 12}, /* j = 3 mirrors row 1 */
    };
    static const double channel[5][5] = {
        {103, 101, 102, 103, 101}, /* fixed rows keep their values; x wraps them at the corners */
        {2, 0, 1, 2, 0},
        {12, 10, 11, 12, 10},
        {22, 20, 21, 22, 20},
        {143, 141, 142, 143, 141},
    };
    const char *const specs[2] = {"constant(7) | clamp, mirror", "periodic, fixed"};
    IrBc faces[2][3][2] = {{{C(7), F(CLAMP)}, {F(MIRROR), F(MIRROR)}, {F(MIRROR), F(MIRROR)}},
                                 {{F(PERIODIC), F(PERIODIC)}, {F(FIXED), F(FIXED)}, {F(FIXED), F(FIXED)}}};
    for (int c = 0; c < 2; c++) {
        Arena *a = arena_new();
        TB t;
        Diag dg;
        tb_init(&t, a, "hand", 2);
        tb_field_faces(&t, "u", faces[c], 2);
        tb_assign(&t, "u", tb_bin(&t, OP_ADD, tb_read(&t, "u", -1, -1, 0), tb_read(&t, "u", 1, 1, 0)));
        IrProgram *p = lower(&t, &dg);
        StrBuf spec = {0};
        ir_bc_spec(&spec, &p->fields[0], 2);
        CHECK(strcmp(spec.data, specs[c]) == 0);
        sb_free(&spec);
        InterpGrid *g = interp_grid_new(p, (int[]){3, 3, 1});
        for (int j = -1; j < 4; j++)
            for (int i = -1; i < 4; i++) {
                int in = i >= 0 && i < 3 && j >= 0 && j < 3;
                g->buf[0][0][interp_index(g, i, j, 0)] = in ? 10 * j + i : 100 + 10 * (j + 1) + (i + 1);
            }
        interp_fill_halos(g);
        const double(*want)[5] = c ? channel : inflow;
        for (int j = -1; j < 4; j++)
            for (int i = -1; i < 4; i++) {
                double got = g->buf[0][0][interp_index(g, i, j, 0)];
                if (got != want[j + 1][i + 1])
                    fprintf(stderr, "%s: (%d, %d) is %g, not %g\n", specs[c], i, j, got, want[j + 1][i + 1]);
                CHECK(got == want[j + 1][i + 1]);
            }
        interp_grid_free(g);
        arena_free(a);
    }
}

#undef F
#undef C

/* ---- two stages: face fluxes (temps) then their divergence ---- */

static void flux_case(BoundaryKind temp_bc)
{
    Arena *a = arena_new();
    TB t;
    Diag dg;
    tb_init(&t, a, "flux", 2);
    tb_param(&t, "dt", 0.2);
    tb_field(&t, "u", ROLE_STATE, 0, BC_CLAMP, 0);
    tb_field(&t, "k", ROLE_COEF, 0, BC_CLAMP, 0);
    tb_field(&t, "fx", ROLE_TEMP, 0, temp_bc, 0);
    tb_field(&t, "fy", ROLE_TEMP, 0, temp_bc, 0);
    tb_assign(&t, "fx", tb_bin(&t, OP_MUL,
        tb_bin(&t, OP_MUL, tb_num(&t, 0.5), tb_bin(&t, OP_ADD, tb_name(&t, "k"), tb_read(&t, "k", 1, 0, 0))),
        tb_bin(&t, OP_SUB, tb_read(&t, "u", 1, 0, 0), tb_name(&t, "u"))));
    tb_assign(&t, "fy", tb_bin(&t, OP_MUL,
        tb_bin(&t, OP_MUL, tb_num(&t, 0.5), tb_bin(&t, OP_ADD, tb_name(&t, "k"), tb_read(&t, "k", 0, 1, 0))),
        tb_bin(&t, OP_SUB, tb_read(&t, "u", 0, 1, 0), tb_name(&t, "u"))));
    AstExpr *div = tb_bin(&t, OP_SUB, tb_name(&t, "fx"), tb_read(&t, "fx", -1, 0, 0));
    div = tb_bin(&t, OP_ADD, div, tb_name(&t, "fy"));
    div = tb_bin(&t, OP_SUB, div, tb_read(&t, "fy", 0, -1, 0));
    tb_assign(&t, "u", tb_bin(&t, OP_ADD, tb_name(&t, "u"), tb_bin(&t, OP_MUL, tb_name(&t, "dt"), div)));
    IrProgram *p = lower(&t, &dg);
    if (!p)
        return;
    CHECK(p->nstages == 2);
    CHECK(p->fields[2].materialized && p->fields[3].materialized);
    CHECK(p->fields[2].write_stage == 0 && p->fields[0].write_stage == 1);
    int n[3] = {13, 11, 1}, steps = 3;
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, 21);
    Shape s = shape_of(p, n);
    double *u = copy_buf(g->buf[0][0], s.total), *k = copy_buf(g->buf[1][0], s.total);
    double *un = copy_buf(u, s.total);
    double *fx = calloc((size_t)s.total, sizeof(double)), *fy = calloc((size_t)s.total, sizeof(double));
    interp_run(g, steps);
    for (int st = 0; st < steps; st++) {
        RefField U = ref_clamp(&s, u), Kf = ref_clamp(&s, k);
        for (int j = 0; j < s.n[1]; j++)
            for (int i = 0; i < s.n[0]; i++) {
                double c = ref_get(&U, i, j, 0), kc = ref_get(&Kf, i, j, 0);
                fx[at(&s, i, j, 0)] = 0.5 * (kc + ref_get(&Kf, i + 1, j, 0)) * (ref_get(&U, i + 1, j, 0) - c);
                fy[at(&s, i, j, 0)] = 0.5 * (kc + ref_get(&Kf, i, j + 1, 0)) * (ref_get(&U, i, j + 1, 0) - c);
            }
        /* Both fixed and constant(0) temps hold 0 in the halo: fx[-1,j] = 0. */
        for (int j = 0; j < s.n[1]; j++)
            for (int i = 0; i < s.n[0]; i++) {
                double fxm = i > 0 ? fx[at(&s, i - 1, j, 0)] : 0.0;
                double fym = j > 0 ? fy[at(&s, i, j - 1, 0)] : 0.0;
                long x = at(&s, i, j, 0);
                un[x] = u[x] + 0.2 * (fx[x] - fxm + fy[x] - fym);
            }
        double *tmp = u; u = un; un = tmp;
    }
    double worst = 0;
    const double *got = g->buf[0][g->newest[0]];
    for (int j = 0; j < s.n[1]; j++)
        for (int i = 0; i < s.n[0]; i++) {
            double d = fabs(got[at(&s, i, j, 0)] - u[at(&s, i, j, 0)]);
            if (!(d <= worst))
                worst = d;
        }
    CHECK(worst <= 1e-12);
    free(u); free(k); free(un); free(fx); free(fy);
    interp_grid_free(g);
    arena_free(a);
}

/* A temp read only at offset 0 in its own stage stays in registers. */
static void test_register_temp(void)
{
    Arena *a = arena_new();
    TB t;
    Diag dg;
    tb_init(&t, a, "regtemp", 2);
    tb_field(&t, "u", ROLE_STATE, 0, BC_PERIODIC, 0);
    tb_field(&t, "t", ROLE_TEMP, 0, BC_FIXED, 0);
    tb_assign(&t, "t", tb_bin(&t, OP_ADD, tb_read(&t, "u", -1, 0, 0), tb_read(&t, "u", 1, 0, 0)));
    tb_assign(&t, "u", tb_bin(&t, OP_MUL, tb_num(&t, 0.5), tb_name(&t, "t")));
    IrProgram *p = lower(&t, &dg);
    if (!p)
        return;
    CHECK(p->nstages == 1);
    CHECK(!p->fields[1].materialized);
    CHECK(p->an.bytes_per_point == 8);
    int n[3] = {9, 3, 1};
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, 1);
    Shape s = shape_of(p, n);
    double *u = copy_buf(g->buf[0][0], s.total);
    interp_run(g, 1);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 9; i++) {
            double want = 0.5 * (u[at(&s, (i + 8) % 9, j, 0)] + u[at(&s, (i + 1) % 9, j, 0)]);
            CHECK(fabs(g->buf[0][g->newest[0]][at(&s, i, j, 0)] - want) < 1e-14);
        }
    free(u);
    interp_grid_free(g);
    arena_free(a);
}

/* A state field that is not written keeps its values, whatever its other buffers hold. */
static void test_unwritten_state(void)
{
    Arena *a = arena_new();
    TB t;
    Diag dg;
    tb_init(&t, a, "keep", 1);
    tb_field(&t, "u", ROLE_STATE, 0, BC_FIXED, 0);
    tb_field(&t, "d", ROLE_STATE, 3, BC_FIXED, 0);
    AstExpr *old = tb_name(&t, "d");
    old->level = -1;
    tb_assign(&t, "u", tb_bin(&t, OP_ADD, tb_read(&t, "d", 1, 0, 0), old));
    IrProgram *p = lower(&t, &dg);
    if (!p)
        return;
    int n[3] = {7, 1, 1};
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, 4);
    for (int l = 1; l < 3; l++)
        for (long i = 0; i < g->total; i++)
            g->buf[1][l][i] = -1000.0; /* the older buffers differ from step t */
    double *d0 = copy_buf(g->buf[1][0], g->total);
    interp_run(g, 4);
    /* Interior and halo of d are unchanged after the steps. */
    CHECK(max_diff(d0, g->buf[1][g->newest[1]], g->total) == 0.0);
    Shape s = shape_of(p, n);
    for (int i = 0; i < 7; i++)
        CHECK(g->buf[0][g->newest[0]][at(&s, i, 0, 0)] == d0[at(&s, i + 1, 0, 0)] + d0[at(&s, i, 0, 0)]);
    free(d0);
    interp_grid_free(g);
    arena_free(a);
}

/* ir_check_report runs and prints sane figures. */
static void test_check_report(void)
{
    Arena *a = arena_new();
    TB t;
    Diag dg;
    tb_init(&t, a, "rep", 3);
    tb_field(&t, "u", ROLE_STATE, 0, BC_MIRROR, 0);
    int off[7][3] = {{0,0,-1},{0,-1,0},{-1,0,0},{0,0,0},{1,0,0},{0,1,0},{0,0,1}};
    double w[7] = {.1, .1, .1, .4, .1, .1, .1};
    tb_assign(&t, "u", tb_weighted(&t, "u", 7, off, w, 0));
    IrProgram *p = lower(&t, &dg);
    if (!p)
        return;
    FILE *out = tmpfile();
    CHECK(ir_check_report(out, p, 1, 5, NULL, NULL) == 0);
    rewind(out);
    char line[512];
    CHECK(fgets(line, sizeof line, out) && strstr(line, "37 x 29 x 23"));
    CHECK(fgets(line, sizeof line, out) && strstr(line, "checksum"));
    fclose(out);
    arena_free(a);
}

/* ---- the built-ins x, y, z, nx, ny, nz, step (docs/language.md, "Coordinates") ---- */

/* u = u + x + 10 y + 100 z + 1000 step + nx + 7 ny + 13 nz: after s steps, the point's value is
 * its initial value plus s (x + 10 y + 100 z + nx + 7 ny + 13 nz) + 1000 (0 + 1 + .. + s-1); the
 * step counts from 0 again in a second run. A declared name shadows the built-in. */
static void test_builtins(void)
{
    Arena *a = arena_new();
    TB t;
    Diag dg;
    tb_init(&t, a, "coords", 3);
    tb_field(&t, "u", ROLE_STATE, 0, BC_FIXED, 0);
    static const char *const names[] = {"x", "y", "z", "step", "nx", "ny", "nz"};
    static const double w[] = {1, 10, 100, 1000, 1, 7, 13};
    AstExpr *e = tb_name(&t, "u");
    for (int i = 0; i < 7; i++)
        e = tb_bin(&t, OP_ADD, e, tb_bin(&t, OP_MUL, tb_num(&t, w[i]), tb_name(&t, names[i])));
    tb_assign(&t, "u", e);
    IrProgram *p = lower(&t, &dg);
    if (!p)
        return;
    int n[3] = {5, 4, 3};
    InterpGrid *g = interp_grid_new(p, n);
    interp_fill_random(g, 7);
    double *u0 = copy_buf(g->buf[0][0], g->total);
    interp_run(g, 3);
    interp_run(g, 2); /* steps 0 and 1 again */
    Shape s = shape_of(p, n);
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 5; i++) {
                double per = i + 10 * j + 100 * k + 5 + 7 * 4 + 13 * 3;
                double want = u0[at(&s, i, j, k)] + 5 * per + 1000 * (0 + 1 + 2 + 0 + 1);
                CHECK(fabs(g->buf[0][g->newest[0]][at(&s, i, j, k)] - want) < 1e-9);
            }
    free(u0);
    interp_grid_free(g);
    arena_free(a);

    /* param x shadows the coordinate */
    a = arena_new();
    tb_init(&t, a, "shadow", 2);
    tb_param(&t, "x", 0.5);
    tb_field(&t, "u", ROLE_STATE, 0, BC_FIXED, 0);
    tb_assign(&t, "u", tb_bin(&t, OP_ADD, tb_name(&t, "u"), tb_name(&t, "x")));
    p = lower(&t, &dg);
    if (p) {
        int n2[3] = {4, 3, 1};
        g = interp_grid_new(p, n2);
        interp_fill_random(g, 8);
        Shape s2 = shape_of(p, n2);
        double before = g->buf[0][0][at(&s2, 3, 2, 0)];
        interp_run(g, 2);
        CHECK(fabs(g->buf[0][g->newest[0]][at(&s2, 3, 2, 0)] - (before + 1.0)) < 1e-12);
        interp_grid_free(g);
    }
    arena_free(a);
}

/* ---- sizes near INT_MAX: the boundary mapping in 64 bits, absurd grids refused ---- */

static void test_index_range(void)
{
    /* mirror's period 2(n-1) passes INT_MAX once n > 2^30 + 1 */
    const int big = (1 << 30) + 6, top = IR_MAX_EXTENT - 2;
    CHECK(interp_map_coord(BC_MIRROR, -3, big) == 3);
    CHECK(interp_map_coord(BC_MIRROR, big + 2, big) == big - 4);
    CHECK(interp_map_coord(BC_MIRROR, top, top) == top - 2);
    CHECK(interp_map_coord(BC_MIRROR, -1, top) == 1);
    CHECK(interp_map_coord(BC_PERIODIC, top + 1, top) == 1);
    CHECK(interp_map_coord(BC_PERIODIC, -2, top) == top - 2);
    CHECK(interp_map_coord(BC_CLAMP, top + 1, top) == top - 1);
    CHECK(interp_map_coord(BC_MIRROR, 7, 5) == 1 && interp_map_coord(BC_PERIODIC, -6, 5) == 4);

    Arena *a = arena_new();
    TB t;
    Diag dg;
    tb_init(&t, a, "wide", 1);
    tb_field(&t, "u", ROLE_STATE, 0, BC_MIRROR, 0);
    int off[2][3] = {{-1, 0, 0}, {1, 0, 0}};
    double w[2] = {0.5, 0.5};
    tb_assign(&t, "u", tb_weighted(&t, "u", 2, off, w, 1.0));
    IrProgram *p = lower(&t, &dg);
    if (p) {
        /* refused before the padded extent n + 2 is computed in int, nothing allocated */
        const int absurd[3] = {2147483647, 1, 1}, over[3] = {IR_MAX_EXTENT - 1, 1, 1};
        CHECK(interp_grid_new(p, absurd) == NULL);
        CHECK(interp_grid_new(p, over) == NULL);
    }
    arena_free(a);
}

int main(void)
{
    test_benchmarks();
    test_gradient2d();
    test_wave2d();
    test_reaction_diffusion();
    test_boundaries();
    test_faces_by_rule();
    test_faces_by_hand();
    flux_case(BC_CONSTANT);
    flux_case(BC_FIXED);
    test_register_temp();
    test_unwritten_state();
    test_check_report();
    test_index_range();
    test_builtins();
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}
