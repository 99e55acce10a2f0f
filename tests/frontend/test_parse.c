/* Parser tests: every construct of docs/language.md parses into the expected AST, printing
 * round-trips, and hostile input (deep nesting, huge files, junk) fails cleanly and quickly. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ast.h"

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); exit(1); } } while (0)

static char diag_text[1 << 16];

/* Parses text; the diagnostics land in diag_text. Returns the error count. */
static int parse_text(Arena *arena, const char *text, long size, AstFile *out)
{
    Source src = {"test.st", text, size};
    FILE *mem = fmemopen(diag_text, sizeof diag_text - 1, "w");
    CHECK(mem);
    Diag diag;
    diag_init(&diag, &src, mem);
    int errors = parse_source(&src, arena, &diag, out);
    long len = ftell(mem);
    fclose(mem);
    diag_text[len < 0 ? 0 : len] = 0;
    CHECK(errors == diag.errors);
    return errors;
}

static int parse_str(Arena *arena, const char *text, AstFile *out)
{
    return parse_text(arena, text, (long)strlen(text), out);
}

static char *print_to_string(const AstFile *file)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    CHECK(mem);
    ast_print(mem, file);
    fclose(mem);
    return buf;
}

/* parse -> print -> parse -> print gives the same text twice. */
static void check_round_trip(const char *text)
{
    Arena *arena = arena_new();
    AstFile f1, f2;
    CHECK(parse_str(arena, text, &f1) == 0);
    char *p1 = print_to_string(&f1);
    if (parse_str(arena, p1, &f2) != 0) {
        fprintf(stderr, "printed text does not parse:\n%s\n%s", p1, diag_text);
        exit(1);
    }
    char *p2 = print_to_string(&f2);
    if (strcmp(p1, p2) != 0) {
        fprintf(stderr, "round trip differs:\n%s\n---\n%s", p1, p2);
        exit(1);
    }
    CHECK(f1.nstencils == f2.nstencils);
    free(p1);
    free(p2);
    arena_free(arena);
}

static const char *const every_construct =
    "/* block */ # hash comment\n"
    "stencil heat {  // line comment\n"
    "  grid 3d;\n"
    "  type double;\n"
    "  size 256, 128, 64;\n"
    "  steps 100;\n"
    "  param alpha = 0.1;\n"
    "  param beta;\n"
    "  const R = 2;\n"
    "  state u levels 3 boundary constant(-(1.5e-3));\n"
    "  state v boundary periodic;\n"
    "  coef k boundary clamp;\n"
    "  temp t boundary mirror;\n"
    "  temp w boundary fixed;\n"
    "  let lap = u[-1,0,0] + u[1,0,0] - 2 * u;\n"
    "  t = lap * k;\n"
    "  param late = .5;\n"
    "  u = 2 * u - u@-1 + alpha * t[R, 0, -(R - 1)] + u@-2[0,0,1] + 6.0E+2 + 2. + 1e-3;\n"
    "  v = a < b ? (c <= d ? 1 : 0) : c > d || c >= d && !(c == d) && c != d ? -v : +v;\n"
    "  w = select(v > 0, sqrt(v), pow(abs(v), 1.5)) / max(min(v, 1), floor(v));\n"
    "}\n"
    "stencil \"j2d9pt-gol\" { grid 2d; type float; state g; g = g[0,1] - -g; }\n"
    "stencil one { grid 1d; state u; u = f(); }\n";

static void test_every_construct(void)
{
    Arena *arena = arena_new();
    AstFile f;
    int errors = parse_str(arena, every_construct, &f);
    if (errors)
        fprintf(stderr, "%s", diag_text);
    CHECK(errors == 0);
    CHECK(f.nstencils == 3);
    AstStencil *st = &f.stencils[0];
    CHECK(strcmp(st->name, "heat") == 0 && st->loc.line == 2 && st->loc.col == 9);
    CHECK(st->dims == 3 && st->has_type && st->type == ELEM_DOUBLE);
    CHECK(st->nsize == 3 && st->size[0] == 256 && st->size[1] == 128 && st->size[2] == 64);
    CHECK(st->steps == 100);
    CHECK(st->ndecls == 9 && st->nstmts == 5);
    CHECK(st->decls[0].kind == DECL_PARAM && st->decls[0].value && st->decls[0].value->num == 0.1);
    CHECK(st->decls[1].kind == DECL_PARAM && !st->decls[1].value);
    CHECK(st->decls[2].kind == DECL_CONST && st->decls[2].value->num_is_int);
    AstDecl *u = &st->decls[3];
    CHECK(u->kind == DECL_FIELD && u->role == ROLE_STATE && u->levels == 3 && u->has_bc && u->bc_axes == 1);
    CHECK(u->bc[0][0].kind == BC_CONSTANT && u->bc[0][1].kind == BC_CONSTANT && !u->bc_split[0]);
    AstExpr *bv = u->bc[0][0].value;
    CHECK(bv && bv->kind == AST_UNARY && bv->op == OP_NEG);
    CHECK(u->loc.line == 10 && u->loc.col == 9 && u->loc.len == 1);
    CHECK(st->decls[4].bc[0][0].kind == BC_PERIODIC && st->decls[4].levels == 0);
    CHECK(st->decls[5].role == ROLE_COEF && st->decls[5].bc[0][0].kind == BC_CLAMP);
    CHECK(st->decls[6].role == ROLE_TEMP && st->decls[6].bc[0][1].kind == BC_MIRROR);
    CHECK(st->decls[7].has_bc && st->decls[7].bc[0][0].kind == BC_FIXED);
    CHECK(st->decls[8].kind == DECL_PARAM && strcmp(st->decls[8].name, "late") == 0);
    /* declare-before-use bookkeeping: let and t come after 8 decls, u after 9 */
    CHECK(st->stmt_after_decls[0] == 8 && st->stmt_after_decls[1] == 8 && st->stmt_after_decls[2] == 9);
    CHECK(st->stmts[0].kind == STMT_LET && strcmp(st->stmts[0].name, "lap") == 0);
    CHECK(st->stmts[1].kind == STMT_ASSIGN && st->stmts[1].loc.line == 16 && st->stmts[1].loc.col == 3);

    /* lap = u[-1,0,0] + u[1,0,0] - 2 * u: left-associative */
    AstExpr *lap = st->stmts[0].value;
    CHECK(lap->kind == AST_BINARY && lap->op == OP_SUB);
    CHECK(lap->a->kind == AST_BINARY && lap->a->op == OP_ADD);
    AstExpr *rd = lap->a->a;
    CHECK(rd->kind == AST_READ && rd->nargs == 3 && rd->level == 0 && strcmp(rd->name, "u") == 0);
    CHECK(rd->args[0]->kind == AST_UNARY && rd->args[0]->op == OP_NEG && rd->args[0]->a->num == 1);
    CHECK(lap->b->kind == AST_BINARY && lap->b->op == OP_MUL && lap->b->b->kind == AST_NAME);

    /* u@-1 is a name at level -1; u@-2[...] a read at level -2 */
    AstExpr *e = st->stmts[2].value;
    while (e->kind == AST_BINARY && e->op != OP_SUB)
        e = e->a;
    CHECK(e->op == OP_SUB && e->b->kind == AST_NAME && e->b->level == -1);
    int found_level2 = 0, found_reals = 0;
    for (AstExpr *x = st->stmts[2].value; x->kind == AST_BINARY; x = x->a) {
        if (x->b->kind == AST_READ && x->b->level == -2)
            found_level2 = 1;
        if (x->b->kind == AST_NUM && !x->b->num_is_int)
            found_reals++;
    }
    CHECK(found_level2 && found_reals == 3);

    /* conditional: a < b ? (...) : (||-expression ? -v : +v) */
    AstExpr *c = st->stmts[3].value;
    CHECK(c->kind == AST_COND && c->a->op == OP_LT && c->b->kind == AST_COND && c->c->kind == AST_COND);
    CHECK(c->c->a->op == OP_OR && c->c->a->b->op == OP_AND);
    CHECK(c->c->b->kind == AST_UNARY && c->c->b->op == OP_NEG && c->c->c->op == OP_PLUS);

    AstExpr *sel = st->stmts[4].value;
    CHECK(sel->kind == AST_BINARY && sel->op == OP_DIV);
    CHECK(sel->a->kind == AST_CALL && strcmp(sel->a->name, "select") == 0 && sel->a->nargs == 3);
    CHECK(sel->b->kind == AST_CALL && sel->b->nargs == 2 && sel->b->args[0]->kind == AST_CALL);

    CHECK(strcmp(f.stencils[1].name, "j2d9pt-gol") == 0 && f.stencils[1].type == ELEM_FLOAT);
    CHECK(f.stencils[2].stmts[0].value->kind == AST_CALL && f.stencils[2].stmts[0].value->nargs == 0);
    CHECK(f.stencils[2].dims == 1 && !f.stencils[2].has_type && f.stencils[2].nsize == 0);
    arena_free(arena);
    check_round_trip(every_construct);
}

/* A boundary per axis and per face: `low | high` per axis, x first. */
static void test_boundary_per_face(void)
{
    Arena *arena = arena_new();
    AstFile f;
    const char *text = "stencil c { grid 3d;\n"
                       "  state u boundary periodic, constant(1) | clamp, mirror;\n"
                       "  u = u; }\n";
    CHECK(parse_str(arena, text, &f) == 0);
    const AstDecl *u = &f.stencils[0].decls[0];
    CHECK(u->has_bc && u->bc_axes == 3);
    CHECK(u->bc[0][0].kind == BC_PERIODIC && u->bc[0][1].kind == BC_PERIODIC && !u->bc_split[0]);
    CHECK(u->bc[1][0].kind == BC_CONSTANT && u->bc[1][0].value && u->bc[1][0].value->num == 1);
    CHECK(u->bc[1][1].kind == BC_CLAMP && u->bc_split[1]);
    CHECK(u->bc[1][1].loc.line == 2 && u->bc[1][1].loc.col == 44 && u->bc[1][1].loc.len == 5);
    CHECK(u->bc[2][0].kind == BC_MIRROR && u->bc[2][1].kind == BC_MIRROR);
    /* '|' outside a boundary is still the unknown character that suggests '||' */
    CHECK(parse_str(arena, "stencil c { grid 1d; state u boundary clamp | mirror; u = u | u; }", &f) == 1);
    CHECK(strstr(diag_text, "did you mean '||'?") && strstr(diag_text, "[STC-001]"));
    /* a third face, and more axes than 3 (counted; lowering says the grid has fewer) */
    CHECK(parse_str(arena, "stencil c { grid 1d; state u boundary clamp | mirror | fixed; u = u; }", &f) == 1);
    CHECK(strstr(diag_text, "a third condition has no face"));
    CHECK(parse_str(arena, "stencil c { grid 3d; state u boundary clamp, clamp, clamp, mirror; u = u; }", &f) == 0);
    CHECK(f.stencils[0].decls[0].bc_axes == 4 && f.stencils[0].decls[0].bc[2][0].kind == BC_CLAMP);
    arena_free(arena);
}

static void test_round_trips(void)
{
    static const char *const texts[] = {
        "",
        "stencil a { grid 1d; state u; u = (a - (b - c)) / (d / e) * -(f + g) - - - h; }",
        "stencil a { grid 2d; state u; u = (a ? b : c) ? (d ? e : f) : g ? h : i; }",
        "stencil a { grid 2d; state u; u = 1e300 * 1e-300 + 0.30000000000000004 + 123456789.125 + 5e-324; }",
        "stencil a { grid 2d; state u; u = !!a + !(a < b) + (a < b) < c + (a == (b == c)); }",
        "stencil a { grid 3d; state u; u = x + -1 * -(2) + u[-(1), +2, R * 2]; }",
        "stencil \"with space\" { grid 1d; } stencil \"grid\" { grid 1d; } stencil _x9 { grid 1d; }",
        "stencil a { grid 2d; state u levels 3; reduce r = max(abs(u@-1[1, 0] - u)); u = u; reduce s = sum(u); }",
        "stencil a { grid 3d; state u boundary periodic, constant(-1) | clamp, mirror; coef k boundary fixed | "
        "constant(2 * 3), periodic; u = u; }",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        check_round_trip(texts[i]);
}

static void test_empty_and_comments(void)
{
    Arena *arena = arena_new();
    AstFile f;
    CHECK(parse_str(arena, "", &f) == 0 && f.nstencils == 0);
    CHECK(parse_str(arena, "  // nothing\n/* still nothing */\n# no\n", &f) == 0 && f.nstencils == 0);
    CHECK(parse_str(arena, "/* unterminated", &f) == 1 && strstr(diag_text, "[STC-003]"));
    CHECK(parse_str(arena, "stencil s { grid 1d; state u; u = u; } junk", &f) == 1 && f.nstencils == 1);
    arena_free(arena);
}

/* The error code of each diagnostic line, in order, e.g. "004 004 109". */
static void codes_of(char *dst, size_t n)
{
    dst[0] = 0;
    for (const char *p = diag_text; (p = strstr(p, "[STC-")); p += 5) {
        size_t len = strlen(dst);
        snprintf(dst + len, n - len, "%s%.3s", len ? " " : "", p + 5);
    }
}

static void expect_codes(const char *text, const char *codes)
{
    Arena *arena = arena_new();
    AstFile f;
    parse_str(arena, text, &f);
    char got[512];
    codes_of(got, sizeof got);
    if (strcmp(got, codes) != 0) {
        fprintf(stderr, "for %s\nexpected codes '%s', got '%s':\n%s", text, codes, got, diag_text);
        exit(1);
    }
    arena_free(arena);
}

static void test_error_codes(void)
{
    expect_codes("stencil s { grid 2d; grid 2d; }", "103");
    expect_codes("stencil s { type float; type double; size 1; size 2; steps 1; steps 2; }", "103 103 103");
    expect_codes("stencil s {} stencil s {}", "109");
    expect_codes("stencil s { grid 0d; }", "004");
    expect_codes("stencil s { size 1, 2, 3, 4; }", "104");
    expect_codes("stencil s { u = 99999999999; }", "006");
    expect_codes("stencil s { u = 2147483647; }", "");
    expect_codes("stencil s { u = 1..2; }", "002");
    expect_codes("stencil s { u = u ~ 1; }", "001");
    expect_codes("stencil s { u = u + ; v = ; w = w; }", "004 004");
    expect_codes("stencil s { u = u }", "004");
    expect_codes("stencil s { state u boundary perodic; }", "004");
    expect_codes("stencil s { state u boundary constnat(1); }", "004");
    expect_codes("stencil s { temp t levels 2; }", "106");
    expect_codes("stencil s { state u levels 1; }", "105");
    expect_codes("stencil s { u = \"x; }", "003");
    expect_codes("stencil \"\" { }", "004");
    expect_codes("stencil s { u = u[1,2; v = v; }", "004");
    expect_codes("stencil s { u = f(1,,2); }", "004");
    expect_codes("stencil s { u = \xc3\xa9; }", "001");
    /* a NUL inside the text (parse_source's caller may not have checked) is a bad character */
    Arena *arena = arena_new();
    AstFile f;
    CHECK(parse_text(arena, "stencil s { \0 }", 15, &f) == 1 && strstr(diag_text, "0x00"));
    arena_free(arena);
}

static char *repeat(const char *head, const char *unit, long times, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * (size_t)times + tl + 1);
    CHECK(s);
    char *p = s;
    memcpy(p, head, hl), p += hl;
    for (long i = 0; i < times; i++)
        memcpy(p, unit, ul), p += ul;
    memcpy(p, tail, tl + 1);
    return s;
}

static void test_nesting_limits(void)
{
    Arena *arena = arena_new();
    AstFile f;
    char *ok = repeat("stencil s { grid 1d; state u; u = ", "(", 256, "u");
    char *ok2 = repeat(ok, ")", 256, "; }");
    CHECK(parse_str(arena, ok2, &f) == 0);
    free(ok);
    free(ok2);
    static const char *const deep[] = {"(", "-", "!", "+", "f(", "u[", "a ? b : ", "a ? (", "- ("};
    for (size_t i = 0; i < sizeof deep / sizeof *deep; i++) {
        char *s = repeat("stencil s { grid 1d; state u; u = ", deep[i], 100000, "u; }");
        CHECK(parse_str(arena, s, &f) >= 1);
        CHECK(strstr(diag_text, "[STC-005]"));
        free(s);
    }
    /* brackets and unary operators together count: 150 x "-(" is 300 levels */
    char *mixed = repeat("stencil s { grid 1d; state u; u = ", "-(", 150, "u");
    char *mixed2 = repeat(mixed, ")", 150, "; }");
    CHECK(parse_str(arena, mixed2, &f) == 1 && strstr(diag_text, "[STC-005]"));
    free(mixed);
    free(mixed2);
    /* a sum of 729 terms (box3d4r) is fine; 20000 terms exceed the tree depth limit */
    char *sum = repeat("stencil s { grid 1d; state u; u = u", " + u[1]", 728, "; }");
    CHECK(parse_str(arena, sum, &f) == 0);
    free(sum);
    sum = repeat("stencil s { grid 1d; state u; u = u", " * u", 20000, "; }");
    CHECK(parse_str(arena, sum, &f) == 1 && strstr(diag_text, "[STC-005]"));
    free(sum);
    arena_free(arena);
}

static void test_big_file(void)
{
    const char *stmt = "  u = u + 0.25 * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1] - 4 * u); // comment\n";
    long n = 10L * 1024 * 1024 / (long)strlen(stmt);
    char *text = repeat("stencil big { grid 2d; state u;\n", stmt, n, "}\n");
    Arena *arena = arena_new();
    AstFile f;
    clock_t t0 = clock();
    CHECK(parse_str(arena, text, &f) == 0);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(f.stencils[0].nstmts == n);
    fprintf(stderr, "parsed %ld bytes (%ld statements) in %.2f s\n", (long)strlen(text), n, secs);
    /* Not a speed test (machines and sanitizers vary): a guard against something quadratic,
     * which would take minutes here, not seconds. */
    CHECK(secs < 60.0);
    free(text);
    arena_free(arena);
}

static void test_source_read(void)
{
    Arena *arena = arena_new();
    Source src = {0};
    Diag diag;
    char path[] = "/tmp/stc_test_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs("stencil s { grid 1d; }\n", fp);
    fclose(fp);
    FILE *devnull = fopen("/dev/null", "w");
    diag_init(&diag, &src, devnull);
    CHECK(source_read(path, arena, &diag, &src) == 0);
    CHECK(src.size == 23 && src.text[src.size] == 0 && strcmp(src.name, path) == 0);
    CHECK(diag.errors == 0);
    CHECK(source_read("/tmp", arena, &diag, &src) != 0 && diag.errors == 1);
    CHECK(source_read("/nonexistent/x.st", arena, &diag, &src) != 0 && diag.errors == 2);
    remove(path);
    fclose(devnull);
    arena_free(arena);
}

int main(void)
{
    test_every_construct();
    test_round_trips();
    test_boundary_per_face();
    test_empty_and_comments();
    test_error_codes();
    test_nesting_limits();
    test_big_file();
    test_source_read();
    puts("frontend parse tests passed");
    return 0;
}
