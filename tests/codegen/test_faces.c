/* Boundaries per axis and per face in the code generator: a fill kernel per axis whose two faces
 * follow their own conditions (none for an axis fixed on both), the prologue of a field with fixed
 * and other faces (its halo copied face by face; every prologue launch sized by the halo, not the
 * grid), the header's statement of them, fused steps refused where the faces mix periodic, clamp
 * or mirror with another kind (and taken where they are fixed and constant), and the distributed
 * code's periodic axes. codegen_nvcc compiles tests/programs/faces*.st and examples/channel.st,
 * and a GPU checks them against the interpreter (test_rt_examples). */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "ast.h"
#include "codegen.h"
#include "hand_ir.h"
#include "kir.h"
#include "opt_temporal.h"

static const char PROGRAMS[] =
    "stencil channel {\n"
    "  grid 2d;\n"
    "  coef k boundary periodic, fixed;\n"
    "  state u boundary periodic, fixed;\n"
    "  u = u + 0.1 * k * (u[-1,-1] + u[1,1] + u[0,1] - 3 * u);\n"
    "}\n"
    "stencil inflow {\n"
    "  grid 2d;\n"
    "  state u boundary constant(1) | clamp, mirror;\n"
    "  state v levels 3 boundary fixed | clamp, constant(0.5);\n"
    "  u = u - 0.3 * (u - u[-1,0]) + 0.01 * v[0,1];\n"
    "  v = v + 0.1 * (v[1,0] - v@-1) + 0.01 * u[0,-1];\n"
    "}\n"
    "stencil hold {\n"
    "  grid 2d;\n"
    "  state u boundary constant(2) | fixed, fixed | constant(-1);\n"
    "  state w boundary constant(3);\n"
    "  u = 0.2 * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1] + w);\n"
    "  w = 0.25 * (w[-1,0] + w[1,0] + w[0,-1] + w[0,1]);\n"
    "}\n"
    "stencil ymix {\n"
    "  grid 2d;\n"
    "  state a boundary periodic;\n"
    "  state b boundary clamp, periodic;\n"
    "  a = 0.5 * (a[-1,0] + b[0,1]);\n"
    "  b = 0.5 * (b[1,0] + a[0,-1]);\n"
    "}\n";

enum { CHANNEL, INFLOW, HOLD, YMIX, NPROGS };
static IrProgram *progs[NPROGS];

static void load(Arena *a)
{
    Source src = {"faces.st", PROGRAMS, (long)sizeof PROGRAMS - 1};
    Diag diag;
    diag_init(&diag, &src, stderr);
    AstFile file = {0};
    assert(parse_source(&src, a, &diag, &file) == 0 && file.nstencils == NPROGS);
    for (int i = 0; i < NPROGS; i++)
        assert((progs[i] = ir_lower(&file.stencils[i], a, &diag)));
}

/* The printed kernel `name` of plan. */
static const char *kernel(Arena *a, const Plan *plan, const char *name)
{
    const KKernel *k = k_module_kernel(&plan->module, name);
    if (!k)
        return NULL;
    StrBuf out = {0};
    kir_cuda_kernel(&out, k);
    const char *text = arena_strdup(a, out.data);
    sb_free(&out);
    return text;
}

static int launches(const PlanLaunch *l, int n, const char *name)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        count += strcmp(l[i].kernel, name) == 0;
    return count;
}

static int first(const PlanLaunch *l, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(l[i].kernel, name) == 0)
            return i;
    return n;
}

static void lacks(const char *text, const char *needle)
{
    if (strstr(text, needle)) {
        fprintf(stderr, "unexpected '%s' in:\n%s\n", needle, text);
        assert(0);
    }
}

/* The IR: one condition per axis and face, the axes the grid lacks repeating its last. */
static void test_ir(void)
{
    const IrField *u = &progs[INFLOW]->fields[0], *v = &progs[INFLOW]->fields[1];
    assert(ir_bc(u, 0, 0).kind == BC_CONSTANT && ir_bc(u, 0, 0).value == 1 && ir_bc(u, 0, 1).kind == BC_CLAMP);
    assert(ir_bc(u, 1, 0).kind == BC_MIRROR && ir_bc(u, 1, 1).kind == BC_MIRROR && ir_bc(u, 2, 1).kind == BC_MIRROR);
    assert(!ir_bc_uniform(u) && ir_bc_any(v, BC_FIXED) && !ir_bc_all(v, BC_FIXED) && !ir_bc_axis_fixed(v, 0));
    assert(ir_bc_axis_fixed(&progs[CHANNEL]->fields[1], 1) && ir_bc_uniform(&progs[HOLD]->fields[1]));
}

/* Fills: each face by its condition, nothing for a fixed face or an axis fixed on both. */
static void test_fills(Arena *a)
{
    Plan *ch = hb_plan(a, progs[CHANNEL], "");
    const char *ux = kernel(a, ch, "channel_bc_u_x");
    assert(ux && !kernel(a, ch, "channel_bc_u_y") && !kernel(a, ch, "channel_bc_k_y"));
    hb_has(ux, "src_lo = (lo % n0 + n0) % n0;");
    hb_has(ux, "src_hi = (hi % n0 + n0) % n0;");
    /* the prologue: u's halo copied axis by axis into its other buffer, then both buffers filled */
    assert(launches(ch->prologue, ch->nprologue, "channel_halo_copy_u_x") == 1);
    assert(launches(ch->prologue, ch->nprologue, "channel_halo_copy_u_y") == 1);
    assert(launches(ch->prologue, ch->nprologue, "channel_bc_u_x") == 2);
    assert(launches(ch->prologue, ch->nprologue, "channel_bc_k_x") == 1);
    int copy_y = first(ch->prologue, ch->nprologue, "channel_halo_copy_u_y");
    assert(copy_y < first(ch->prologue, ch->nprologue, "channel_bc_u_x"));
    /* the y copy: layer h below and above the grid, threads over the x extent only (a face, not
     * the grid: the third grid axis is z, one block) */
    const char *cy = kernel(a, ch, "channel_halo_copy_u_y");
    hb_has(cy, "at_lo = base + (long long)-(h - 1) * s1;");
    hb_has(cy, "at_hi = base + (long long)(n1 + h) * s1;");
    hb_has(cy, "f_u_lp1[at_hi] = f_u_l0[at_hi];");
    const PlanLaunch *cl = &ch->prologue[copy_y];
    assert(cl->axis_of[0] == 0 && cl->tile[0] == CG_UTIL_BLOCK && cl->axis_of[1] == 2 && cl->tile[2] == 0);
    assert(launches(ch->step, ch->nstep, "channel_bc_u_x") == 1 && !launches(ch->step, ch->nstep, "channel_bc_u_y"));

    Plan *in = hb_plan(a, progs[INFLOW], "");
    const char *u = kernel(a, in, "inflow_bc_u_x"), *vx = kernel(a, in, "inflow_bc_v_x");
    const char *vy = kernel(a, in, "inflow_bc_v_y");
    hb_has(u, "halo of u along x (constant | clamp)");
    hb_has(u, "(-h + 1) * 1] = 1.0f;");
    hb_has(u, "const int src_hi = min(max(hi, 0), n0 - 1);");
    lacks(u, "src_lo");
    hb_has(vx, "const int src_hi = min(max(hi, 0), n0 - 1);");
    lacks(vx, "const int lo"); /* the fixed low face: no store */
    lacks(vx, "(-h + 1)");
    hb_has(vy, "= 0.5f;");
    hb_has(kernel(a, in, "inflow_bc_u_y"), "src_lo_m");
    assert(launches(in->prologue, in->nprologue, "inflow_halo_copy_v_x") == 1);
    assert(launches(in->prologue, in->nprologue, "inflow_halo_copy_v_y") == 1);
    assert(launches(in->prologue, in->nprologue, "inflow_bc_v_x") == 3); /* three levels */

    StrBuf cu = {0}, h = {0};
    assert(cg_emit(in, "inflow", &cu, &h) == 0);
    hb_has(h.data, "state u, 2 levels, boundary constant(1) | clamp, mirror (per axis x, y, z: low | high");
    hb_has(h.data, "state v, 3 levels, boundary fixed | clamp, constant(0.5) (per axis");
    sb_free(&cu);
    sb_free(&h);
}

/* Threads a launch starts on an interior of n points (the host code's grid rule, emit_api.c). */
static long long launch_threads(const PlanLaunch *l, const int n[3])
{
    long long t = 1;
    for (int d = 0; d < 3; d++) {
        long long blocks = l->tile[d] > 0 ? (n[l->axis_of[d]] + l->extra[d] + l->tile[d] - 1) / l->tile[d] : 1;
        t *= blocks * l->block[d];
    }
    return t;
}

/* The start of a call costs the halo, not the grid: every prologue launch (halo copies, temps'
 * zeroing, fills) starts at most as many threads as the halo has points, padded to the blocks.
 * A kernel with a thread per padded point made one step a call three times slower (0.8 ms a call
 * at 512^3, docs/performance.md, "A call's fixed cost"). */
static void check_prologue_cost(const Plan *plan)
{
    const IrProgram *p = plan->prog;
    const int n[3] = {1000, p->dims > 1 ? 1000 : 1, p->dims > 2 ? 1000 : 1};
    long long padded = 1, interior = 1;
    for (int d = 0; d < 3; d++) {
        padded *= n[d] + 2 * (d < p->dims ? p->halo[d] : 0);
        interior *= n[d];
    }
    for (int i = 0; i < plan->nprologue; i++) {
        long long t = launch_threads(&plan->prologue[i], n);
        if (t > 2 * (padded - interior) + 1024) {
            fprintf(stderr, "%s: %lld threads for a halo of %lld points\n", plan->prologue[i].kernel, t,
                    padded - interior);
            assert(0);
        }
    }
}

static void test_prologue_cost(Arena *a)
{
    int checked = 0; /* launches: the check is not vacuous */
    for (int i = 0; i < NPROGS; i++) {
        Plan *plan = hb_plan(a, progs[i], "");
        check_prologue_cost(plan);
        checked += plan->nprologue;
    }
    for (int i = 0; i <= 5; i++) {
        Plan *plan = hb_plan(a, hb_example(a, i), "");
        check_prologue_cost(plan);
        checked += plan->nprologue;
    }
    assert(checked >= 20);
}

/* Fused steps: refused with the field and the reason where the faces mix periodic, clamp or
 * mirror with another kind; taken where they are fixed and constant (the halo holds). */
static void test_fused(Arena *a)
{
    Config c;
    char why[512];
    assert(config_parse("tb=32x8,tblock=2", 2, &c, why, sizeof why) == 0);
    assert(!plan_build(progs[CHANNEL], &c, a, why, sizeof why));
    hb_has(why, "state u has a boundary per axis or face with periodic, clamp or mirror");
    assert(!plan_build(progs[INFLOW], &c, a, why, sizeof why));
    assert(cg_temporal_edge(progs[HOLD], NULL) == TB_HOLD && cg_temporal_edge_of(&progs[HOLD]->fields[0]) == TB_HOLD);
    assert(cg_temporal_edge_of(&progs[CHANNEL]->fields[1]) == TB_MIXED);
    Plan *hold = plan_build(progs[HOLD], &c, a, why, sizeof why);
    if (!hold)
        fprintf(stderr, "hold: %s\n", why);
    assert(hold && hold->step_count == 2);
}

/* Distributed: the axes on which a field is periodic are exchanged at the global faces, every
 * buffer before the first step; periodic fields beside filled ones on one axis keep depth 1
 * (emit_dist.c, depth1_only), periodic faces beside filled ones on other axes do not. */
static void test_dist(Arena *a)
{
    StrBuf cu = {0}, h = {0};
    assert(cg_emit_opts(hb_plan(a, progs[CHANNEL], ""), "channel", NULL, 1, &cu, &h) == 0);
    hb_has(cu.data, "#define channel_DIST_PERIODIC_AXES_ 1\n");
    hb_has(cu.data, "#define channel_DIST_MIXED_ 0\n"); /* periodic x beside filled y faces */
    hb_has(cu.data, "channel_DIST_PERIODIC_(a))");
    hb_has(cu.data, "(x[i].periodic >> a & 1)");
    /* the first exchange sends every buffer: the one the first step overwrites keeps its fixed
     * y faces' halo, whose part beyond the periodic x faces only the exchange fills (issue 31:
     * deep halos read it in their second step; tests/dist/faces_model.py) */
    hb_has(cu.data, "x[n++] = (channel_xfield_){b->u[0], 1};\n    x[n++] = (channel_xfield_){b->u[1], 1};\n");
    sb_free(&cu);
    sb_free(&h);
    assert(cg_emit_opts(hb_plan(a, progs[YMIX], ""), "ymix", NULL, 1, &cu, &h) == 0);
    hb_has(cu.data, "#define ymix_DIST_PERIODIC_AXES_ 3\n");
    hb_has(cu.data, "#define ymix_DIST_MIXED_ 1\n"); /* x: a periodic, b clamp */
    hb_has(cu.data, "{b->b[0], 2}"); /* b exchanges its global faces along y only */
    sb_free(&cu);
    sb_free(&h);
}

int main(void)
{
    Arena *a = arena_new();
    load(a);
    test_ir();
    test_fills(a);
    test_prologue_cost(a);
    test_fused(a);
    test_dist(a);
    arena_free(a);
    puts("codegen faces tests passed");
    return 0;
}
