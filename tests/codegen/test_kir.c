/* The kernel representation: the CUDA printer's spelling of expression trees (precedence,
 * constants, statements), and the structure of built kernels (their loops, guards, barriers and
 * accesses) checked on the plan's module instead of the text. */
#include <assert.h>
#include <string.h>

#include "hand_ir.h"
#include "kir.h"

static Kb kb;

static const char *print(const KExpr *e)
{
    static StrBuf out;
    out.len = 0;
    if (out.data)
        out.data[0] = 0;
    kir_cuda_expr(&out, e);
    return out.data;
}

static void expect(const KExpr *e, const char *text)
{
    const char *got = print(e);
    if (strcmp(got, text) != 0) {
        fprintf(stderr, "printed '%s', expected '%s'\n", got, text);
        assert(0);
    }
}

static void test_precedence(void)
{
    Kb *b = &kb;
    KExpr *x = k_var(b, "x"), *y = k_var(b, "y"), *z = k_var(b, "z");
    expect(k_sub(b, x, k_sub(b, y, z)), "x - (y - z)");      /* right operand at equal precedence */
    expect(k_sub(b, k_sub(b, x, y), z), "x - y - z");
    expect(k_mul(b, k_add(b, x, y), z), "(x + y) * z");
    expect(k_add(b, x, k_mul(b, y, z)), "x + y * z");
    expect(k_un(b, KO_NEG, k_un(b, KO_NEG, x)), "-(-x)");     /* never the decrement -- */
    expect(k_un(b, KO_NEG, k_int(b, -3)), "-(-3)");
    expect(k_cast(b, "long long", k_plus(b, x, 1)), "(long long)(x + 1)");
    expect(k_mul(b, k_cast(b, "long long", x), y), "(long long)x * y");
    expect(k_plus(b, x, -2), "x - 2");
    expect(k_plus(b, x, 0), "x");
    expect(k_plus_scaled(b, x, -3, y), "x - 3 * y");
    expect(k_select(b, k_bin(b, KO_LT, x, y), x, k_select(b, z, y, x)), "x < y ? x : z ? y : x");
    expect(k_select(b, k_select(b, z, y, x), x, y), "(z ? y : x) ? x : y");
    expect(k_and(b, k_or(b, x, y), z), "(x || y) && z");
    expect(k_and(b, NULL, z), "z");
    expect(k_bin(b, KO_EQ, k_bin(b, KO_MOD, k_bin(b, KO_BOR, x, y), k_uint(b, 16)), k_int(b, 0)), "(x | y) % 16u == 0");
    expect(k_mul(b, k_bin(b, KO_BAND, k_sub(b, x, k_int(b, 1)), k_int(b, 1)), y), "((x - 1) & 1) * y"); /* -Wparentheses */
    expect(k_bin(b, KO_BOR, k_bin(b, KO_BOR, x, y), z), "x | y | z");
    expect(k_un(b, KO_DEREF, k_cast(b, "float2 *", k_un(b, KO_ADDR, k_index(b, x, y)))), "*(float2 *)&x[y]");
    expect(k_member(b, k_index(b, x, y), "x"), "x[y].x");
    expect(k_call(b, "fminf", 2, x, k_add(b, y, z)), "fminf(x, y + z)");
    expect(k_thread(b, 1), "threadIdx.y");
    expect(k_cast(b, "int", k_add(b, k_mul(b, k_block(b, 0), k_uint(b, 128)), k_thread(b, 0))),
           "(int)(blockIdx.x * 128u + threadIdx.x)");
}

static void test_constants(void)
{
    Kb fb = {kb.arena, ELEM_FLOAT}, db = {kb.arena, ELEM_DOUBLE};
    expect(k_real(&fb, 0.1), "0.100000001f");
    expect(k_real(&db, 0.1), "0.10000000000000001");
    expect(k_real(&fb, 3), "3.0f");
    expect(k_real(&fb, -1.5), "(-1.5f)");
    expect(k_real(&fb, 1e300), "__int_as_float(0x7f800000)"); /* beyond float: infinity */
    expect(k_mul(&fb, k_real(&fb, -2), k_var(&fb, "x")), "(-2.0f) * x");
}

static void test_statements(void)
{
    Kb *b = &kb;
    KKernel *k = k_kernel(b, "probe", 0, 128);
    k_param(b, k, "float", "out", 1, 1);
    k_param(b, k, "float", "in", 1, 0);
    k_param(b, k, "int", "n0", 0, 0);
    KExpr *i = k_let(b, &k->body, "int", "i", k_thread(b, 0));
    KStmt *guard = k_if(b, k_bin(b, KO_GE, i, k_var(b, "n0")));
    k_push(b, &guard->body, k_return(b));
    k_push(b, &k->body, guard);
    KStmt *loop = k_for(b, "m", k_int(b, 0), k_int(b, 4), NULL, 2);
    k_push(b, &loop->body, k_assign(b, k_index(b, k_var(b, "out"), i), k_index(b, k_var(b, "in"), k_var(b, "m"))));
    k_push(b, &k->body, loop);
    k_push(b, &k->body, k_barrier(b));
    StrBuf out = {0};
    kir_cuda_kernel(&out, k);
    hb_has(out.data, "extern \"C\" __global__ void __launch_bounds__(128)\nprobe(\n    float *__restrict__ out,\n"
                     "    const float *__restrict__ in,\n    const int n0)\n{\n");
    hb_has(out.data, "    if (i >= n0)\n        return;\n");
    hb_has(out.data, "    #pragma unroll 2\n    for (int m = 0; m < 4; m++)\n        out[i] = in[m];\n");
    hb_has(out.data, "    __syncthreads();\n}\n");
    sb_free(&out);
    assert(kir_count_stmts(&k->body, KS_ASSIGN) == 1);
    assert(kir_find_stmt(&k->body, KS_FOR, 0) == loop);
    assert(kir_count_index(&k->body, "in") == 1);
}

/* Built kernels, by structure: the plain kernel, the tile family's staging and paths. */
static void test_structure(Arena *a)
{
    IrProgram *star = hb_example(a, 0); /* 2D float, radius 1, fixed: kernels star2d1r_* */
    Plan *plain = hb_plan(a, star, "tb=32x4");
    const KKernel *k = k_module_kernel(&plain->module, "star2d1r_step");
    assert(k && k->threads == 128 && k->maxreg <= 1);
    assert(kir_count_stmts(&k->body, KS_RETURN) == 1);     /* the bounds guard */
    assert(kir_count_index(&k->body, "f_u_lp1") == 1);      /* one store */
    assert(kir_count_index(&k->body, "f_u_l0") == 5);       /* five loads */

    Plan *staged = hb_plan(a, star, "tb=32x8,smem=on,bm=1x4,uf=1x4");
    k = k_module_kernel(&staged->module, "star2d1r_step");
    assert(k && kir_count_stmts(&k->body, KS_BARRIER) == 1); /* after staging, before the points */
    const KStmt *split = NULL;                              /* fast path, else the slow path */
    for (int i = 0; i < k->body.n; i++)
        if (k->body.items[i]->kind == KS_IF && k->body.items[i]->els.n > 0)
            split = k->body.items[i];
    assert(split);
    assert(kir_count_index(&split->body, "f_u_l0") == 0);    /* the fast path reads shared memory */
    assert(kir_count_index(&split->body, "sm0") > 0);
    assert(kir_count_index(&split->body, "f_u_lp1") == 4);  /* its four points, unrolled */
    const KStmt *slow_loop = kir_find_stmt(&split->els, KS_FOR, 0);
    assert(slow_loop && slow_loop->unroll == 1);

    Plan *cmem = hb_plan(a, star, "tb=32x4,cmem=on");
    int constants = 0;
    for (int i = 0; i < cmem->module.n; i++)
        if (cmem->module.items[i].global && (cmem->module.items[i].global->quals & KQ_CONSTANT))
            constants = cmem->module.items[i].global->ninits;
    assert(constants > 0);
}

/* kir_offset_blocks: the copy numbers its blocks along the chosen axes from last parameters,
 * the other axes and the original untouched, the same statements otherwise. */
static void test_offset_blocks(Arena *a)
{
    IrProgram *star = hb_example(a, 0);
    Plan *fused = hb_plan(a, star, "tb=64x1,stream=y,sb=16,tblock=4");
    const KKernel *k = k_module_kernel(&fused->module, "star2d1r_step");
    assert(k);
    StrBuf before = {0}, after = {0}, copy = {0}, both = {0};
    kir_cuda_kernel(&before, k);
    KKernel *off = kir_offset_blocks(&kb, k, "star2d1r_step_off_", 1u << 1, "boff");
    KKernel *off2 = kir_offset_blocks(&kb, k, "star2d1r_step_off2_", 3u, "boff");
    kir_cuda_kernel(&after, k);
    kir_cuda_kernel(&copy, off);
    kir_cuda_kernel(&both, off2);
    assert(strcmp(before.data, after.data) == 0);           /* the original is not changed */
    assert(off->nparams == k->nparams + 1 && strcmp(off->params[k->nparams].name, "boffy_") == 0);
    assert(!off->params[k->nparams].pointer && off->maxreg == k->maxreg && off->threads == k->threads);
    assert(strstr(before.data, "blockIdx.y") && !strstr(before.data, "boff"));
    assert(strstr(copy.data, "(blockIdx.y + boffy_)"));    /* every y block index moved */
    const char *y = copy.data;
    while ((y = strstr(y, "blockIdx.y")) != NULL) {
        assert(strncmp(y - 1, "(blockIdx.y + boffy_)", 21) == 0);
        y++;
    }
    assert(strstr(copy.data, "blockIdx.x") && !strstr(copy.data, "blockIdx.x + boff"));
    /* two axes: a parameter each, x's first */
    assert(off2->nparams == k->nparams + 2 && strcmp(off2->params[k->nparams].name, "boffx_") == 0 &&
           strcmp(off2->params[k->nparams + 1].name, "boffy_") == 0);
    assert(strstr(both.data, "(blockIdx.x + boffx_)") && strstr(both.data, "(blockIdx.y + boffy_)"));
    assert(kir_count_stmts(&off->body, KS_BARRIER) == kir_count_stmts(&k->body, KS_BARRIER));
    assert(kir_count_stmts(&off->body, KS_FOR) == kir_count_stmts(&k->body, KS_FOR));
    assert(kir_count_index(&off->body, "f_u_lp1") == kir_count_index(&k->body, "f_u_lp1"));
    sb_free(&before);
    sb_free(&after);
    sb_free(&copy);
    sb_free(&both);
    /* faces first (2D columns under clamp): a permutation of the whole grid, so a copy numbers
     * every axis plainly, the one not offset too */
    Plan *clamp = hb_plan(a, hb_with_boundary(hb_example(a, 0), BC_CLAMP), "tb=32x1,stream=y,sb=16,tblock=2,bm=2x1");
    const KKernel *kc = k_module_kernel(&clamp->module, "star2d1r_step");
    StrBuf ff = {0}, ffcopy = {0};
    kir_cuda_kernel(&ff, kc);
    kir_cuda_kernel(&ffcopy, kir_offset_blocks(&kb, kc, "star2d1r_step_off_", 1u << 1, "boff"));
    assert(strstr(ff.data, "(blockIdx.x + blockIdx.y * gridDim.x) < 2u * gridDim.y"));
    assert(!strstr(ffcopy.data, "gridDim") && strstr(ffcopy.data, "(int)((blockIdx.y + boffy_) * 16u)"));
    assert(strstr(ffcopy.data, "(int)(blockIdx.x * 60u)"));
    sb_free(&ff);
    sb_free(&ffcopy);
}

int main(void)
{
    Arena *a = arena_new();
    kb = (Kb){a, ELEM_FLOAT};
    test_precedence();
    test_constants();
    test_statements();
    test_structure(a);
    test_offset_blocks(a);
    arena_free(a);
    puts("kir: ok");
    return 0;
}
