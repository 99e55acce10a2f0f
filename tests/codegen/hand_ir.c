#include "hand_ir.h"
#include "codegen.h"

#include <assert.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

IrProgram *hb_program(Arena *a, const char *name, int dims, ElemType type)
{
    IrProgram *p = arena_alloc(a, sizeof *p);
    p->name = arena_strdup(a, name);
    p->dims = dims;
    p->type = type;
    for (int d = 0; d < 3; d++)
        p->size[d] = d < dims ? 64 : 1;
    p->steps = 10;
    return p;
}

int hb_field(Arena *a, IrProgram *p, const char *name, FieldRole role, int levels, BoundaryKind bc,
             double bc_value)
{
    IrField *f = ARENA_PUSH(a, p->fields, p->nfields, p->cap_fields);
    memset(f, 0, sizeof *f);
    f->name = arena_strdup(a, name);
    f->role = role;
    f->levels = role == ROLE_STATE ? levels : 1;
    ir_bc_set(f, bc, bc_value);
    f->write_stage = -1;
    f->materialized = role != ROLE_TEMP;
    return p->nfields - 1;
}

int hb_param(Arena *a, IrProgram *p, const char *name, double def)
{
    IrParam *q = ARENA_PUSH(a, p->params, p->nparams, p->cap_params);
    memset(q, 0, sizeof *q);
    q->name = arena_strdup(a, name);
    q->def = def;
    q->has_default = 1;
    q->used = 1;
    return p->nparams - 1;
}

int hb_stage(Arena *a, IrProgram *p)
{
    IrStage *s = ARENA_PUSH(a, p->stages, p->nstages, p->cap_stages);
    memset(s, 0, sizeof *s);
    return p->nstages - 1;
}

static int push(Arena *a, IrProgram *p, int s, IrNode n)
{
    IrStage *st = &p->stages[s];
    *ARENA_PUSH(a, st->nodes, st->nnodes, st->cap_nodes) = n;
    return st->nnodes - 1;
}

static IrNode blank(IrOp op)
{
    IrNode n;
    memset(&n, 0, sizeof n);
    n.op = op;
    n.a = n.b = n.c = -1;
    return n;
}

int hb_const(Arena *a, IrProgram *p, int s, double v)
{
    IrNode n = blank(N_CONST);
    n.value = v;
    return push(a, p, s, n);
}

int hb_par(Arena *a, IrProgram *p, int s, int param)
{
    IrNode n = blank(N_PARAM);
    n.param = param;
    return push(a, p, s, n);
}

int hb_read(Arena *a, IrProgram *p, int s, int field, int level, int dx, int dy, int dz)
{
    IrNode n = blank(N_READ);
    n.field = field;
    n.level = level;
    n.off[0] = dx;
    n.off[1] = dy;
    n.off[2] = dz;
    return push(a, p, s, n);
}

int hb_op(Arena *a, IrProgram *p, int s, IrOp op, int x, int y, int z)
{
    IrNode n = blank(op);
    n.a = x;
    n.b = y;
    n.c = z;
    return push(a, p, s, n);
}

void hb_write(Arena *a, IrProgram *p, int s, int field, int node)
{
    IrStage *st = &p->stages[s];
    IrWrite *w = ARENA_PUSH(a, st->writes, st->nwrites, st->cap_writes);
    memset(w, 0, sizeof *w);
    w->field = field;
    w->node = node;
    p->fields[field].written = 1;
    p->fields[field].write_stage = s;
}

void hb_finish(IrProgram *p)
{
    for (int d = 0; d < 3; d++)
        p->halo[d] = 0;
    for (int s = 0; s < p->nstages; s++) {
        IrStage *st = &p->stages[s];
        for (int i = 0; i < st->nnodes; i++) {
            IrNode *n = &st->nodes[i];
            n->uses = 0;
            if (n->op != N_READ)
                continue;
            p->fields[n->field].read = 1;
            if (p->fields[n->field].role == ROLE_TEMP)
                p->fields[n->field].materialized = 1;
            for (int d = 0; d < 3; d++) {
                int m = abs(n->off[d]);
                if (m > p->halo[d])
                    p->halo[d] = m;
                if (n->off[d] < p->fields[n->field].lo[d])
                    p->fields[n->field].lo[d] = n->off[d];
                if (n->off[d] > p->fields[n->field].hi[d])
                    p->fields[n->field].hi[d] = n->off[d];
            }
        }
        for (int i = 0; i < st->nnodes; i++) {
            IrNode *n = &st->nodes[i];
            if (n->a >= 0) st->nodes[n->a].uses++;
            if (n->b >= 0) st->nodes[n->b].uses++;
            if (n->c >= 0) st->nodes[n->c].uses++;
        }
        for (int w = 0; w < st->nwrites; w++)
            st->nodes[st->writes[w].node].uses++;
    }
    p->an.symmetric = ir_step_symmetry(p); /* as ir_analyse */
}

/* Sum of reads of field f at the given offsets times weights. */
static int weighted(Arena *a, IrProgram *p, int s, int f, int n, const int (*offs)[3],
                    const double *wts)
{
    int acc = -1;
    for (int i = 0; i < n; i++) {
        int r = hb_read(a, p, s, f, 0, offs[i][0], offs[i][1], offs[i][2]);
        int t = hb_op(a, p, s, N_MUL, hb_const(a, p, s, wts[i]), r, -1);
        acc = acc < 0 ? t : hb_op(a, p, s, N_ADD, acc, t, -1);
    }
    return acc;
}

static IrProgram *star2d(Arena *a)
{
    IrProgram *p = hb_program(a, "star2d1r", 2, ELEM_FLOAT);
    int u = hb_field(a, p, "u", ROLE_STATE, 2, BC_FIXED, 0);
    int s = hb_stage(a, p);
    static const int offs[5][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
    static const double w[5] = {0.2, 0.1, 0.30000000000000004, 1e-7, 3};
    hb_write(a, p, s, u, weighted(a, p, s, u, 5, offs, w));
    return p;
}

static IrProgram *box3d(Arena *a)
{
    IrProgram *p = hb_program(a, "box3d-1r", 3, ELEM_DOUBLE);
    int u = hb_field(a, p, "u", ROLE_STATE, 2, BC_PERIODIC, 0);
    int s = hb_stage(a, p);
    int offs[27][3];
    double w[27];
    int n = 0;
    for (int k = -1; k <= 1; k++)
        for (int j = -1; j <= 1; j++)
            for (int i = -1; i <= 1; i++) {
                offs[n][0] = i, offs[n][1] = j, offs[n][2] = k;
                w[n] = 1.0 / (n + 2);
                n++;
            }
    hb_write(a, p, s, u, weighted(a, p, s, u, 27, (const int (*)[3])offs, w));
    return p;
}

/* 2D wave with 3 levels and a coef field: u = 2u - u@-1 + dt*c*(lap u). */
static IrProgram *wave(Arena *a)
{
    IrProgram *p = hb_program(a, "wave", 2, ELEM_FLOAT);
    int u = hb_field(a, p, "u", ROLE_STATE, 3, BC_CLAMP, 0);
    int c = hb_field(a, p, "c", ROLE_COEF, 1, BC_FIXED, 0);
    int dt = hb_param(a, p, "dt", 0.25);
    int s = hb_stage(a, p);
    int u0 = hb_read(a, p, s, u, 0, 0, 0, 0);
    int lap = hb_op(a, p, s, N_SUB,
                    hb_op(a, p, s, N_ADD,
                          hb_op(a, p, s, N_ADD, hb_read(a, p, s, u, 0, -2, 0, 0), hb_read(a, p, s, u, 0, 2, 0, 0), -1),
                          hb_op(a, p, s, N_ADD, hb_read(a, p, s, u, 0, 0, -1, 0), hb_read(a, p, s, u, 0, 0, 1, 0), -1), -1),
                    hb_op(a, p, s, N_MUL, hb_const(a, p, s, 4), u0, -1), -1);
    int two_u = hb_op(a, p, s, N_MUL, hb_const(a, p, s, 2), u0, -1);
    int prev = hb_read(a, p, s, u, -1, 0, 0, 0);
    int coef = hb_op(a, p, s, N_MUL, hb_par(a, p, s, dt), hb_read(a, p, s, c, 0, 0, 0, 0), -1);
    int v = hb_op(a, p, s, N_ADD, hb_op(a, p, s, N_SUB, two_u, prev, -1),
                  hb_op(a, p, s, N_MUL, coef, lap, -1), -1);
    hb_write(a, p, s, u, v);
    return p;
}

/* Two coupled fields with different boundaries, an unwritten state field, every op kind. */
static IrProgram *twofield(Arena *a)
{
    IrProgram *p = hb_program(a, "two-field", 3, ELEM_FLOAT);
    int u = hb_field(a, p, "u", ROLE_STATE, 2, BC_MIRROR, 0);
    int v = hb_field(a, p, "new", ROLE_STATE, 2, BC_CONSTANT, -1.5);
    int w = hb_field(a, p, "w", ROLE_STATE, 2, BC_FIXED, 0);
    int k = hb_param(a, p, "k", 0.5);
    int s = hb_stage(a, p);
    int uc = hb_read(a, p, s, u, 0, 0, 0, 0);
    int vc = hb_read(a, p, s, v, 0, 0, 0, 0);
    int uz = hb_read(a, p, s, u, 0, 0, 0, 1);
    int vx = hb_read(a, p, s, v, 0, -1, 0, 0);
    int wc = hb_read(a, p, s, w, 0, 0, 0, 0);
    int kk = hb_par(a, p, s, k);
    /* every op kind, kept numerically tame so that float and double agree */
    int e1 = hb_op(a, p, s, N_ADD, hb_op(a, p, s, N_MUL, kk, hb_op(a, p, s, N_SQRT, hb_op(a, p, s, N_ABS, vx, -1, -1), -1, -1), -1),
                   hb_op(a, p, s, N_POW, hb_op(a, p, s, N_ABS, uz, -1, -1), hb_const(a, p, s, 0.5), -1), -1);
    int sel = hb_op(a, p, s, N_SELECT, hb_op(a, p, s, N_LT, uc, vc, -1), hb_op(a, p, s, N_MIN, uc, vc, -1),
                    hb_op(a, p, s, N_MAX, uc, wc, -1));
    int logic = hb_op(a, p, s, N_AND, hb_op(a, p, s, N_NOT, uc, -1, -1), hb_op(a, p, s, N_OR, vc, wc, -1), -1);
    int trig = hb_op(a, p, s, N_ADD, hb_op(a, p, s, N_SIN, uc, -1, -1),
                     hb_op(a, p, s, N_COS, hb_op(a, p, s, N_EXP, hb_op(a, p, s, N_NEG, vc, -1, -1), -1, -1), -1, -1), -1);
    int rest = hb_op(a, p, s, N_DIV, hb_op(a, p, s, N_LOG, hb_op(a, p, s, N_ADD, hb_const(a, p, s, 2), hb_op(a, p, s, N_FLOOR, kk, -1, -1), -1), -1, -1),
                     hb_op(a, p, s, N_RSQRT, hb_const(a, p, s, 1e300), -1, -1), -1); /* log 2 / 0 = inf */
    int tame = hb_op(a, p, s, N_MIN, rest, hb_const(a, p, s, 3), -1);
    int cmp = hb_op(a, p, s, N_ADD, hb_op(a, p, s, N_GE, uc, vc, -1),
                    hb_op(a, p, s, N_ADD, hb_op(a, p, s, N_EQ, uc, vc, -1),
                          hb_op(a, p, s, N_ADD, hb_op(a, p, s, N_NE, uc, vc, -1),
                                hb_op(a, p, s, N_ADD, hb_op(a, p, s, N_LE, uc, vc, -1), hb_op(a, p, s, N_GT, uc, vc, -1), -1), -1), -1), -1);
    int quarter = hb_const(a, p, s, 0.25);
    /* the further functions: smooth ones of the fields, the steps (round, ceil, trunc, sign,
     * fmod) of the parameter only, where float and double cannot fall on different sides */
    int smooth = hb_op(a, p, s, N_ADD, hb_op(a, p, s, N_TANH, uc, -1, -1), hb_op(a, p, s, N_ATAN2, vc, hb_const(a, p, s, 3), -1), -1);
    smooth = hb_op(a, p, s, N_ADD, smooth, hb_op(a, p, s, N_HYPOT, uc, vc, -1), -1);
    smooth = hb_op(a, p, s, N_ADD, smooth, hb_op(a, p, s, N_CBRT, hb_op(a, p, s, N_ADD, hb_const(a, p, s, 1), hb_op(a, p, s, N_ABS, wc, -1, -1), -1), -1, -1), -1);
    smooth = hb_op(a, p, s, N_ADD, smooth, hb_op(a, p, s, N_EXP2, hb_op(a, p, s, N_NEG, hb_op(a, p, s, N_ABS, uc, -1, -1), -1, -1), -1, -1), -1);
    smooth = hb_op(a, p, s, N_ADD, smooth, hb_op(a, p, s, N_LOG2, hb_op(a, p, s, N_ADD, hb_const(a, p, s, 2), hb_op(a, p, s, N_ABS, vc, -1, -1), -1), -1, -1), -1);
    smooth = hb_op(a, p, s, N_ADD, smooth, hb_op(a, p, s, N_CLAMP, uc, hb_const(a, p, s, -0.5), hb_const(a, p, s, 0.5)), -1);
    int steps = hb_op(a, p, s, N_ADD, hb_op(a, p, s, N_ROUND, kk, -1, -1), hb_op(a, p, s, N_CEIL, kk, -1, -1), -1);
    steps = hb_op(a, p, s, N_ADD, steps, hb_op(a, p, s, N_TRUNC, kk, -1, -1), -1);
    steps = hb_op(a, p, s, N_ADD, steps, hb_op(a, p, s, N_SIGN, hb_op(a, p, s, N_NEG, kk, -1, -1), -1, -1), -1);
    steps = hb_op(a, p, s, N_ADD, steps, hb_op(a, p, s, N_FMOD, kk, hb_const(a, p, s, 0.3), -1), -1);
    int further = hb_op(a, p, s, N_MUL, hb_const(a, p, s, 0.05), hb_op(a, p, s, N_ADD, smooth, steps, -1), -1);
    hb_write(a, p, s, u, hb_op(a, p, s, N_MUL, quarter, hb_op(a, p, s, N_ADD, e1, hb_op(a, p, s, N_ADD, sel, cmp, -1), -1), -1));
    hb_write(a, p, s, v, hb_op(a, p, s, N_MUL, quarter, hb_op(a, p, s, N_ADD, logic, hb_op(a, p, s, N_ADD, trig, hb_op(a, p, s, N_ADD, tame, further, -1), -1), -1), -1));
    return p;
}

/* Two stages: a temp (periodic) computed everywhere, then read at offsets. */
static IrProgram *twostage(Arena *a)
{
    IrProgram *p = hb_program(a, "twostage", 2, ELEM_DOUBLE);
    int u = hb_field(a, p, "u", ROLE_STATE, 2, BC_FIXED, 0);
    int t = hb_field(a, p, "flux", ROLE_TEMP, 1, BC_PERIODIC, 0);
    int r = hb_field(a, p, "reg", ROLE_TEMP, 1, BC_FIXED, 0); /* register-only temp */
    int s0 = hb_stage(a, p);
    int d = hb_op(a, p, s0, N_SUB, hb_read(a, p, s0, u, 0, 1, 0, 0), hb_read(a, p, s0, u, 0, 0, 0, 0), -1);
    hb_write(a, p, s0, r, d);
    hb_write(a, p, s0, t, hb_op(a, p, s0, N_MUL, d, d, -1));
    int s1 = hb_stage(a, p);
    int div = hb_op(a, p, s1, N_SUB, hb_read(a, p, s1, t, 0, 0, 0, 0), hb_read(a, p, s1, t, 0, -1, -1, 0), -1);
    hb_write(a, p, s1, u, hb_op(a, p, s1, N_ADD, hb_read(a, p, s1, u, 0, 0, 0, 0), div, -1));
    hb_finish(p);
    p->fields[r].materialized = 0;
    return p;
}

static IrProgram *heat1d(Arena *a)
{
    IrProgram *p = hb_program(a, "1heat", 1, ELEM_FLOAT);
    int u = hb_field(a, p, "u", ROLE_STATE, 2, BC_PERIODIC, 0);
    int al = hb_param(a, p, "alpha", 0.1);
    int s = hb_stage(a, p);
    int c = hb_read(a, p, s, u, 0, 0, 0, 0);
    int lap = hb_op(a, p, s, N_SUB, hb_op(a, p, s, N_ADD, hb_read(a, p, s, u, 0, -1, 0, 0), hb_read(a, p, s, u, 0, 1, 0, 0), -1),
                    hb_op(a, p, s, N_MUL, hb_const(a, p, s, 2), c, -1), -1);
    hb_write(a, p, s, u, hb_op(a, p, s, N_ADD, c, hb_op(a, p, s, N_MUL, hb_par(a, p, s, al), lap, -1), -1));
    return p;
}

IrProgram *hb_example(Arena *a, int which)
{
    IrProgram *p = NULL;
    switch (which) {
    case 0: p = star2d(a); break;
    case 1: p = box3d(a); break;
    case 2: p = wave(a); break;
    case 3: p = twofield(a); break;
    case 4: return twostage(a);
    case 5: p = heat1d(a); break;
    default: return NULL;
    }
    hb_finish(p);
    return p;
}

IrProgram *hb_with_boundary(IrProgram *p, BoundaryKind bc)
{
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].role == ROLE_STATE)
            ir_bc_set(&p->fields[f], bc, 0);
    return p;
}

Plan *hb_plan(Arena *a, const IrProgram *p, const char *cfg)
{
    Config c;
    char why[256];
    assert(config_parse(cfg, p->dims, &c, why, sizeof why) == 0);
    Plan *plan = plan_build(p, &c, a, why, sizeof why);
    if (!plan)
        fprintf(stderr, "%s with '%s': %s\n", p->name, cfg, why);
    assert(plan);
    return plan;
}

void hb_has(const char *text, const char *needle)
{
    if (!strstr(text, needle)) {
        fprintf(stderr, "missing '%s' in:\n%s\n", needle, text);
        assert(0);
    }
}

void hb_lacks(const char *text, const char *needle)
{
    if (strstr(text, needle)) {
        fprintf(stderr, "unexpected '%s' in:\n%s\n", needle, text);
        assert(0);
    }
}

int hb_count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
        n++;
    return n;
}

static int is_var(const KExpr *e, const char *name) { return e->kind == KE_VAR && strcmp(e->name, name) == 0; }

int hb_count_stores(const KBlock *b, const char *array, const char *index)
{
    int n = 0;
    for (int i = 0; i < b->n; i++) {
        const KStmt *s = b->items[i];
        n += s->kind == KS_ASSIGN && s->lhs->kind == KE_INDEX && is_var(s->lhs->a, array) &&
             (!index || is_var(s->lhs->b, index));
        n += hb_count_stores(&s->body, array, index) + hb_count_stores(&s->els, array, index);
    }
    return n;
}

const KStmt *hb_find_loop(const KBlock *b, const char *var)
{
    for (int i = 0; i < b->n; i++)
        if (b->items[i]->kind == KS_FOR && strcmp(b->items[i]->name, var) == 0)
            return b->items[i];
    return NULL;
}

const char *hb_find_nvcc(void)
{
    if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
        return "/usr/local/cuda/bin/nvcc";
    if (system("command -v nvcc >/dev/null 2>&1") == 0)
        return "nvcc";
    return NULL;
}

const char *hb_nvcc_scratch(char *dir, size_t len, const char *tag)
{
    const char *nvcc = hb_find_nvcc();
    if (!nvcc) {
        puts("no nvcc: skipped");
        return NULL;
    }
    snprintf(dir, len, "/tmp/%s_XXXXXX", tag);
    if (!mkdtemp(dir)) {
        perror(dir);
        exit(1);
    }
    return nvcc;
}

int hb_scratch_done(const char *dir, int failed)
{
    if (failed) {
        fprintf(stderr, "files kept in %s\n", dir);
        return 1;
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return 0;
}

static void write_file(const char *dir, const char *name, const char *ext, const StrBuf *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
    FILE *f = fopen(path, "w");
    assert(f);
    fputs(text->data, f);
    fclose(f);
}

int hb_nvcc_compile(const char *nvcc, const char *const names[], const StrBuf *const cu[], const StrBuf *const h[],
                    int n)
{
    char dir[] = "/tmp/stc_nvcc_XXXXXX", cmd[1024];
    assert(mkdtemp(dir));
    StrBuf all = {0};
    for (int i = 0; i < n; i++) {
        write_file(dir, names[i], ".cu", cu[i]);
        write_file(dir, names[i], ".h", h[i]);
        sb_printf(&all, "#include \"%s.cu\"\n", names[i]);
    }
    write_file(dir, "all", ".cu", &all);
    sb_free(&all);
    snprintf(cmd, sizeof cmd, "%s -c -arch=sm_80 -Werror all-warnings -o %s/all.o %s/all.cu", nvcc, dir, dir);
    int status = system(cmd);
    if (status != 0)
        fprintf(stderr, "nvcc failed: %s\n", cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return status;
}

void hb_emit_files(const Plan *plan, const char *base)
{
    char path[1100];
    StrBuf cu = {0}, h = {0};
    assert(cg_emit(plan, base, &cu, &h) == 0);
    snprintf(path, sizeof path, "%s.cu", base);
    assert(sb_write_file_atomic(&cu, path) == 0);
    snprintf(path, sizeof path, "%s.h", base);
    assert(sb_write_file_atomic(&h, path) == 0);
    sb_free(&cu);
    sb_free(&h);
}
