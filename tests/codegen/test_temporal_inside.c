/* The 2D streaming temporal kernel under clamp and mirror: a block whose tile and chunk touch no
 * face of the grid (`inside`) runs the fixed kernel's plane loop, the same text, so the same
 * instructions, shared-memory accesses and branches; the other blocks keep the mapped loops.
 * Fixed and periodic have no such branch (their fast loop already is the fixed one), nor has 3D
 * (one plane loop). Clamp and mirror are compiled with nvcc, warnings as errors. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "hand_ir.h"

static const char *const config = "tb=64x1,stream=y,sb=32,tblock=3";

static Plan *star(Arena *a, BoundaryKind bc, const char *cfg)
{
    IrProgram *p = hb_example(a, 0);
    p->name = ir_bc_name(bc); /* kernels named apart, to compile two in one unit */
    for (int f = 0; f < p->nfields; f++)
        if (p->fields[f].role == ROLE_STATE)
            ir_bc_set(&p->fields[f], bc, 0);
    return hb_plan(a, p, cfg);
}

/* The plane loop that the block `if (cond) {` of text opens, as lines without their indent. */
static char *loop_after(const char *text, const char *cond)
{
    const char *at = strstr(text, cond);
    assert(at);
    at = strstr(at, "for (int it");
    assert(at);
    const char *end = strchr(at, '{');
    for (int depth = 0; *end; end++) {
        depth += *end == '{';
        if (*end == '}' && --depth == 0)
            break;
    }
    char *out = malloc((size_t)(end - at) + 2), *o = out;
    for (const char *c = at; c <= end; c++) {
        if (c > at && c[-1] == '\n')
            while (*c == ' ')
                c++;
        *o++ = *c;
    }
    *o = 0;
    return out;
}

static void test_inside(Arena *a)
{
    Plan *fixed = star(a, BC_FIXED, config);
    char *held = loop_after(fixed->source, "if (all_in) {");
    assert(strstr(held, "tbs0_0[lcol + 127]") && !strstr(held, "rc_") && !strstr(held, "min(max("));
    static const BoundaryKind mapped[] = {BC_CLAMP, BC_MIRROR};
    for (int i = 0; i < 2; i++) {
        Plan *p = star(a, mapped[i], config);
        hb_has(p->source, "const bool inside = all_in && zstop + 3 < n1 && i - tx >= 0 && i - tx + 64 <= n0;");
        char *loop = loop_after(p->source, "if (inside) {");
        assert(strcmp(loop, held) == 0);
        free(loop);
        loop = loop_after(p->source, "if (all_in) {"); /* the blocks at a face keep the mapped loops */
        assert(strstr(loop, "rc_m1_0") && strcmp(loop, held) != 0);
        free(loop);
        assert(hb_count(p->source, "for (int it = 0;") == 3);
    }
    free(held);
    assert(!strstr(fixed->source, "bool inside"));
    assert(!strstr(star(a, BC_PERIODIC, config)->source, "bool inside"));
    /* 3D keeps one plane loop */
    IrProgram *box = hb_example(a, 1);
    for (int f = 0; f < box->nfields; f++)
        if (box->fields[f].role == ROLE_STATE)
            ir_bc_set(&box->fields[f], BC_CLAMP, 0);
    Plan *p3 = hb_plan(a, box, "tb=16x8x1,stream=z,sb=16,tblock=2");
    assert(!strstr(p3->source, "bool inside") && hb_count(p3->source, "for (int it = 0;") == 1);
}

static void test_nvcc(Arena *a)
{
    const char *nvcc = hb_find_nvcc();
    if (!nvcc) {
        puts("no nvcc: the kernels not compiled");
        return;
    }
    static const char *const names[] = {"clamp", "mirror"};
    StrBuf cu[2] = {{0}}, h[2] = {{0}};
    const StrBuf *cus[2] = {&cu[0], &cu[1]}, *hs[2] = {&h[0], &h[1]};
    assert(cg_emit(star(a, BC_CLAMP, config), "clamp", &cu[0], &h[0]) == 0);
    assert(cg_emit(star(a, BC_MIRROR, config), "mirror", &cu[1], &h[1]) == 0);
    assert(hb_nvcc_compile(nvcc, names, cus, hs, 2) == 0);
    for (int i = 0; i < 2; i++) {
        sb_free(&cu[i]);
        sb_free(&h[i]);
    }
}

int main(void)
{
    Arena *a = arena_new();
    test_inside(a);
    test_nvcc(a);
    arena_free(a);
    puts("codegen temporal inside tests passed");
    return 0;
}
