/* Lowering from source: the semantic errors by code and line, warnings, stages, common
 * subexpressions and folding, the dump, and the analysis figures of the 21 benchmarks. */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static char diag_text[65536];

/* Parses and lowers the only stencil of text; the diagnostics land in diag_text. */
static IrProgram *compile(Arena *a, const char *text, int *errors)
{
    static Source src;
    src.name = "t.st";
    src.text = text;
    src.size = (long)strlen(text);
    FILE *out = tmpfile();
    Diag dg;
    diag_init(&dg, &src, out);
    AstFile file;
    memset(&file, 0, sizeof file);
    IrProgram *p = NULL;
    if (parse_source(&src, a, &dg, &file) == 0 && file.nstencils == 1)
        p = ir_lower(&file.stencils[0], a, &dg);
    *errors = dg.errors;
    rewind(out);
    size_t n = fread(diag_text, 1, sizeof diag_text - 1, out);
    diag_text[n] = 0;
    fclose(out);
    return p;
}

/* Whether diag_text has a diagnostic with this code on this line. */
static int has_diag(int code, int line)
{
    char where[32], tag[16];
    snprintf(where, sizeof where, "t.st:%d:", line);
    snprintf(tag, sizeof tag, "[STC-%03d]", code);
    for (const char *l = diag_text; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        if (strncmp(l, where, strlen(where)) == 0) {
            char buf[1024];
            size_t m = len < sizeof buf - 1 ? len : sizeof buf - 1;
            memcpy(buf, l, m);
            buf[m] = 0;
            if (strstr(buf, tag))
                return 1;
        }
        l = e ? e + 1 : l + len;
    }
    return 0;
}

static void expect_error(const char *text, int code, int line)
{
    Arena *a = arena_new();
    int errors;
    IrProgram *p = compile(a, text, &errors);
    int ok = p == NULL && errors > 0 && has_diag(code, line);
    if (!ok)
        fprintf(stderr, "expected STC-%03d on line %d for:\n%s\ngot:\n%s\n", code, line, text, diag_text);
    CHECK(ok);
    arena_free(a);
}

static void expect_warning(const char *text, int code, int line)
{
    Arena *a = arena_new();
    int errors;
    IrProgram *p = compile(a, text, &errors);
    int ok = p != NULL && errors == 0 && has_diag(code, line) && strstr(diag_text, "warning");
    if (!ok)
        fprintf(stderr, "expected warning STC-%03d on line %d for:\n%s\ngot:\n%s\n", code, line, text, diag_text);
    CHECK(ok);
    arena_free(a);
}

#define HEAD "stencil s {\n grid 2d;\n"

static void test_errors(void)
{
    expect_error(HEAD " state u;\n u = v;\n}\n", 100, 4);
    expect_error(HEAD " state u;\n u = u;\n w = u;\n}\n", 100, 5);
    expect_error(HEAD " state u;\n param u;\n u = u;\n}\n", 101, 4);
    expect_error(HEAD " state u;\n let a = u;\n let a = u;\n u = a;\n}\n", 101, 5);
    expect_error("stencil s {\n state u;\n u = u;\n}\n", 102, 1);
    expect_error(HEAD " size 10;\n state u;\n u = u;\n}\n", 104, 3);
    expect_error(HEAD " param a = 1;\n const c = a + 1;\n state u;\n u = u * c;\n}\n", 107, 4);
    expect_error(HEAD " state v;\n state u boundary constant(v);\n u = v;\n}\n", 207, 4);
    expect_error(HEAD " state u;\n coef k;\n k = u;\n u = k;\n}\n", 200, 5);
    expect_error(HEAD " state u;\n param a;\n a = u;\n u = u;\n}\n", 200, 5);
    expect_error(HEAD " state u;\n const c = 2;\n c = u;\n u = u;\n}\n", 200, 5);
    expect_error(HEAD " state u;\n u = u[0.5, 0];\n}\n", 201, 4);
    expect_error(HEAD " state u;\n param a;\n u = u[a, 0];\n}\n", 201, 5);
    expect_error(HEAD " state u;\n u = u@-1;\n}\n", 202, 4);
    expect_error(HEAD " state u;\n coef c;\n u = c@-1[1,0];\n}\n", 202, 5);
    expect_error(HEAD " state u;\n u = u[1];\n}\n", 203, 4);
    expect_error(HEAD " state u;\n u = u[1,0,0];\n}\n", 203, 4);
    expect_error(HEAD " size 2, 9;\n state u;\n u = u[3,0];\n}\n", 204, 3);
    /* A padded axis beyond 32-bit coordinates (n + 2*halo > IR_MAX_EXTENT) is refused at the size. */
    expect_error("stencil s {\n grid 1d;\n size 2147483647;\n state u;\n u = u[1];\n}\n", 104, 3);
    CHECK(strstr(diag_text, "grid size 2147483647 on axis x is too large") != NULL);
    expect_error(HEAD " size 48000, 2146435070;\n state u;\n u = u[0,1];\n}\n", 104, 3);
    CHECK(strstr(diag_text, "on axis y is too large") && strstr(diag_text, "2146435069 interior"));
    expect_error(HEAD " state u;\n u = u;\n\n u = 2*u;\n}\n", 205, 6);
    expect_error(HEAD " state u;\n param a;\n u = a[1,0];\n}\n", 206, 5);
    expect_error(HEAD " state u;\n const c = u;\n u = u;\n}\n", 207, 4);
    expect_error(HEAD " state u;\n u = foo(u);\n}\n", 208, 4);
    expect_error(HEAD " state u;\n u = sqrt(u, u);\n}\n", 208, 4);
    expect_error(HEAD " state u;\n u = min(u);\n}\n", 208, 4);
    expect_error(HEAD " state u;\n temp t;\n u = t;\n t = u;\n}\n", 209, 5);
    expect_error(HEAD " state u;\n temp t;\n t = t[1,0];\n u = t;\n}\n", 209, 5);
    expect_error(HEAD " state u;\n let a = u;\n}\n", 210, 1);

    /* Every error of a run is reported, each on its own line. */
    {
        Arena *a = arena_new();
        int errors;
        const char *text = HEAD " state u;\n coef k;\n k = u;\n u = q + u[1];\n"
                                " temp t;\n u = t;\n}\n";
        IrProgram *p = compile(a, text, &errors);
        CHECK(p == NULL);
        CHECK(has_diag(200, 5));
        CHECK(has_diag(100, 6));
        CHECK(has_diag(203, 6));
        CHECK(has_diag(205, 8));
        CHECK(has_diag(209, 8));
        CHECK(errors == 5);
        CHECK(strstr(diag_text, "^") != NULL); /* the caret under the place */
        arena_free(a);
    }
}

static void test_warnings(void)
{
    expect_warning(HEAD " param a;\n state u;\n u = u;\n}\n", 300, 3);
    expect_warning(HEAD " state u;\n coef k;\n u = u;\n}\n", 301, 4);
    expect_warning(HEAD " state u;\n temp t;\n t = u;\n u = u[1,0];\n}\n", 301, 4);
    expect_warning(HEAD " state u;\n let l = u;\n u = u;\n}\n", 302, 4);
    expect_warning(HEAD " state u;\n const c = 1;\n u = u;\n}\n", 303, 4);
}

static IrProgram *ok_program(Arena *a, const char *text)
{
    int errors;
    IrProgram *p = compile(a, text, &errors);
    if (!p)
        fprintf(stderr, "unexpected errors:\n%s\n", diag_text);
    CHECK(p != NULL && errors == 0);
    return p;
}

static int count_op(const IrProgram *p, IrOp op)
{
    int n = 0;
    for (int s = 0; s < p->nstages; s++)
        for (int i = 0; i < p->stages[s].nnodes; i++)
            n += p->stages[s].nodes[i].op == op;
    return n;
}

static void test_cse_and_folding(void)
{
    Arena *a = arena_new();
    IrProgram *p = ok_program(a, HEAD " state u;\n u = u[1,0]*2 + u[1,0]*2;\n}\n");
    if (p) {
        CHECK(p->nstages == 1);
        CHECK(p->stages[0].nnodes == 4); /* read, const 2, mul, add */
        CHECK(count_op(p, N_MUL) == 1 && count_op(p, N_READ) == 1);
        const IrNode *add = &p->stages[0].nodes[3];
        CHECK(add->op == N_ADD && add->a == add->b);
        CHECK(p->stages[0].nodes[add->a].uses == 2);
        CHECK(p->an.flops_written == 3 && p->an.flops == 2);
    }
    p = ok_program(a, HEAD " state u;\n u = 2*3 + u;\n}\n");
    if (p) {
        CHECK(p->stages[0].nnodes == 3);
        CHECK(count_op(p, N_CONST) == 1 && p->stages[0].nodes[count_op(p, N_CONST) ? 0 : 0].op != N_MUL);
        int found6 = 0;
        for (int i = 0; i < p->stages[0].nnodes; i++)
            found6 |= p->stages[0].nodes[i].op == N_CONST && p->stages[0].nodes[i].value == 6;
        CHECK(found6);
        CHECK(p->an.flops_written == 1 && p->an.flops == 1);
    }
    /* Identities and a chain of consts. */
    p = ok_program(a, HEAD " const R = 2;\n const h = R * 0.5;\n state u;\n"
                        " u = (u[-(R-1), 0] * h + 0) / 1 - -(-u) + select(1, u, u[1,0]);\n}\n");
    if (p) {
        CHECK(count_op(p, N_MUL) == 0 && count_op(p, N_DIV) == 0 && count_op(p, N_NEG) == 0);
        CHECK(count_op(p, N_SELECT) == 0 && count_op(p, N_READ) == 2);
        CHECK(p->halo[0] == 1 && p->halo[1] == 0);
    }
    /* The further functions lower to their operations; constant arguments fold (ir/ops.def). */
    p = ok_program(a, HEAD " state u;\n const s = sign(-2) + round(2.5) + ceil(0.1) + trunc(-1.9) + fmod(7, 4);\n"
                        " u = tanh(u) + atan2(u, 2) + hypot(u, 1) + cbrt(u) + exp2(u) + log2(2 + u)\n"
                        "     + clamp(u[1,0], 0, 1) + s;\n}\n");
    if (p) {
        static const IrOp ops[] = {N_TANH, N_ATAN2, N_HYPOT, N_CBRT, N_EXP2, N_LOG2, N_CLAMP};
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            CHECK(count_op(p, ops[i]) == 1);
        int found5 = 0; /* -1 + 3 + 1 - 1 + 3 */
        for (int i = 0; i < p->stages[0].nnodes; i++)
            found5 |= p->stages[0].nodes[i].op == N_CONST && p->stages[0].nodes[i].value == 5;
        CHECK(found5);
    }
    expect_error(HEAD " state u;\n u = clamp(u, 1);\n}\n", STC_E_BAD_CALL, 4);
    /* Commutative operands are shared whichever order they are written in. */
    p = ok_program(a, HEAD " state u;\n state v;\n u = u*v + v*u;\n v = min(u, v) - min(v, u);\n}\n");
    if (p) {
        CHECK(count_op(p, N_MUL) == 1 && count_op(p, N_MIN) == 1);
    }
    /* let uses are expanded in the written count, not in the built nodes. */
    p = ok_program(a, HEAD " state u;\n let d = u - u[-1,0];\n u = d*d;\n}\n");
    if (p)
        CHECK(p->an.flops_written == 3 && p->an.flops == 2);
    arena_free(a);
}

static void test_stages_and_dump(void)
{
    Arena *a = arena_new();
    IrProgram *p = ok_program(a,
        HEAD " size 31, 17;\n param dt = 0.2;\n state u boundary clamp;\n coef k boundary clamp;\n"
        " temp fx boundary constant(0);\n temp g;\n"
        " fx = 0.5 * (k + k[1,0]) * (u[1,0] - u);\n"
        " g = fx * 2;\n"
        " u = u + dt * (fx - fx[-1,0]) + g;\n}\n");
    if (p) {
        CHECK(p->nstages == 2);
        CHECK(p->fields[2].write_stage == 0 && p->fields[2].materialized);
        CHECK(p->fields[3].write_stage == 0 && p->fields[3].materialized);
        CHECK(p->fields[0].write_stage == 1);
        CHECK(p->fields[2].lo[0] == -1 && p->fields[2].hi[0] == 0);
        CHECK(p->fields[1].lo[0] == 0 && p->fields[1].hi[0] == 1);
        CHECK(p->stages[0].radius[0] == 1 && p->stages[1].radius[0] == 1);
        CHECK(p->an.bytes_per_point == 4 * (4 + 3));
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        ir_dump(out, p);
        fclose(out);
        CHECK(strstr(buf, "stage 1") && strstr(buf, "u <- %"));
        CHECK(strstr(buf, "read fx[-1,0]"));
        CHECK(strstr(buf, "= mul %"));
        CHECK(strstr(buf, "fx: temp, bc constant(0)"));
        CHECK(strstr(buf, "flops per point: 9 as written"));
        free(buf);
        ir_set_type(p, ELEM_DOUBLE);
        CHECK(p->type == ELEM_DOUBLE && p->an.bytes_per_point == 8 * 7);
        long n[3] = {3, 1, 1};
        char why[200];
        CHECK(ir_check_grid(p, n, why, sizeof why) == 0);
        n[0] = 0;
        CHECK(ir_check_grid(p, n, why, sizeof why) != 0 && strstr(why, "radius"));
        /* more than 2^31 elements is fine; an axis's padded extent beyond IR_MAX_EXTENT is not */
        long big[3] = {48000, 48000, 1}, edge[3] = {IR_MAX_EXTENT - 2, 1, 1};
        CHECK(ir_check_grid(p, big, why, sizeof why) == 0);
        CHECK(ir_check_grid(p, edge, why, sizeof why) == 0);
        edge[0]++;
        CHECK(ir_check_grid(p, edge, why, sizeof why) == IR_GRID_TOO_LARGE && strstr(why, "axis x"));
        const int halo[3] = {1, 1, 1};
        const long long cube[3] = {1L << 20, 1L << 20, 1L << 20}; /* 2^60 elements */
        CHECK(ir_check_extent(3, halo, cube, why, sizeof why) == IR_GRID_TOO_LARGE &&
              strstr(why, "2^59"));
    }
    /* A let read at an offset from a temp of the same stage also splits; a let defined in
     * stage 0 and used in stage 1 reads its temp from memory there. */
    p = ok_program(a, HEAD " state u;\n temp t;\n t = u[1,0] * u;\n let l = t + 1;\n"
                      " let m = t[0,1];\n u = l * m;\n}\n");
    if (p) {
        CHECK(p->nstages == 2);
        CHECK(p->fields[1].materialized);
        CHECK(p->stages[1].nwrites == 1 && p->stages[0].nwrites == 1);
    }
    /* Three levels: u@-1 is a read at level -1. */
    p = ok_program(a, HEAD " state u levels 3;\n u = 2*u - u@-1 + u@-1[1,0];\n}\n");
    if (p) {
        int lv = 0;
        for (int i = 0; i < p->stages[0].nnodes; i++)
            lv += p->stages[0].nodes[i].op == N_READ && p->stages[0].nodes[i].level == -1;
        CHECK(lv == 2 && p->an.points == 3);
        CHECK(p->an.bytes_per_point == 4 * 3); /* u, u@-1 read; u written */
    }
    arena_free(a);
}

/* The figures of an5d21.json: radius, distinct points, flops per point as counted in the
 * literature, and the shape. */
static const struct {
    const char *name;
    int radius, points, flops;
    IrShape shape;
} bench[] = {
    {"box2d1r", 1, 9, 17, SHAPE_BOX},     {"box2d2r", 2, 25, 49, SHAPE_BOX},
    {"box2d3r", 3, 49, 97, SHAPE_BOX},    {"box2d4r", 4, 81, 161, SHAPE_BOX},
    {"box3d1r", 1, 27, 53, SHAPE_BOX},    {"box3d2r", 2, 125, 249, SHAPE_BOX},
    {"box3d3r", 3, 343, 685, SHAPE_BOX},  {"box3d4r", 4, 729, 1457, SHAPE_BOX},
    {"gradient2d", 1, 5, 19, SHAPE_STAR}, {"j2d5pt", 1, 5, 10, SHAPE_STAR},
    {"j2d9pt", 2, 9, 18, SHAPE_STAR},     {"j2d9pt-gol", 1, 9, 18, SHAPE_BOX},
    {"j3d27pt", 1, 27, 54, SHAPE_BOX},    {"star2d1r", 1, 5, 9, SHAPE_STAR},
    {"star2d2r", 2, 9, 17, SHAPE_STAR},   {"star2d3r", 3, 13, 25, SHAPE_STAR},
    /* an5d21.json lists [0,-4] twice for star2d4r (17 entries, 16 distinct points). */
    {"star2d4r", 4, 16, 33, SHAPE_STAR},  {"star3d1r", 1, 7, 13, SHAPE_STAR},
    {"star3d2r", 2, 13, 25, SHAPE_STAR},  {"star3d3r", 3, 19, 37, SHAPE_STAR},
    {"star3d4r", 4, 25, 49, SHAPE_STAR},
};

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    size_t got = fread(t, 1, (size_t)n, f);
    t[got] = 0;
    fclose(f);
    return t;
}

static void test_benchmarks(void)
{
    const char *root = getenv("STC_SOURCE_ROOT");
    int found = 0;
    for (size_t i = 0; i < sizeof bench / sizeof bench[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/examples/bench/%s.st", root ? root : ".", bench[i].name);
        char *text = read_text(path);
        if (!text) {
            fprintf(stderr, "missing %s\n", path);
            failures++;
            continue;
        }
        found++;
        Arena *a = arena_new();
        IrProgram *p = ok_program(a, text);
        if (p) {
            const IrAnalysis *an = &p->an;
            int ok = an->radius == bench[i].radius && an->points == bench[i].points &&
                     an->flops_written == bench[i].flops && an->shape == bench[i].shape &&
                     an->flops <= an->flops_written && an->bytes_per_point == 8;
            if (!ok)
                fprintf(stderr, "%s: radius %d points %d flops %d (%d after CSE) shape %s\n",
                        bench[i].name, an->radius, an->points, an->flops_written, an->flops,
                        ir_shape_name(an->shape));
            CHECK(ok);
        }
        arena_free(a);
        free(text);
    }
    CHECK(found == 21);
}

/* Every example in the repository lowers without errors. */
static void test_examples(void)
{
    const char *root = getenv("STC_SOURCE_ROOT");
    const char *names[] = {"heat", "heat1d", "wave2d", "reaction_diffusion", "flux_divergence"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/examples/%s.st", root ? root : ".", names[i]);
        char *text = read_text(path);
        if (!text)
            continue;
        Arena *a = arena_new();
        IrProgram *p = ok_program(a, text);
        if (p && strcmp(names[i], "flux_divergence") == 0)
            CHECK(p->nstages == 2);
        if (p && strcmp(names[i], "heat") == 0)
            CHECK(p->an.flops_written == 9 && p->an.shape == SHAPE_STAR); /* 5 add, sub, 2 mul, add */
        arena_free(a);
        free(text);
    }
}

/* The dependences between writes: a flux through memory, a temp through registers. */
static void test_dependences(void)
{
    Arena *a = arena_new();
    IrProgram *p = ok_program(a, HEAD " state u;\n temp fx;\n temp g;\n"
                                    " fx = u[1,0] - u;\n g = 2 * u;\n u = u + fx - fx[-1,0] + g;\n}\n");
    if (p) {
        int memory = 0, regs = 0;
        for (int i = 0; i < p->an.ndeps; i++) {
            const IrDep *d = &p->an.deps[i];
            const char *from = p->fields[d->from_field].name, *to = p->fields[d->to_field].name;
            CHECK(!strcmp(to, "u"));
            if (!strcmp(from, "fx") && d->through_memory) {
                memory++;
                CHECK(d->from_stage == 0 && d->to_stage == 1);
                CHECK(d->lo[0] == -1 && d->hi[0] == 0 && d->lo[1] == 0 && d->hi[1] == 0);
            }
            if (!strcmp(from, "g"))
                regs += !d->through_memory;
        }
        CHECK(memory == 1);
        CHECK(p->nstages == 2);
        /* g is computed in stage 0 with fx, so stage 1 reads it from memory at offset 0. */
        CHECK(regs == 0);
        int g_memory = 0;
        for (int i = 0; i < p->an.ndeps; i++) {
            const IrDep *d = &p->an.deps[i];
            if (!strcmp(p->fields[d->from_field].name, "g") && d->through_memory)
                g_memory += d->lo[0] == 0 && d->hi[0] == 0;
        }
        CHECK(g_memory == 1);
    }
    IrProgram *q = ok_program(a, HEAD " state u;\n temp t;\n t = u[1,0] + u[-1,0];\n u = t * t;\n}\n");
    if (q) {
        CHECK(q->nstages == 1);
        CHECK(q->an.ndeps == 1 && q->an.deps[0].through_memory == 0);
    }
    arena_free(a);
}

/* Boundaries per axis and per face: every face of every axis, the axes a grid lacks repeating
 * its last, the dump's spelling, and the counts and periodic faces refused (STC-111). */
static void test_boundaries(void)
{
    Arena *a = arena_new();
    int errors;
    IrProgram *p = compile(a, "stencil s {\n grid 3d;\n"
                              " state u boundary periodic, constant(1.5) | clamp, mirror | fixed;\n"
                              " coef k boundary constant(2) | mirror;\n"
                              " u = u[1,1,1] + k[-1,-1,-1];\n}\n", &errors);
    CHECK(p && errors == 0);
    if (p) {
        const IrField *u = &p->fields[0], *k = &p->fields[1];
        CHECK(ir_bc(u, 0, 0).kind == BC_PERIODIC && ir_bc(u, 0, 1).kind == BC_PERIODIC);
        CHECK(ir_bc(u, 1, 0).kind == BC_CONSTANT && ir_bc(u, 1, 0).value == 1.5 && ir_bc(u, 1, 1).kind == BC_CLAMP);
        CHECK(ir_bc(u, 2, 0).kind == BC_MIRROR && ir_bc(u, 2, 1).kind == BC_FIXED);
        for (int ax = 0; ax < 3; ax++) /* one condition: every axis, low | high on each */
            CHECK(ir_bc(k, ax, 0).kind == BC_CONSTANT && ir_bc(k, ax, 0).value == 2 && ir_bc(k, ax, 1).kind == BC_MIRROR);
        StrBuf spec = {0};
        ir_bc_spec(&spec, u, 3);
        CHECK(strcmp(spec.data, "periodic, constant(1.5) | clamp, mirror | fixed") == 0);
        sb_free(&spec);
        ir_bc_spec(&spec, k, 3);
        CHECK(strcmp(spec.data, "constant(2) | mirror, constant(2) | mirror, constant(2) | mirror") == 0);
        sb_free(&spec);
    }
    p = compile(a, HEAD " state u boundary clamp, mirror;\n u = u[1,1];\n}\n", &errors);
    CHECK(p && errors == 0 && ir_bc(&p->fields[0], 2, 0).kind == BC_MIRROR); /* 2D: z repeats y */
    arena_free(a);
    expect_error(HEAD " state u boundary clamp, mirror, fixed;\n u = u;\n}\n", 111, 3);
    expect_error("stencil s {\n grid 1d;\n state u boundary clamp, mirror;\n u = u;\n}\n", 111, 3);
    expect_error(HEAD " state u boundary fixed, clamp | periodic;\n u = u;\n}\n", 111, 3);
    expect_error(HEAD " param p;\n state u boundary clamp, constant(p) | fixed;\n u = u;\n}\n", 107, 4);
}

/* ir_step_symmetric and the analysis's mask: sums and products in any order, per axis, and
 * what it must refuse (an odd difference, unequal weights, a stage that differs). */
static void test_symmetry(void)
{
    static const struct {
        const char *body;
        int mask; /* bit d: symmetric along d */
    } cases[] = {
        {"u = u + 0.1*(u[-1,0] + u[1,0]) + 0.2*(u[0,1] + u[0,-1]);", 3},
        {"u = 0.2*u[0,1] + u[1,0]*0.1 + 0.1*u[-1,0] + (u[0,-1]*0.2 + u);", 3},
        {"u = u + 0.1*u[-1,0] + 0.2*u[1,0] + 0.3*(u[0,1] + u[0,-1]);", 2},
        {"u = u + 0.1*(u[1,0] - u[-1,0]);", 2},
        {"u = u + 0.1*(u[-1,0] - 2*u + u[1,0]) - (0.2*u[0,1] - 0.3*u + 0.2*u[0,-1]);", 3},
        {"u = u - u[-1,0] + u[1,0];", 2},
        {"u = -(u[-1,0] - u[1,0]) + (u[1,0] - u[-1,0]);", 2},
        {"u = u + (u[1,0] - u)*(u[1,0] - u) + (u - u[-1,0])*(u - u[-1,0]);", 3},
        {"u = u + (u[1,0] - u[-1,0])*(u[1,0] - u[-1,0]) - (u[0,1] - u[0,-1])*(u[0,-1] - u[0,1]);", 3},
        {"u = u + (u[1,0] - u[-1,0])*(u[1,0] - u[-1,0])*(u[1,0] - u[-1,0]);", 2},
        {"u = u + (u[1,0] - u[-1,0])*(u[0,1] - u[0,-1]);", 0},
        {"u = sqrt(0.5 + u[1,0] - u[-1,0]);", 2},
        {"let gx = (u[1,-1] + 2*u[1,0] + u[1,1]) - (u[-1,-1] + 2*u[-1,0] + u[-1,1]);"
         " let gy = (u[-1,1] + 2*u[0,1] + u[1,1]) - (u[-1,-1] + 2*u[0,-1] + u[1,-1]);"
         " u = sqrt(gx*gx + gy*gy);", 3},
        {"u = u + p*(u[-1,1] + u[1,1] + u[-1,-1] + u[1,-1]);", 3},
        {"u = u + p*(u[-1,1] + u[1,1]);", 1},
        {"u = sqrt(0.1 + (u - u[-1,0])*(u - u[-1,0]) + (u - u[1,0])*(u - u[1,0]));", 3},
        {"u = min(u[-2,0], u[2,0]) * max(u[0,1], u[0,-1]) + u@-1;", 3},
        {"u = u + 0.1*x*(u[-1,0] + u[1,0]);", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, HEAD " param p = 1;\n state u levels 3 boundary mirror;\n %s\n}\n", cases[i].body);
        Arena *a = arena_new();
        IrProgram *p = ok_program(a, text);
        if (p) {
            int mask = ir_step_symmetric(p, 0) | ir_step_symmetric(p, 1) << 1;
            if (mask != cases[i].mask || p->an.symmetric != mask)
                fprintf(stderr, "symmetry of %s: %d (analysis %d), want %d\n", cases[i].body, mask, p->an.symmetric,
                        cases[i].mask);
            CHECK(mask == cases[i].mask && p->an.symmetric == mask);
            CHECK(!ir_step_symmetric(p, 2) && !ir_step_symmetric(p, -1) && ir_step_symmetry(p) == mask);
        }
        arena_free(a);
    }
    /* a chain of lets: each form holds the one before, so the forms grow quadratically; 100
     * links are compared, 4000 give up within the forms' budget (not symmetric) */
    for (int links = 100; links <= 4000; links += 3900) {
        StrBuf sb = {0};
        sb_printf(&sb, HEAD " state u boundary mirror;\n let a0 = u[1,0] + u[-1,0];\n");
        for (int k = 1; k < links; k++)
            sb_printf(&sb, " let a%d = sqrt(a%d) + u[0,1] + u[0,-1];\n", k, k - 1);
        sb_printf(&sb, " u = 0.001 * a%d;\n}\n", links - 1);
        Arena *a = arena_new();
        IrProgram *p = ok_program(a, sb.data);
        CHECK(p && p->an.symmetric == (links == 100 ? 3 : 0));
        arena_free(a);
        sb_free(&sb);
    }
}

int main(void)
{
    test_symmetry();
    test_boundaries();
    test_dependences();
    test_errors();
    test_warnings();
    test_cse_and_folding();
    test_stages_and_dump();
    test_benchmarks();
    test_examples();
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}
