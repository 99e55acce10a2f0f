/* The built-ins x, y, z, nx, ny, nz and step in every kernel family: each family gives the
 * point's own coordinates (ctx->kcoord), the kernel takes the origin, extent and step arguments
 * it reads (ARG_COORD) and no others, retiming refuses a point that reads them, and the host
 * code passes the number of each launch's first step. */
#include <assert.h>
#include <string.h>

#include "ast.h"
#include "codegen.h"
#include "hand_ir.h"
#include "kir.h"

static const char PROGRAMS[] =
    "stencil c2 {\n"
    "  grid 2d; size 254, 64;\n"
    "  state u;\n"
    "  u = 0.2 * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1]) + 0.2 * u + 0.001 * (x + 2 * y + 3 * step) / (nx + ny);\n"
    "}\n"
    "stencil c3 {\n"
    "  grid 3d; size 64, 64, 64;\n"
    "  state u;\n"
    "  u = 0.1 * (u[-1,0,0] + u[1,0,0] + u[0,-1,0] + u[0,1,0] + u[0,0,-1] + u[0,0,1]) + 0.3 * u + 0.001 * (x + y + z);\n"
    "}\n"
    "stencil wrap {\n"
    "  grid 2d;\n"
    "  state u boundary periodic;\n"
    "  u = 0.25 * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1]) + 0.001 * x;\n"
    "}\n"
    "stencil none {\n"
    "  grid 2d;\n"
    "  state u;\n"
    "  u = 0.25 * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1]);\n"
    "}\n";

static IrProgram *progs[4];

static void load(Arena *a)
{
    Source src = {"coords.st", PROGRAMS, (long)sizeof PROGRAMS - 1};
    Diag diag;
    diag_init(&diag, &src, stderr);
    AstFile file = {0};
    assert(parse_source(&src, a, &diag, &file) == 0 && file.nstencils == 4);
    for (int i = 0; i < 4; i++)
        assert((progs[i] = ir_lower(&file.stencils[i], a, &diag)));
}

/* The printed stage kernel of prog under cfg. */
static const char *kernel_text(Arena *a, const IrProgram *p, const char *cfg)
{
    Plan *plan = hb_plan(a, p, cfg);
    const KKernel *k = k_module_kernel(&plan->module, arena_printf(a, "%s_step", p->name));
    assert(k);
    StrBuf out = {0};
    kir_cuda_kernel(&out, k);
    const char *text = arena_strdup(a, out.data);
    sb_free(&out);
    return text;
}

static void want(const char *text, const char *const needles[])
{
    for (int i = 0; needles[i]; i++)
        hb_has(text, needles[i]);
}

#define WANT(p, cfg, ...) want(kernel_text(a, (p), (cfg)), (const char *const[]){__VA_ARGS__, NULL})

static void families(Arena *a)
{
    const IrProgram *c2 = progs[0], *c3 = progs[1];
    /* plain: i, j and the launch's step; the arguments the stage reads */
    WANT(c2, "default", "(float)(i + c_o0)", "(float)(j + c_o1)", "(float)c_step", "(float)c_n0 + (float)c_n1",
         "const int c_o0", "const int c_n1", "const int c_step");
    /* tile, cyclic merging: each point its own offset from the base point */
    WANT(c2, "tb=32x8x1,cm=2x2x1,uf=2x2x1", "(float)(i + c_o0)", "(float)(i + 32 + c_o0)", "(float)(j + 8 + c_o1)");
    WANT(c2, "tb=16x4x1,bm=4x1x1,uf=4x1x1,vec=4", "(float)(i + 1 + c_o0)", "(float)(i + 3 + c_o0)");
    WANT(c2, "smem=on,cmem=on", "(float)(i + c_o0)", "(float)(j + c_o1)");
    /* streaming: register mode (plane t - R), the ring (its fast path's planes z0 + jj + u) */
    WANT(c2, "tb=32x1x1,stream=y,sb=32", "(float)(i + c_o0)", "(float)(t - 1 + c_o1)");
    WANT(c2, "tb=32x1x1,stream=y,sb=32,smem=on", "(float)(t - 1 + c_o1)", "(float)(z0 + jj + c_o1)");
    WANT(c3, "tb=32x4x1,stream=z,sb=16", "(float)(jb + c_o1)", "(float)(t - 1 + c_o2)");
    WANT(c3, "tb=32x4x1,stream=z,sb=16,bm=1x4x1,uf=1x1x2,prefetch=on", "(float)(jb + 3 + c_o1)");
    /* temporal blocking: the fused step is the launch's first plus those before it */
    WANT(c2, "tb=32x16x1,tblock=3", "(float)(i + c_o0)", "(float)(c_step + (step - 1))", "(float)(c_step + 2)");
    WANT(c2, "tb=32x1x1,stream=y,sb=32,tblock=2", "(float)(ps + c_o1)", "(float)c_step", "(float)(c_step + 1)");
    WANT(c3, "tb=32x8x1,stream=z,sb=16,tblock=2", "(float)(j + c_o1)", "(float)(ps + c_o2)");
    /* a stage that reads no built-in takes no such argument; c3 reads no step and no size */
    hb_lacks(kernel_text(a, progs[3], "default"), "c_o0");
    const char *no_step = kernel_text(a, c3, "default");
    hb_lacks(no_step, "c_step");
    hb_lacks(no_step, "c_n0");
}

/* Retiming sums weighted reads: a coordinate is refused with its reason. Fused steps that compute
 * halo points as the points they copy (periodic) give them the source's coordinates. */
static void refused(Arena *a)
{
    Config c;
    char why[512];
    hb_has(kernel_text(a, progs[2], "tblock=2"), "(float)(src_i + c_o0)");
    hb_has(kernel_text(a, progs[2], "tb=64x1,stream=y,sb=16,tblock=2"), "(float)(src_i + c_o0)");
    assert(config_parse("tb=32x4x1,stream=z,sb=16,retime=on", 3, &c, why, sizeof why) == 0);
    assert(!plan_build(progs[1], &c, a, why, sizeof why));
    hb_has(why, "reads a coordinate or the step");
}

/* The host code numbers the steps: 0 for the prologue, s in the loop. */
static void host_steps(Arena *a)
{
    Plan *plan = hb_plan(a, progs[0], "default");
    StrBuf cu = {0}, h = {0};
    assert(cg_emit(plan, "c2", &cu, &h) == 0);
    static const char *const needles[] = {"c2_step_(&b, p, n, s, stream)", "c2_prologue_(&b, p, n, 0, stream)",
                                          "co_[0], cn_[0], co_[1], cn_[1], step0)", NULL};
    want(cu.data, needles);
    sb_free(&cu);
    sb_free(&h);
}

int main(void)
{
    Arena *a = arena_new();
    load(a);
    families(a);
    refused(a);
    host_steps(a);
    arena_free(a);
    return 0;
}
