/* Plans and emitted text of the hand-built programs: every tunable parameter changes the source,
 * the launch sequence has the expected shape, constants and names come out right. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "codegen.h"
#include "hand_ir.h"

static void check_launches(const Plan *plan, const PlanLaunch *ls, int n, int expect_rotate)
{
    int rotates = 0;
    for (int i = 0; i < n; i++) {
        const PlanLaunch *l = &ls[i];
        char decl[200];
        snprintf(decl, sizeof decl, "\n%s(", l->kernel);
        hb_has(plan->source, decl);
        assert(l->block[0] * l->block[1] * l->block[2] >= 1);
        rotates += l->rotate_after;
        for (int k = 0; k < l->nargs; k++) {
            const PlanArg *g = &l->args[k];
            if (g->kind == ARG_BUF)
                assert(g->field >= 0 && g->field < plan->prog->nfields && g->level >= -1 && g->level <= 1);
            else if (g->kind == ARG_PARAM)
                assert(g->index >= 0 && g->index < plan->prog->nparams);
            else
                assert(g->index >= 0 && g->index < plan->prog->dims);
        }
    }
    assert(rotates == expect_rotate);
}

/* Every parameter that the space lets vary must change the device source. */
static void each_param_changes_source(Arena *a, const IrProgram *p)
{
    Space s;
    space_init(&s, p, NULL);
    Config base = config_default(p->dims);
    const char *src0 = hb_plan(a, p, "")->source;
    int varied = 0;
    for (int id = 0; id < P_COUNT; id++) {
        const SpaceParam *sp = &s.params[id];
        for (int i = 0; i < sp->nvalues; i++) {
            Config c = base;
            if (sp->values[i] == base.v[id])
                continue;
            c.v[id] = sp->values[i];
            /* keep the block valid when a tb axis changes */
            if (id >= P_TBX && id <= P_TBZ) {
                c.v[P_TBX] = c.v[P_TBY] = c.v[P_TBZ] = 1;
                c.v[id] = sp->values[i];
                c.v[id == P_TBX ? (p->dims > 1 ? P_TBY : P_TBX) : P_TBX] = 32;
                if (id == P_TBX)
                    c.v[P_TBX] = sp->values[i] < 32 ? sp->values[i] : 32 * 1;
                c.v[id] = sp->values[i];
            }
            char why[256];
            if (!space_check(&s, &c, why, sizeof why))
                continue;
            Plan *plan = plan_build(p, &c, a, why, sizeof why);
            assert(plan);
            if (strcmp(plan->source, src0) == 0) {
                fprintf(stderr, "%s: %s=%d does not change the source\n", p->name,
                        config_param_name((ParamId)id), sp->values[i]);
                assert(0);
            }
            varied++;
            break;
        }
    }
    assert(varied >= p->dims + 1); /* tb axes and maxreg */
}

static void emit_api(const Plan *plan, StrBuf *cu, StrBuf *h)
{
    assert(cg_emit(plan, "out/dir/thing", cu, h) == 0);
    hb_has(h->data, "thing.h");
    hb_has(cu->data, "#include \"thing.h\"");
    hb_has(cu->data, plan->source);
}

int main(void)
{
    Arena *a = arena_new();
    assert(strcmp(cg_c_identifier(a, "j2d9pt-gol"), "j2d9pt_gol") == 0);
    assert(strcmp(cg_c_identifier(a, "1heat"), "s_1heat") == 0);

    for (int i = 0; i < HB_NPROGRAMS; i++) {
        IrProgram *p = hb_example(a, i);
        Plan *plan = hb_plan(a, p, "");
        assert(plan->step_count == 1 && plan->nstep >= p->nstages);
        check_launches(plan, plan->step, plan->nstep, 1);
        check_launches(plan, plan->prologue, plan->nprologue, 0);
        hb_has(plan->source, "extern \"C\" __global__");
        hb_lacks(plan->source, "#include");
        each_param_changes_source(a, p);
        StrBuf cu = {0}, h = {0};
        emit_api(plan, &cu, &h);
        sb_free(&cu);
        sb_free(&h);
    }

    /* star2d: float constants exact, offsets folded into strides, launch bounds = block */
    IrProgram *star = hb_example(a, 0);
    Plan *plan = hb_plan(a, star, "");
    hb_has(plan->source, "0.300000012f");
    hb_has(plan->source, "1.00000001e-07f");
    hb_has(plan->source, "3.0f");
    hb_has(plan->source, "f_u_l0[idx - s1]");
    hb_has(plan->source, "f_u_l0[idx + 1]");
    hb_has(plan->source, "__launch_bounds__(256)");
    hb_has(plan->source, "blockIdx.y * 8u");
    hb_has(plan->source, "f_u_lp1[idx] =");
    assert(plan->nprologue == 2); /* fixed: halo copy into the other buffer, x then y faces */
    assert(plan->nstep == 1 && plan->step[0].block[0] == 32 && plan->step[0].block[1] == 8);
    plan = hb_plan(a, star, "tb=64x2,maxreg=64");
    hb_has(plan->source, "__maxnreg__(64)");
    hb_has(plan->source, "blockIdx.x * 64u");
    hb_lacks(plan->source, "__launch_bounds__");

    /* box3d (double, periodic): 27 loads, fills along x, y, z after the step */
    IrProgram *box = hb_example(a, 1);
    plan = hb_plan(a, box, "");
    hb_has(plan->source, "f_u_l0[idx - s2 - s1 - 1]");
    hb_has(plan->source, "0.5 *");
    hb_has(plan->source, "% n2 + n2) % n2");
    assert(plan->nstep == 4);
    assert(plan->step[0].rotate_after && !plan->step[1].rotate_after);
    assert(plan->nprologue == 6); /* x, y, z fills of both buffers */

    /* wave: 3 levels (reads level -1, writes +1), a coef, a param, clamp */
    IrProgram *wave = hb_example(a, 2);
    plan = hb_plan(a, wave, "");
    hb_has(plan->source, "f_u_lm1[idx]");
    hb_has(plan->source, "f_u_lp1[idx] =");
    hb_has(plan->source, "const float *__restrict__ f_c_l0");
    hb_has(plan->source, "const float p_dt");
    hb_has(plan->source, "min(max(lo, 0), n0 - 1)"); /* clamp */
    hb_has(plan->source, "const float v"); /* u0 is shared */
    StrBuf cu = {0}, h = {0};
    assert(cg_emit(plan, "wave", &cu, &h) == 0);
    hb_has(h.data, "float *u[3];");
    hb_has(h.data, "const float *c;");
    hb_has(h.data, "float dt; /* default 0.25f */");
    hb_has(h.data, "cudaError_t wave_run(wave_fields *f, const wave_params *p, int nx, int ny, int nz");
    hb_has(h.data, "size_t wave_buffer_elems(int nx, int ny, int nz);");
    hb_has(cu.data, "b->u[2] = b->u[1];");
    sb_free(&cu);
    sb_free(&h);

    /* twofield: constant and mirror boundaries, a copied unwritten field, C++ keyword member */
    IrProgram *two = hb_example(a, 3);
    plan = hb_plan(a, two, "");
    hb_has(plan->source, "= (-1.5f);");
    hb_has(plan->source, "src_lo_m"); /* mirror's period, 2(n-1) in 64 bits */
    hb_has(plan->source, "two_field_copy_w");
    hb_has(plan->source, "sqrtf(fabsf(");
    hb_has(plan->source, "fminf(");
    hb_has(plan->source, "powf(");
    hb_has(plan->source, "rsqrtf(");
    hb_has(plan->source, "rsqrtf(__int_as_float(0x7f800000))"); /* 1e300 rounds to float infinity */
    static const char *const further[] = {"tanhf(", "atan2f(", "hypotf(", "cbrtf(", "exp2f(", "log2f(",
                                          "fminf(fmaxf(", "roundf(", "ceilf(", "truncf(", "fmodf("};
    for (size_t i = 0; i < sizeof further / sizeof further[0]; i++)
        hb_has(plan->source, further[i]);
    hb_has(plan->source, "(float)((-p_k > (float)0) - (-p_k < (float)0))"); /* sign, no C function */
    assert(cg_emit(plan, "two", &cu, &h) == 0);
    hb_has(h.data, "float *new_[2];");
    hb_has(h.data, "float k;");
    sb_free(&cu);
    sb_free(&h);

    /* twostage: two stage kernels, the materialized temp is zeroed and filled, the register
     * temp has no buffer */
    IrProgram *ts = hb_example(a, 4);
    plan = hb_plan(a, ts, "");
    assert(plan->needs_temp);
    hb_has(plan->source, "twostage_stage0");
    hb_has(plan->source, "twostage_stage1");
    /* zeroed face by face at the start (the stage writes the interior) */
    hb_has(plan->source, "twostage_zero_flux_x");
    hb_has(plan->source, "twostage_zero_flux_y");
    hb_lacks(plan->source, "twostage_zero_flux(");
    hb_has(plan->source, "f_flux_l0[at_hi] = (double)0;");
    hb_has(plan->source, "twostage_bc_flux_x");
    hb_lacks(plan->source, "f_reg");
    assert(cg_emit(plan, "twostage", &cu, &h) == 0);
    hb_has(cu.data, "cudaMallocAsync");
    hb_has(cu.data, "return 1 * twostage_temp_bytes_(nx, ny, nz);");
    sb_free(&cu);
    sb_free(&h);

    /* heat1d: no strides, 256 threads */
    IrProgram *h1 = hb_example(a, 5);
    plan = hb_plan(a, h1, "");
    hb_lacks(plan->source, "s1");
    hb_has(plan->source, "__launch_bounds__(256)");

    /* configurations the generator cannot produce are refused with a reason */
    Config c;
    char why[256];
    assert(config_parse("tblock=2,smem=on", 2, &c, why, sizeof why) == 0);
    assert(plan_build(star, &c, a, why, sizeof why) == NULL);
    hb_has(why, "temporal blocking");
    assert(config_parse("tb=32x8x2", 2, &c, why, sizeof why) == 0);
    assert(plan_build(star, &c, a, why, sizeof why) == NULL);
    hb_has(why, "tb along z must be 1");

    arena_free(a);
    puts("emit: ok");
    return 0;
}
