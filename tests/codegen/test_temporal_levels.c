/* Fused steps of three-level fields (opt_temporal.c, plan.c, emit_api.c): the overlapped tile
 * keeps steps t-1, t and t+1 in three shared buffers and stores the last two steps to levels +1
 * and +2 of a ring of four buffers, which the fused launch rotates twice, and after which the
 * older level's halo is filled too; the host code takes the fourth buffer from the workspace and
 * hands the caller's three back (a distributed run too); two-level fields keep their kernels and
 * rotations; what the kernels cannot do (the retimed kernel) is refused with its reason. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "codegen.h"
#include "hand_ir.h"
#include "kir.h"
#include "space.h"

static Plan *build(Arena *a, const IrProgram *p, const char *cfg, int distributed, char *why, int whylen)
{
    Config c;
    assert(config_parse(cfg, p->dims, &c, why, whylen) == 0);
    Space s;
    const long n[3] = {512, 512, 1};
    space_init(&s, p, n);
    s.distributed = distributed;
    if (!space_check(&s, &c, why, whylen))
        return NULL;
    return plan_build(p, &c, a, why, whylen);
}

static Plan *must_build(Arena *a, const IrProgram *p, const char *cfg)
{
    char why[512];
    Plan *plan = build(a, p, cfg, 0, why, sizeof why);
    if (!plan)
        fprintf(stderr, "%s with '%s': %s\n", p->name, cfg, why);
    assert(plan);
    return plan;
}

static void refused(Arena *a, const IrProgram *p, const char *cfg, int distributed, const char *needle)
{
    char why[512];
    Plan *plan = build(a, p, cfg, distributed, why, sizeof why);
    if (plan || !strstr(why, needle)) {
        fprintf(stderr, "%s with '%s': plan=%p why='%s', expected '%s'\n", p->name, cfg, (void *)plan, why, needle);
        assert(0);
    }
}

static int has_arg(const PlanLaunch *l, int field, int level)
{
    for (int i = 0; i < l->nargs; i++)
        if (l->args[i].kind == ARG_BUF && l->args[i].field == field && l->args[i].level == level)
            return 1;
    return 0;
}

/* Halo fills of field's level `level` among ls. */
static int fills(const PlanLaunch *ls, int n, int field, int level)
{
    int found = 0;
    for (int i = 0; i < n; i++)
        found += ls[i].fill && ls[i].args[0].field == field && ls[i].args[0].level == level;
    return found;
}

/* The wave (u levels 3, clamp, halo 2 along x), 3 fused steps: the plan's ring and rotations,
 * the kernel's buffers and stores. */
static void test_tile(Arena *a)
{
    const IrProgram *wave = hb_example(a, 2);
    Plan *plan = must_build(a, wave, "tb=32x8,tblock=3");
    assert(plan->ring3 == 4 && plan_buffers(plan, 0) == 4 && plan_buffers(plan, 1) == 1);
    assert(plan_slot(plan, 0, 0) == 0 && plan_slot(plan, 0, -1) == 1 && plan_slot(plan, 0, 1) == 3 &&
           plan_slot(plan, 0, 2) == 2);
    assert(plan->nstep > 1 && plan->step_count == 3);
    const PlanLaunch *fused = &plan->step[0];
    assert(fused->steps == 3 && fused->rotate_after == 2 && plan_rotations(plan, fused, 0) == 2);
    assert(plan->single[0].rotate_after == 1 && plan_rotations(plan, &plan->single[0], 0) == 1);
    assert(fused->smem_bytes == 3 * 32 * 32 * 4);
    assert(has_arg(fused, 0, 0) && has_arg(fused, 0, -1) && has_arg(fused, 0, 1) && has_arg(fused, 0, 2));
    /* clamp: the older level's halo is filled after a fused launch, as when it was newest */
    assert(fills(plan->step, plan->nstep, 0, 0) == 2 && fills(plan->step, plan->nstep, 0, -1) == 2);
    assert(fills(plan->single, plan->nsingle, 0, -1) == 0);

    const KKernel *k = k_module_kernel(&plan->module, "wave_step");
    assert(k);
    const KStmt *steps = hb_find_loop(&k->body, "step");
    assert(steps && kir_count_index(&steps->body, "tb_prev0") > 0);
    assert(hb_count_stores(&k->body, "tb_buf0", NULL) == 3); /* t twice, t-1 once */
    assert(hb_count_stores(&k->body, "f_u_lp2", "idx") == 1 && hb_count_stores(&k->body, "f_u_lp1", "idx") == 1);
    assert(hb_count_stores(&steps->body, "f_u_lp2", "idx") == 0 && hb_count_stores(&steps->body, "f_u_lp1", "idx") == 0);
    assert(strstr(plan->source, "% 3") && strstr(plan->source, "f_u_lp1[idx] = tb_in0[lidx];"));
    /* step K = 3 reads t+2 from buffer 2 and t+1 from buffer 1 */
    assert(strstr(plan->source, "tb_in0 = tb_buf0 + 2048;") && strstr(plan->source, "tb_prev0 = tb_buf0 + 1024;"));
}

/* A fixed three-level field: its halo copied into all three other buffers; no fills. */
static void test_fixed(Arena *a)
{
    IrProgram *wave = hb_example(a, 2);
    ir_bc_set(&wave->fields[0], BC_FIXED, 0);
    Plan *plan = must_build(a, wave, "tb=32x8,tblock=2");
    const PlanLaunch *copy = NULL;
    for (int i = 0; i < plan->nprologue; i++)
        if (strstr(plan->prologue[i].kernel, "halo_copy"))
            copy = &plan->prologue[i];
    assert(copy && has_arg(copy, 0, 1) && has_arg(copy, 0, -1) && has_arg(copy, 0, 2));
    assert(fills(plan->step, plan->nstep, 0, -1) == 0);
    assert(strstr(plan->source, "in_buffer"));
}

/* The host code: four buffers, the fourth from the workspace, two rotations after the fused
 * launch, the caller's three handed back; a two-level program's host code has none of it. */
static void test_host(Arena *a)
{
    StrBuf cu = {0}, h = {0};
    assert(cg_emit(must_build(a, hb_example(a, 2), "tb=32x8,tblock=2"), "wave", &cu, &h) == 0);
    assert(strstr(cu.data, "    float *u[4];\n") && strstr(h.data, "    float *u[3];"));
    assert(strstr(cu.data, "b.u[3] = (float *)(ws + 0 * temp_bytes);"));
    assert(strstr(cu.data, "err = wave_unring_(b.u, (float *)(ws + 0 * temp_bytes), f->u,"));
    assert(strstr(cu.data, "return 1 * wave_temp_bytes_(nx, ny, nz);"));
    assert(hb_count(cu.data, "newest = b->u[3];") == 3); /* twice after the fused launch, once after the single */
    assert(strstr(h.data, "fourth buffer"));
    sb_free(&cu);
    sb_free(&h);
    Plan *star = must_build(a, hb_example(a, 0), "tb=32x8,tblock=2");
    assert(plan_buffers(star, 0) == 2 && star->step[0].rotate_after == 1);
    assert(cg_emit(star, "star", &cu, &h) == 0);
    assert(!strstr(cu.data, "unring") && !strstr(h.data, "fourth buffer") && strstr(cu.data, "float *u[2];"));
    sb_free(&cu);
    sb_free(&h);
}

/* The streaming form (wave: clamp, halo 1 along y, lag 1): queues of 2*Lag+R+1 planes, as step
 * s reads step s-2's plane; the loaded older level's queue qo and ring tbso; step K stores both
 * levels. */
static void test_stream(Arena *a)
{
    Plan *plan = must_build(a, hb_example(a, 2), "tb=64x1,stream=y,sb=16,tblock=3");
    const PlanLaunch *fused = &plan->step[0];
    assert(fused->steps == 3 && fused->rotate_after == 2 && has_arg(fused, 0, -1) && has_arg(fused, 0, 2));
    assert(fused->smem_bytes == (3 + 1) * 4 * 64 * 4); /* K rings and the older level's, 4 planes */
    assert(strstr(plan->source, "for (int it = 0; it < count; it += 4)"));
    assert(strstr(plan->source, "qo0_3 = (float)0;") && strstr(plan->source, "tbso0[lcol + 0] = nxo0;"));
    assert(strstr(plan->source, "nxo0 = f_u_lm1["));
    const KKernel *k = k_module_kernel(&plan->module, "wave_step");
    /* once per copy of each of the two plane loops (2D: the fast one and the checked one) */
    assert(k && hb_count_stores(&k->body, "f_u_lp2", "idx") == 2 * 4 && hb_count_stores(&k->body, "f_u_lp1", "idx") == 2 * 4);
    /* copy 0, step 1 reads u@-1 loaded a copy ago; step 2 reads step 0's plane two copies ago */
    assert(strstr(plan->source, " - qo0_3 + ") && strstr(plan->source, " - q0_0_2 + "));
}

/* A weighted sum of three levels: the retimed kernel keeps partial sums of one level. */
static IrProgram *weighted3(Arena *a)
{
    IrProgram *p = hb_program(a, "weighted3", 2, ELEM_FLOAT);
    int u = hb_field(a, p, "u", ROLE_STATE, 3, BC_FIXED, 0);
    int s = hb_stage(a, p);
    int sum = hb_op(a, p, s, N_MUL, hb_const(a, p, s, 0.5), hb_read(a, p, s, u, 0, 0, 0, 0), -1);
    sum = hb_op(a, p, s, N_ADD, sum, hb_op(a, p, s, N_MUL, hb_const(a, p, s, 0.25), hb_read(a, p, s, u, 0, 1, 0, 0), -1), -1);
    sum = hb_op(a, p, s, N_ADD, sum, hb_op(a, p, s, N_MUL, hb_const(a, p, s, 0.25), hb_read(a, p, s, u, -1, 0, 1, 0), -1), -1);
    hb_write(a, p, s, u, sum);
    hb_finish(p);
    return p;
}

static void test_refused(Arena *a)
{
    const IrProgram *wave = hb_example(a, 2);
    refused(a, weighted3(a), "tb=64x1,stream=y,sb=16,tblock=2,retime=on", 0, "retime=off");
    must_build(a, weighted3(a), "tb=64x1,stream=y,sb=16,tblock=2");
    char why[512]; /* a distributed run: both levels exchanged; its clamp faces map (asymmetric) */
    Plan *dist = build(a, hb_with_boundary(hb_example(a, 2), BC_FIXED), "tb=32x8,tblock=2", 1, why, sizeof why);
    assert(dist && dist->ring3 == 4 && plan_buffers(dist, 0) == 4);
    refused(a, wave, "tb=32x8,tblock=2", 1, "distributed run");
    Plan *plain = must_build(a, wave, "tb=32x8");
    assert(plain->ring3 == 3 && plan_buffers(plain, 0) == 3 && plain->step[0].rotate_after == 1);
}

int main(void)
{
    Arena *a = arena_new();
    test_tile(a);
    test_fixed(a);
    test_host(a);
    test_stream(a);
    test_refused(a);
    arena_free(a);
    puts("temporal_levels: ok");
    return 0;
}
