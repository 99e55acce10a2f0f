/* Builds the Plan of (IR, Config): the device source and the launch sequence.
 *
 * Buffers: ARG_BUF (field, level) names a buffer of the field as seen at the time of the launch.
 * A state field of L levels has L buffers, kept newest first: level 0 is buffer [0] (step t),
 * level -1 is [1] (step t-1), level +1 is [L-1] (the oldest, which the step overwrites with
 * t+1). After a launch with rotate_after, every state field's list rotates once
 * ([L-1] moves to the front). Coef and temp fields have one buffer (level 0).
 *
 * Fused steps of a three-level field: every block reads both input levels until the launch
 * ends, so the two levels it leaves (steps t+K-1 and t+K, levels +1 and +2) need two other
 * buffers: such a plan gives the field four (Plan.ring3), and the fused launch rotates its
 * list twice. After it, the older level's halo is filled too, as it was when it was newest.
 *
 * One step: the kernel of each stage (writing the +1 buffers of state fields and the buffers of
 * temps, reading level 0 / -1), the halo fills of the temps it wrote; copies level 0 -> +1 of
 * state fields the step does not write; rotate; the halo fills of the written state fields
 * with a face that is not fixed (one kernel per axis, x first, each face by its condition). The
 * prologue copies the halo of state fields with a fixed face into their other buffers, fills
 * the halos of every buffer by the boundary conditions, and zeroes temps (a fixed temp halo
 * holds 0). */
#include "emit.h"
#include "opt_temporal.h"
#include "pass.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    CgCtx ctx;
    PlanLaunch *launches;
    int nlaunches, cap;
    const char **emitted; /* names of kernels already in the source */
    const char *suffix;   /* of the stage kernels' names ("" or "_single") */
    const Plan *plan;     /* being built: its ring3 */
    char *why;            /* where a pass explains why it cannot generate the config */
    int whylen;
    int nemitted, cap_emitted;
} Builder;

static int already_emitted(Builder *b, const char *name)
{
    for (int i = 0; i < b->nemitted; i++)
        if (strcmp(b->emitted[i], name) == 0)
            return 1;
    *ARENA_PUSH(b->ctx.arena, b->emitted, b->nemitted, b->cap_emitted) = name;
    return 0;
}

static PlanLaunch *add_launch(Builder *b, const char *kernel, const int block[3], const CgArgs *args)
{
    PlanLaunch *l = ARENA_PUSH(b->ctx.arena, b->launches, b->nlaunches, b->cap);
    memset(l, 0, sizeof *l);
    l->kernel = kernel;
    for (int d = 0; d < 3; d++) {
        l->block[d] = block[d];
        l->axis_of[d] = d;
    }
    l->args = args->args;
    l->nargs = args->nargs;
    return l;
}

static void add_dims(Builder *b, CgArgs *a)
{
    for (int d = 0; d < b->ctx.prog->dims; d++)
        cg_args_add(&b->ctx, a, (PlanArg){ARG_DIM, 0, 0, d}, 0);
}

/* The grid of a whole-padded-buffer kernel: block CG_UTIL_BLOCK x 1 x 1 over the padded extent. */
static void cover_padded(const IrProgram *p, PlanLaunch *l)
{
    for (int d = 0; d < 3; d++) {
        l->tile[d] = d == 0 ? CG_UTIL_BLOCK : 1;
        l->axis_of[d] = d;
        l->extra[d] = 2 * p->halo[d];
    }
}

/* The grid of a kernel over one axis's faces: threads over the other two axes (padded), x first. */
static void cover_faces(const IrProgram *p, PlanLaunch *l, int axis)
{
    int o[2];
    cg_face_axes(axis, o);
    l->tile[0] = CG_UTIL_BLOCK;
    l->axis_of[0] = o[0];
    l->extra[0] = 2 * p->halo[o[0]];
    l->tile[1] = 1;
    l->axis_of[1] = o[1];
    l->extra[1] = 2 * p->halo[o[1]];
    l->tile[2] = 0;
    l->axis_of[2] = 2;
}

/* Halo fills of one buffer of field (level: which one, as an ARG_BUF level). The kernel is the
 * same for every level; only the launch's argument differs. */
static void add_fills(Builder *b, int field, int level)
{
    const IrProgram *p = b->ctx.prog;
    for (int axis = 0; axis < p->dims; axis++) {
        if (p->halo[axis] == 0 || ir_bc_axis_fixed(&p->fields[field], axis))
            continue;
        const char *name = arena_printf(b->ctx.arena, "%s_bc_%s_%c", b->ctx.prefix,
                                        p->fields[field].name, "xyz"[axis]);
        CgArgs args = {0}, launch_args = {0};
        cg_args_add(&b->ctx, &args, (PlanArg){ARG_BUF, field, 0, 0}, 1);
        add_dims(b, &args);
        cg_args_add(&b->ctx, &launch_args, (PlanArg){ARG_BUF, field, level, 0}, 1);
        add_dims(b, &launch_args);
        if (!already_emitted(b, name))
            cg_emit_fill(&b->ctx, field, axis, name, &args);
        int block[3] = {CG_UTIL_BLOCK, 1, 1};
        PlanLaunch *l = add_launch(b, name, block, &launch_args);
        l->fill = 1;
        l->fill_axis = axis;
        cover_faces(p, l, axis);
    }
}

/* A fixed halo set at the start, one launch per axis over that axis's faces (a cost of the
 * halo's size, not the grid's): a state field's copied from its newest buffer into the others
 * (levels), a temp's zeroed (levels: {0}, zero). */
static void add_halo_faces(Builder *b, int field, const int *levels, int nlevels, int zero)
{
    const IrProgram *p = b->ctx.prog;
    for (int axis = 0; axis < p->dims; axis++) {
        if (p->halo[axis] == 0)
            continue;
        const char *name = arena_printf(b->ctx.arena, "%s_%s_%s_%c", b->ctx.prefix, zero ? "zero" : "halo_copy",
                                        p->fields[field].name, "xyz"[axis]);
        CgArgs args = {0};
        for (int i = 0; i < nlevels; i++)
            cg_args_add(&b->ctx, &args, (PlanArg){ARG_BUF, field, levels[i], 0}, 1);
        if (!zero)
            cg_args_add(&b->ctx, &args, (PlanArg){ARG_BUF, field, 0, 0}, 0);
        add_dims(b, &args);
        if (!already_emitted(b, name))
            (zero ? cg_emit_halo_zero : cg_emit_halo_copy)(&b->ctx, field, axis, name, &args);
        int block[3] = {CG_UTIL_BLOCK, 1, 1};
        cover_faces(p, add_launch(b, name, block, &args), axis);
    }
}

/* An unwritten state field's copy, level 0 -> +1, over the whole padded buffer. */
static void add_copy(Builder *b, int field)
{
    const char *name = arena_printf(b->ctx.arena, "%s_copy_%s", b->ctx.prefix, b->ctx.prog->fields[field].name);
    CgArgs args = {0};
    cg_args_add(&b->ctx, &args, (PlanArg){ARG_BUF, field, 1, 0}, 1);
    cg_args_add(&b->ctx, &args, (PlanArg){ARG_BUF, field, 0, 0}, 0);
    add_dims(b, &args);
    if (!already_emitted(b, name))
        cg_emit_copy(&b->ctx, field, name, &args);
    int block[3] = {CG_UTIL_BLOCK, 1, 1};
    cover_padded(b->ctx.prog, add_launch(b, name, block, &args));
}

static int field_written(const IrProgram *p, int f) { return cg_writing_stage(p, f) >= 0; }

static int is_materialized_temp(const IrProgram *p, int f)
{
    return p->fields[f].role == ROLE_TEMP && cg_field_stored(p, f);
}

static void build_prologue(Builder *b)
{
    const IrProgram *p = b->ctx.prog;
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if (is_materialized_temp(p, f)) {
            const int lv0[1] = {0};
            add_halo_faces(b, f, lv0, 1, 1);
            continue;
        }
        if (fl->role == ROLE_STATE && ir_bc_any(fl, BC_FIXED) && fl->levels > 1) {
            const int others[3] = {1, -1, 2}; /* level +2: the fourth buffer of Plan.ring3 */
            add_halo_faces(b, f, others, plan_buffers(b->plan, f) - 1, 0);
        }
        if (fl->role != ROLE_TEMP && !ir_bc_all(fl, BC_FIXED)) {
            /* every buffer of the field, as the interpreter's start of a run does */
            add_fills(b, f, 0);
            if (fl->role == ROLE_STATE && fl->levels > 2)
                add_fills(b, f, -1);
            if (fl->role == ROLE_STATE)
                add_fills(b, f, 1);
        }
    }
}

static int build_step(Builder *b)
{
    const IrProgram *p = b->ctx.prog;
    const Config *c = b->ctx.cfg;
    for (int s = 0; s < p->nstages; s++) {
        const char *name = p->nstages == 1
                               ? arena_printf(b->ctx.arena, "%s_step%s", b->ctx.prefix, b->suffix)
                               : arena_printf(b->ctx.arena, "%s_stage%d%s", b->ctx.prefix, s, b->suffix);
        CgArgs args = {0};
        cg_stage_args(&b->ctx, s, &args);
        int block[3] = {c->v[P_TBX], c->v[P_TBY], c->v[P_TBZ]};
        PlanLaunch *l = add_launch(b, name, block, &args);
        for (int d = 0; d < 3; d++)
            l->tile[d] = block[d];
        if (cg_pass_for(c)->build(&b->ctx, s, name, &args, l, b->why, b->whylen) != 0)
            return -1;
        for (int f = 0; f < p->nfields; f++)
            if (is_materialized_temp(p, f) && cg_writing_stage(p, f) == s &&
                !ir_bc_all(&p->fields[f], BC_FIXED))
                add_fills(b, f, 0);
    }
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if (fl->role == ROLE_STATE && !field_written(p, f))
            add_copy(b, f);
    }
    PlanLaunch *last = &b->launches[b->nlaunches - 1];
    last->rotate_after = 1;
    if (last->steps < 1)
        last->steps = 1;
    /* a fused launch leaves steps t+K-1 and t+K of a three-level field (opt_temporal.c) */
    int two_levels = last->steps > 1;
    for (int f = 0; f < p->nfields; f++)
        if (two_levels && p->fields[f].role == ROLE_STATE && p->fields[f].levels == 3)
            last->rotate_after = 2;
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if (fl->role == ROLE_STATE && !ir_bc_all(fl, BC_FIXED) && field_written(p, f)) {
            add_fills(b, f, 0);
            if (two_levels && fl->levels == 3) /* the older level's halo, as when it was newest */
                add_fills(b, f, -1);
        }
    }
    return 0;
}

static int check_program(const IrProgram *prog, char *why, int whylen)
{
    if (prog->dims < 1 || prog->dims > 3) {
        snprintf(why, (size_t)whylen, "grid dimension %d is not 1, 2 or 3", prog->dims);
        return 0;
    }
    if (prog->nstages < 1) {
        snprintf(why, (size_t)whylen, "the step has no stage");
        return 0;
    }
    if (prog->nfields > 64) {
        snprintf(why, (size_t)whylen, "more than 64 fields");
        return 0;
    }
    for (int f = 0; f < prog->nfields; f++) {
        int lv = prog->fields[f].levels;
        if (prog->fields[f].role == ROLE_STATE && (lv < 2 || lv > 3)) {
            snprintf(why, (size_t)whylen, "state field %s has %d levels (2 or 3 supported)",
                     prog->fields[f].name, lv);
            return 0;
        }
    }
    int writes = 0;
    for (int s = 0; s < prog->nstages; s++)
        writes += prog->stages[s].nwrites;
    if (writes == 0) {
        snprintf(why, (size_t)whylen, "the step writes nothing");
        return 0;
    }
    return 1;
}

/* The builder's context over plan's program and configuration, and the source's heading. */
static void builder_init(Builder *b, Plan *plan, Arena *arena, StrBuf *src)
{
    const IrProgram *prog = plan->prog;
    b->plan = plan;
    b->ctx.prog = prog;
    b->ctx.cfg = &plan->config;
    b->ctx.arena = arena;
    b->ctx.prefix = cg_prefix(arena, prog);
    b->ctx.T = ir_elem_name(prog->type);
    b->ctx.kb = (Kb){arena, prog->type};
    b->ctx.module = &plan->module;
    b->ctx.src = src;
    b->ctx.idx = "idx";
    char cfgtext[256];
    config_format(&plan->config, cfgtext, sizeof cfgtext);
    sb_printf(src, "/* Device code of stencil %s, generated by stencilc %s.\n * Configuration: %s%s\n"
              " * Element type %s; halo %d x %d x %d. Compiles with NVRTC as is, with no headers. */\n\n",
              b->ctx.prefix, cg_version(), cfgtext, cg_arith_note(prog), b->ctx.T,
              prog->halo[0], prog->halo[1], prog->halo[2]);
}

/* The step group under cfg (kernels named with suffix) into *ls / *n; -1 with the reason. */
static int build_group(Builder *b, const Config *cfg, const char *suffix, PlanLaunch **ls, int *n)
{
    b->ctx.cfg = cfg;
    b->suffix = suffix;
    b->launches = NULL;
    b->nlaunches = b->cap = 0;
    if (build_step(b) != 0)
        return -1;
    *ls = b->launches;
    *n = b->nlaunches;
    return 0;
}

/* The configuration of the single step that runs the steps the fused ones leave over: the plain
 * kernel with the plan's thread block. */
static Config single_config(const Plan *plan)
{
    Config plain = config_default(plan->prog->dims);
    for (int d = 0; d < 3; d++)
        plain.v[P_TBX + d] = plan->config.v[P_TBX + d];
    return plain;
}

/* The fused step (plan->fused, emit_reduce_fused.c) where some reductions fuse: the launches of
 * one step, the plan's own (the plain and tile families) or its single step's (temporal
 * blocking: the last step is a single one), the last stage's kernel built again by its family
 * with the fold, NAME_step_reduce or NAME_stageS_reduce. */
static int build_fused(Builder *b, Plan *plan)
{
    const IrProgram *p = plan->prog;
    Arena *a = b->ctx.arena;
    int single = plan->step_count > 1, s = p->nstages - 1;
    Config cfg = single ? single_config(plan) : plan->config;
    cg_choose_fused(&b->ctx, plan, &cfg);
    if (!plan->nfused_reduces)
        return 0;
    const char *suffix = single ? "_single" : "";
    const char *last = p->nstages == 1 ? arena_printf(a, "%s_step%s", b->ctx.prefix, suffix)
                                       : arena_printf(a, "%s_stage%d%s", b->ctx.prefix, s, suffix);
    const char *name = p->nstages == 1 ? arena_printf(a, "%s_step_reduce", b->ctx.prefix)
                                       : arena_printf(a, "%s_stage%d_reduce", b->ctx.prefix, s);
    plan->nfused = single ? plan->nsingle : plan->nstep;
    plan->fused = arena_alloc(a, sizeof *plan->fused * (size_t)plan->nfused);
    memcpy(plan->fused, single ? plan->single : plan->step, sizeof *plan->fused * (size_t)plan->nfused);
    PlanLaunch *l = NULL;
    for (int i = 0; i < plan->nfused; i++)
        if (strcmp(plan->fused[i].kernel, last) == 0)
            l = &plan->fused[i];
    if (!l) {
        snprintf(b->why, (size_t)b->whylen, "the step has no launch of %s", last);
        return -1;
    }
    CgArgs args = {0};
    cg_stage_args(&b->ctx, s, &args);
    cg_fused_args(&b->ctx, plan, &args);
    l->kernel = name;
    l->args = args.args;
    l->nargs = args.nargs;
    b->ctx.cfg = &cfg;
    b->ctx.fold = plan;
    int status = cg_pass_for(&cfg)->build(&b->ctx, s, name, &args, l, b->why, b->whylen);
    b->ctx.fold = NULL;
    for (int d = 0; d < 3; d++) { /* what its partials count */
        plan->fused_tile[d] = l->tile[d];
        plan->fused_extra[d] = l->extra[d];
    }
    l->smem_static = plan->nfused_reduces * l->block[0] * l->block[1] * l->block[2] * (int)sizeof(double);
    return status;
}

/* The prologue, the step and, when the step fuses several, the plain single step. */
static int build_groups(Builder *b, Plan *plan, char *why, int whylen)
{
    build_prologue(b);
    plan->prologue = b->launches;
    plan->nprologue = b->nlaunches;
    b->why = why;
    b->whylen = whylen;
    if (build_group(b, &plan->config, "", &plan->step, &plan->nstep) != 0)
        return -1;
    plan->step_count = 1;
    for (int i = 0; i < plan->nstep; i++)
        if (plan->step[i].steps > plan->step_count)
            plan->step_count = plan->step[i].steps;
    plan->single = plan->step;
    plan->nsingle = plan->nstep;
    if (plan->step_count > 1) {
        /* Steps left over by the fused launches run one at a time with the plain kernel. */
        Config plain = single_config(plan);
        if (build_group(b, &plain, "_single", &plan->single, &plan->nsingle) != 0)
            return -1;
        for (int d = 0; d < 3; d++)
            plan->fused_min_n[d] = cg_temporal_min_extent(plan->prog, &plan->config, d);
    }
    if (build_fused(b, plan) != 0)
        return -1;
    b->ctx.cfg = &plan->config;
    return 0;
}

/* A copy of p whose periodic or reflecting state fields are fixed on every face (wrap: periodic):
 * fused steps built over it hold the halo, or wrap within the launched grid (Plan.held). */
static const IrProgram *held_program(const IrProgram *p, int wrap, Arena *a)
{
    BoundaryKind bc = BC_FIXED;
    if (cg_temporal_edge(p, &bc) != TB_WRAP || (wrap && bc == BC_PERIODIC))
        return p;
    IrProgram *q = arena_alloc(a, sizeof *q);
    IrField *fields = arena_alloc(a, sizeof *fields * (size_t)p->nfields);
    *q = *p;
    memcpy(fields, p->fields, sizeof *fields * (size_t)p->nfields);
    const int reflects = cg_temporal_reflects(p);
    for (int f = 0; f < p->nfields; f++)
        if (fields[f].role == ROLE_STATE && (reflects || cg_temporal_edge_of(&fields[f]) == TB_WRAP))
            ir_bc_set(&fields[f], wrap ? BC_PERIODIC : BC_FIXED, 0.0);
    q->fields = fields;
    return q;
}

static int held_wraps(const Config *c) { return c->v[P_HWRAP] == 2; }

/* ls's launches but its halo fills, into a new list: a held group's faces are the exchange's or
 * the copies' to fill (the fills come after the launch that rotates). */
static void without_fills(Arena *a, const PlanLaunch *ls, int n, PlanLaunch **out, int *nout)
{
    *out = arena_alloc(a, sizeof **out * (size_t)(n > 0 ? n : 1));
    *nout = 0;
    for (int i = 0; i < n; i++)
        if (!ls[i].fill)
            (*out)[(*nout)++] = ls[i];
}

/* Plan.held: the step group again, over held_program, where the fused steps wrap or reflect
 * (the group's own kernels where that program is the plan's), without the fills of periodic or
 * reflecting faces, which a distributed run exchanges or reflects by a copy instead. */
static int build_held(Builder *b, Plan *plan)
{
    if (plan->step_count <= 1 || cg_temporal_edge(plan->prog, NULL) != TB_WRAP)
        return 0;
    const IrProgram *q = held_program(plan->prog, held_wraps(&plan->config), b->ctx.arena);
    for (int d = 0; d < 3; d++)
        plan->held_min_n[d] = cg_temporal_min_extent(q, &plan->config, d);
    PlanLaunch *ls = plan->step;
    int n = plan->nstep;
    if (q != plan->prog) {
        b->ctx.prog = q;
        int status = build_group(b, &plan->config, "_held", &ls, &n);
        b->ctx.prog = plan->prog;
        b->ctx.cfg = &plan->config;
        if (status != 0)
            return status;
    }
    without_fills(b->ctx.arena, ls, n, &plan->held, &plan->nheld);
    return 0;
}

int plan_buffers(const Plan *plan, int f)
{
    const IrField *fl = &plan->prog->fields[f];
    if (fl->role != ROLE_STATE)
        return 1;
    return fl->levels == 3 && plan->ring3 == 4 ? 4 : fl->levels;
}

int plan_slot(const Plan *plan, int f, int level)
{
    return level <= 0 ? -level : plan_buffers(plan, f) - level;
}

int plan_rotations(const Plan *plan, const PlanLaunch *l, int f)
{
    const IrField *fl = &plan->prog->fields[f];
    if (!l->rotate_after || fl->role != ROLE_STATE)
        return 0;
    return l->rotate_after == 2 && fl->levels == 3 ? 2 : 1;
}

static Plan *build(const IrProgram *prog, const Config *c, int distributed, Arena *arena, char *why, int whylen)
{
    char scratch[256];
    if (!why || whylen <= 0) {
        why = scratch;
        whylen = (int)sizeof scratch;
    }
    why[0] = 0;
    if (!prog || !c) {
        snprintf(why, (size_t)whylen, "no program or configuration");
        return NULL;
    }
    if (!check_program(prog, why, whylen))
        return NULL;
    Space space;
    /* grid size unknown: size-dependent constraints skipped */
    if (distributed)
        space_init_distributed(&space, prog, NULL);
    else
        space_init(&space, prog, NULL);
    if (!space_check(&space, c, why, whylen))
        return NULL;
    Plan *plan = arena_alloc(arena, sizeof *plan);
    plan->prog = prog;
    plan->config = *c;
    plan->ring3 = cg_temporal_wants(c) ? 4 : 3;
    StrBuf src = {0};
    Builder b = {0};
    builder_init(&b, plan, arena, &src);
    int held = distributed || c->v[P_HOLD] == 2;
    if (build_groups(&b, plan, why, whylen) != 0 || (held && build_held(&b, plan) != 0)) {
        sb_free(&src);
        return NULL;
    }
    cg_hold_setup(plan);
    cg_hold_kernels(plan, arena, b.ctx.prefix, &src);
    cg_build_reductions(&b.ctx, plan);
    for (int f = 0; f < prog->nfields; f++)
        plan->needs_temp |= is_materialized_temp(prog, f);
    plan->source = arena_strdup(arena, src.data ? src.data : "");
    sb_free(&src);
    return plan;
}

Plan *plan_build(const IrProgram *prog, const Config *c, Arena *arena, char *why, int whylen)
{
    return build(prog, c, 0, arena, why, whylen);
}

Plan *plan_build_dist(const IrProgram *prog, const Config *c, Arena *arena, char *why, int whylen)
{
    return build(prog, c, 1, arena, why, whylen);
}

const IrProgram *plan_part_program(const IrProgram *prog, const Config *c, Arena *arena)
{
    return held_program(prog, held_wraps(c), arena);
}

Plan *plan_build_part(const IrProgram *prog, const Config *c, Arena *arena, char *why, int whylen)
{
    Config part = *c;
    part.v[P_HWRAP] = 1; /* applied to the program */
    return plan_build(plan_part_program(prog, c, arena), &part, arena, why, whylen);
}
