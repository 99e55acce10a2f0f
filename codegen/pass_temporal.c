/* The temporal pass: tblock > 1 fuses that many time steps in one launch (codegen/opt_temporal*.c
 * build the kernels; with stream, AN5D-style streaming). Every constraint holds trivially when
 * tblock is 1 (off). */
#include "opt_temporal.h"
#include "pass.h"

#include <stdio.h>

/* Shared memory one block may use with the opt-in (H100: 227 KiB). */
enum { TB_SMEM_MAX = 227 * 1024 };
/* Streaming: the plane loop is unrolled Q times (Q = 2R+1, 2R+2 for a 2D box: TbsGeom.Q) with K
 * step bodies each (per column of a thread); each state field keeps K queues of Q registers per
 * column (with bm=1xCx1, C columns: at most 96 registers bounds the C*Q*K bodies too). */
enum { TBS_MAX_BODIES = 64, TBS_MAX_QUEUE_REGS = 96 };

static int on(const Config *c) { return c->v[P_TB] > 1; }

static int streaming(const Config *c) { return c->v[P_STREAM] == 2; }

/* Streaming is the exception to c_alone: with it the temporal kernel streams along the axis
 * (opt_temporal_stream.c), with the stream pass's stream, sb and retime, and the tile pass's bm
 * for the columns a thread holds (tblock-columns says which). */
static int combines(const Config *c, ParamId id)
{
    return streaming(c) && (id == P_STREAM || id == P_SD || id == P_SB || id == P_RETIME || id == P_BMX ||
                            id == P_BMY || id == P_BMZ);
}

static int refuse(const Config *c, ParamId id, char *why, int whylen)
{
    char item[48];
    config_item(c, id, item, sizeof item);
    if (streaming(c) && (id == P_REGQ || id == P_PREFETCH || id == P_ASYNC))
        snprintf(why, (size_t)whylen, "tblock=%d with %s: the streaming temporal kernel always keeps "
                 "the own column in registers and the in-plane tile in shared memory, and always "
                 "loads one plane ahead", c->v[P_TB], item);
    else
        snprintf(why, (size_t)whylen, "tblock=%d with %s: temporal blocking is its own kernel and "
                 "combines with no other optimization but streaming (stream, sb, retime)", c->v[P_TB],
                 item);
    return 0;
}

/* The temporal kernel is its own mapping: the other passes' parameters would be ignored, and one
 * kernel measured under several names; so every parameter of every other pass in the table (not
 * the launch's, which every kernel takes) stays off, a new pass's too. */
static int c_alone(const Space *s, const Config *c, char *why, int whylen)
{
    (void)s;
    if (!on(c))
        return 1;
    for (int i = 0; i < cg_npasses; i++) {
        const CgPass *p = cg_passes[i];
        if (!p->applies || cg_pass_builds(p, c))
            continue;
        for (const CgParam *r = p->params; r && r->key; r++)
            for (int k = 0; k < cg_param_ids(r); k++)
                if (c->v[r->first + k] != 1 && !combines(c, (ParamId)(r->first + k)))
                    return refuse(c, (ParamId)(r->first + k), why, whylen);
    }
    return 1;
}

/* Streaming with temporal blocking: along z in 3D (the x-y plane is the tile), one thread per
 * column, at least 8 output planes per block, and a plane loop of bounded size. */
static int c_stream(const Space *s, const Config *c, char *why, int whylen)
{
    const IrProgram *p = s->prog;
    if (!on(c) || !streaming(c))
        return 1;
    int dims = p ? p->dims : 3;
    if (dims < 2) {
        snprintf(why, (size_t)whylen, "tblock=%d with stream: streaming needs a 2D or 3D grid", c->v[P_TB]);
        return 0;
    }
    if (dims == 3 && c->v[P_SD] != 2) {
        snprintf(why, (size_t)whylen, "tblock=%d with stream=y on a 3D grid: temporal streaming walks z "
                 "(the x-y plane is the tile); use stream=z", c->v[P_TB]);
        return 0;
    }
    int sd = dims >= 3 ? 2 : 1;
    if (c->v[P_TBX + sd] != 1) {
        snprintf(why, (size_t)whylen, "tblock=%d with stream: tb=%dx%dx%d has %d threads along %c, but "
                 "a streaming block has one thread per column (1 along %c)", c->v[P_TB], c->v[P_TBX],
                 c->v[P_TBY], c->v[P_TBZ], c->v[P_TBX + sd], "xyz"[sd], "xyz"[sd]);
        return 0;
    }
    if (c->v[P_SB] < 8) {
        snprintf(why, (size_t)whylen, "tblock=%d with stream: sb=%d, give each block at least 8 output "
                 "planes", c->v[P_TB], c->v[P_SB]);
        return 0;
    }
    if (!p)
        return 1;
    TbsGeom g;
    cg_temporal_stream_geom(p, c, &g);
    /* queue registers, and with retime the partial sums; a three-level field's older level; per
     * column of the thread */
    int three = 0;
    for (int f = 0; f < p->nfields; f++)
        three += p->fields[f].role == ROLE_STATE && p->fields[f].levels == 3;
    int regs = ((g.Q + (g.retime ? 2 * g.R + 1 : 0)) * g.K * ir_state_fields(p, NULL) + g.Q * three) * g.C;
    if (g.Q * g.K > TBS_MAX_BODIES || regs > TBS_MAX_QUEUE_REGS) {
        snprintf(why, (size_t)whylen, "tblock=%d with stream and halo %d along %c: the plane loop would "
                 "hold %d step bodies (at most %d) and %d queue registers a thread (at most %d)", g.K, g.R,
                 "xyz"[sd], g.Q * g.K, TBS_MAX_BODIES, regs, TBS_MAX_QUEUE_REGS);
        return 0;
    }
    long n = s->n[sd];
    if (n > 0 && c->v[P_SB] / 2 >= n) {
        snprintf(why, (size_t)whylen, "tblock=%d with stream: sb=%d is beyond the %ld points along %c "
                 "(sb=%d already covers the axis)", g.K, c->v[P_SB], n, "xyz"[sd], c->v[P_SB] / 2);
        return 0;
    }
    return 1;
}

/* Retiming inside the streaming temporal kernel (opt_temporal_retime.c): a weighted sum of the
 * one state field's reads. */
static int c_retime(const Space *s, const Config *c, char *why, int whylen)
{
    if (!on(c) || !streaming(c) || c->v[P_RETIME] != 2 || !s->prog)
        return 1;
    return cg_temporal_retime_ok(s->prog, why, whylen);
}

/* Several columns per thread (bm=1xCx1, TbsGeom.C): in 3D, adjacent along y. */
static int c_columns(const Space *s, const Config *c, char *why, int whylen)
{
    if (!on(c) || !streaming(c))
        return 1;
    return cg_temporal_columns_ok(s->prog, c, why, whylen);
}

static int c_stages(const Space *s, const Config *c, char *why, int whylen)
{
    if (!on(c) || !s->prog || s->prog->nstages == 1)
        return 1;
    snprintf(why, (size_t)whylen, "tblock=%d: the step has %d stages; temporal blocking fuses steps of "
             "one stage (a stage boundary needs the whole grid of a temp between stages)", c->v[P_TB],
             s->prog->nstages);
    return 0;
}

static int c_fields(const Space *s, const Config *c, char *why, int whylen)
{
    const IrProgram *p = s->prog;
    if (!on(c) || !p)
        return 1;
    for (int f = 0; f < p->nfields; f++) {
        const IrField *fl = &p->fields[f];
        if (fl->role == ROLE_TEMP && cg_field_stored(p, f)) {
            snprintf(why, (size_t)whylen, "tblock=%d: temp %s lives in memory; temporal blocking keeps "
                     "no temp between fused steps", c->v[P_TB], fl->name);
            return 0;
        }
        if (fl->role != ROLE_STATE)
            continue;
        if (fl->levels == 3 && streaming(c) && c->v[P_RETIME] == 2) {
            snprintf(why, (size_t)whylen, "tblock=%d: state %s has 3 time levels; the retimed kernel keeps "
                     "partial sums of one level: retime=off takes it", c->v[P_TB], fl->name);
            return 0;
        }
        if (cg_writing_stage(p, f) < 0) {
            snprintf(why, (size_t)whylen, "tblock=%d: state %s is not written by the step; temporal "
                     "blocking needs every state field written", c->v[P_TB], fl->name);
            return 0;
        }
    }
    return 1;
}

/* select=on: the plain streaming temporal kernel computes every column's point and keeps it where
 * the point is computed; so a column outside the grid reads too: shared rings only (padded), no
 * field from memory, where such a column has no point. */
static int c_select(const Space *s, const Config *c, char *why, int whylen)
{
    const IrProgram *p = s->prog;
    if (c->v[P_SELECT] != 2)
        return 1;
    if (!on(c) || !streaming(c) || c->v[P_RETIME] == 2) {
        snprintf(why, (size_t)whylen, "select=on: the streaming temporal kernel's option (tblock with "
                 "stream, retime=off)");
        return 0;
    }
    for (int i = 0; p && p->nstages > 0 && i < p->stages[0].nnodes; i++) {
        const IrNode *n = &p->stages[0].nodes[i];
        if (n->op == N_READ && p->fields[n->field].role != ROLE_STATE) {
            snprintf(why, (size_t)whylen, "select=on: the step reads %s from memory, and a column "
                     "outside the grid has no point there; select=off branches around it",
                     p->fields[n->field].name);
            return 0;
        }
    }
    return 1;
}

/* The boundary conditions fused steps take (opt_temporal.h's TbEdge): one class for all state
 * fields and all their faces (a field whose faces differ: fixed and constant only); clamp and
 * mirror (unless they reflect: opt_temporal_geom.c) not retimed; in a distributed run's local part
 * (where the faces between ranks hold received layers) fixed, constant, periodic (whose faces are
 * exchanged too) and reflecting clamp and mirror (whose global faces are reflected by a copy
 * before each launch: Plan.held); mirror on a grid deeper than the tblock*halo points it reflects. */
static int c_edges(const Space *s, const Config *c, char *why, int whylen)
{
    const IrProgram *p = s->prog;
    if (!on(c) || !p)
        return 1;
    BoundaryKind bc = BC_FIXED;
    TbEdge edge = cg_temporal_edge(p, &bc);
    const char *what = NULL;
    for (int f = 0; f < p->nfields && edge == TB_MIXED; f++) {
        const IrField *fl = &p->fields[f];
        if (fl->role == ROLE_STATE && !ir_bc_uniform(fl) && cg_temporal_edge_of(fl) != TB_HOLD) {
            snprintf(why, (size_t)whylen, "tblock=%d: state %s has a boundary per axis or face with periodic, "
                     "clamp or mirror; fused steps take one condition on every face (or fixed and constant "
                     "faces in any mix)", c->v[P_TB], fl->name);
            return 0;
        }
    }
    if (edge == TB_MIXED)
        what = "its state fields mix boundary kinds; fused steps need one kind for all (fixed and "
               "constant together)";
    else if (edge == TB_MAP && streaming(c) && c->v[P_RETIME] == 2)
        what = "the retimed temporal kernel keeps partial sums, not the planes a clamp or mirror halo "
               "copies (a step symmetric along every axis reflects instead, docs/config.md); retime=off "
               "takes it";
    else if (edge == TB_MAP && s->distributed)
        what = "in a distributed run fused steps keep the layers received from other ranks, which the "
               "global faces of this boundary would overwrite between steps; fixed, constant, periodic, "
               "and clamp and mirror where the step is symmetric along every axis (--dump-ir)";
    if (what) {
        snprintf(why, (size_t)whylen, "tblock=%d with boundary %s: %s", c->v[P_TB], ir_bc_name(bc), what);
        return 0;
    }
    for (int d = 0; d < p->dims; d++) {
        int least = cg_temporal_min_extent(p, c, d);
        if (s->n[d] > 0 && s->n[d] < least) {
            snprintf(why, (size_t)whylen, "tblock=%d with boundary %s: fused steps reach %d points past the "
                     "grid's edge along %c, which has %ld; need at least %d", c->v[P_TB], ir_bc_name(bc),
                     least - 2, "xyz"[d], s->n[d], least);
            return 0;
        }
    }
    return 1;
}

/* Output tile = extended tile - 2*tblock*R per axis; it must keep at least half the extended
 * tile, or most of the work is the redundant halo: 4*tblock*R <= E on every axis with a halo
 * (E = tb, and along the last axis tb times the points per thread, see opt_temporal.h). */
static int c_tile(const Space *s, const Config *c, char *why, int whylen)
{
    const IrProgram *p = s->prog;
    if (!on(c) || !p)
        return 1;
    TbGeom g;
    cg_temporal_geom(p, c, &g);
    if (streaming(c)) { /* in-plane axes only: the streaming axis has no redundant tile */
        TbsGeom sg;
        cg_temporal_stream_geom(p, c, &sg);
        for (int d = 0; d < 3; d++) {
            g.E[d] = sg.E[d];
            g.R[d] = d == sg.sd ? 0 : sg.H[d];
            g.O[d] = sg.O[d];
        }
    }
    for (int d = 0; d < p->dims; d++) {
        if (4 * g.K * g.R[d] > g.E[d]) {
            snprintf(why, (size_t)whylen, "tblock=%d with halo %d: the output tile along %c (%d of the "
                     "extended tile's %d) would be less than half; need 4*tblock*halo <= %d", g.K, g.R[d],
                     "xyz"[d], g.O[d], g.E[d], g.E[d]);
            return 0;
        }
    }
    return 1;
}

static int c_smem(const Space *s, const Config *c, char *why, int whylen)
{
    const IrProgram *p = s->prog;
    if (!on(c) || !p)
        return 1;
    TbGeom g;
    cg_temporal_geom(p, c, &g);
    long long bytes = cg_temporal_smem(p, &g);
    if (streaming(c)) {
        TbsGeom sg;
        cg_temporal_stream_geom(p, c, &sg);
        bytes = cg_temporal_stream_smem(p, &sg);
        if (bytes > TB_SMEM_MAX) {
            snprintf(why, (size_t)whylen, "tblock=%d with stream: %d rings of %d planes of %lld points "
                     "per state field (one more for three levels) need %lld bytes of shared memory; a "
                     "block gets at most %d", sg.K,
                     sg.K, sg.Q, sg.plane, bytes, TB_SMEM_MAX);
            return 0;
        }
        return 1;
    }
    if (bytes > TB_SMEM_MAX) {
        snprintf(why, (size_t)whylen, "tblock=%d: two buffers of the %dx%dx%d tile per state field (three "
                 "for three levels) need %lld bytes of shared memory; a block gets at most %d", g.K, g.E[0],
                 g.E[1], g.E[2], bytes, TB_SMEM_MAX);
        return 0;
    }
    return 1;
}

static int c_grid(const Space *s, const Config *c, char *why, int whylen)
{
    const IrProgram *p = s->prog;
    if (!on(c) || !p)
        return 1;
    TbGeom g;
    cg_temporal_geom(p, c, &g);
    if (streaming(c)) {
        TbsGeom sg;
        cg_temporal_stream_geom(p, c, &sg);
        for (int d = 0; d < 3; d++)
            g.O[d] = sg.O[d];
    }
    for (int d = 1; d < p->dims; d++) {
        if (s->n[d] <= 0 || g.O[d] <= 0)
            continue;
        long blocks = (s->n[d] + g.O[d] - 1) / g.O[d];
        if (blocks > 65535) {
            snprintf(why, (size_t)whylen, "tblock=%d: %ld blocks of %d output points along %c; CUDA "
                     "allows at most 65535", g.K, blocks, g.O[d], "xyz"[d]);
            return 0;
        }
    }
    return 1;
}

/* Whether hold=on may apply to p: fused steps that wrap or reflect (TB_WRAP), of two-level fields
 * (a three-level field keeps a fourth buffer: not held yet). */
static int hold_may(const IrProgram *p)
{
    int may = p && cg_temporal_edge(p, NULL) == TB_WRAP;
    for (int f = 0; may && f < p->nfields; f++)
        may = !(p->fields[f].role == ROLE_STATE && p->fields[f].levels > 2);
    return may;
}

/* A constraint's answer about key=on: refused with the reason `what` (1 where it is NULL). */
static int on_refused(const char *key, const char *what, char *why, int whylen)
{
    if (!what)
        return 1;
    snprintf(why, (size_t)whylen, "%s=on: %s", key, what);
    return 0;
}

/* hold=on (codegen/hold.c): the fused steps run over copies of the state and coef fields that
 * extend every face by the layers they reach, which a copy refills by wrapping or reflecting
 * before each launch, so the kernel is the fixed boundary's. On one GPU, with no built-in
 * coordinate or extent (the launch sees the extended grid). */
static int c_hold(const Space *s, const Config *c, char *why, int whylen)
{
    const IrProgram *p = s->prog;
    if (c->v[P_HOLD] != 2)
        return 1;
    const char *what = NULL;
    if (!on(c))
        what = "it holds the halo through fused steps: tblock above 1";
    else if (p && !hold_may(p))
        what = "the fused steps must wrap (periodic) or reflect (clamp or mirror of a step symmetric "
               "along every axis), of two-level fields; a fixed boundary's kernel holds its halo already";
    else if (s->distributed)
        what = "a distributed run's part holds its faces anyway (Plan.held)";
    else if (p && (ir_program_builtins(p) & ~IR_USES_STEP))
        what = "the step reads x, y, z, nx, ny or nz, which the extended grid would shift";
    return on_refused("hold", what, why, whylen);
}

/* hold's values: on and off where it may apply, else off (a replay's space, with no program,
 * too: its recordings predate it; a distributed part's, whose faces are held anyway). */
static void hold_values(const Space *s, SpaceParam *sp)
{
    sp->nvalues = 0;
    sp->values[sp->nvalues++] = 1;
    if (hold_may(s->prog) && !s->distributed)
        sp->values[sp->nvalues++] = 2;
}

/* hwrap=on (plan.c, Plan.held): the held fused steps wrap the extended grid they are launched
 * over instead of holding its faces, where they are held (a distributed run's part, or hold=on),
 * of a program whose fused steps wrap or reflect. */
static int c_hwrap(const Space *s, const Config *c, char *why, int whylen)
{
    const IrProgram *p = s->prog;
    if (c->v[P_HWRAP] != 2)
        return 1;
    const char *what = NULL;
    if (!on(c))
        what = "it chooses the kernel of fused steps: tblock above 1";
    else if (p && cg_temporal_edge(p, NULL) != TB_WRAP)
        what = "the fused steps must wrap (periodic) or reflect (clamp or mirror of a step symmetric along "
               "every axis)";
    else if (!s->distributed && c->v[P_HOLD] != 2)
        what = "only held steps take it: a distributed run's part, or hold=on";
    return on_refused("hwrap", what, why, whylen);
}

/* hwrap's values: on and off for a distributed part whose fused steps wrap or reflect, and on one
 * GPU where hold=on may apply to a reflecting program (held over a periodic one, hold=on would
 * only add copies to the kernel without it). */
static void hwrap_values(const Space *s, SpaceParam *sp)
{
    const IrProgram *p = s->prog;
    sp->nvalues = 0;
    sp->values[sp->nvalues++] = 1;
    if (p && cg_temporal_edge(p, NULL) == TB_WRAP && (s->distributed || (hold_may(p) && cg_temporal_reflects(p))))
        sp->values[sp->nvalues++] = 2;
}

static const SpaceConstraint constraints[] = {
    {"tblock-alone", c_alone, "temporal blocking combines with no other optimization but streaming "
                              "(stream, sb, retime)"},
    {"tblock-stream", c_stream, "with streaming: along z in 3D, one thread per column, sb >= 8 and "
                                "within the axis, (2R+1)*tblock <= 64 step bodies and <= 96 queue registers"},
    {"tblock-columns", c_columns, "with streaming, C columns a thread: bm=1xCx1 in 3D (adjacent along y), "
                                  "bm=Cx1 in 2D (adjacent along x; not retimed)"},
    {"tblock-retime", c_retime, "retime with tblock: one stage, a weighted sum of reads of its one state "
                                "field"},
    {"tblock-stages", c_stages, "temporal blocking fuses steps of a single-stage step"},
    {"tblock-fields", c_fields, "temporal blocking needs every state field written, and no temp in "
                                "memory; three-level fields not retimed, on one GPU"},
    {"tblock-edges", c_edges, "one boundary kind for all state fields and all their faces (fixed and "
                              "constant together); clamp and mirror without retime; fixed or constant "
                              "in a distributed run; grids deeper than fused steps reach"},
    {"tblock-tile", c_tile, "the output tile (extended tile - 2*tblock*halo) keeps at least half of it"},
    {"tblock-smem", c_smem, "two shared buffers of the extended tile per state field, three for three "
                            "levels (streaming: tblock rings of 2R+1 planes, 2 planes retimed) fit the 227 "
                            "KiB of a block"},
    {"tblock-grid", c_grid, "at most 65535 blocks of output tiles along y and z"},
    {"tblock-hold", c_hold, "hold=on: fused steps that wrap or reflect, two-level fields, one GPU, no "
                            "x, y, z, nx, ny or nz read"},
    {"tblock-hwrap", c_hwrap, "hwrap=on: held fused steps (a distributed part, or hold=on) that wrap or "
                              "reflect"},
    {"tblock-select", c_select, "select=on: the streaming temporal kernel (retime=off) of a step that "
                                "reads state fields only"},
    {0},
};

static const int onoff[] = {1, 2};

/* Powers of two and the multiples of 3 between them: on the H100 (2026-11-23, one barrier per
 * plane) star3d1r fused 3 steps at 481 GStencil/s against 412 with 2 and 426 with 4, star2d1r
 * 12 at 1412 against 1291 with 8 and 1346 with 16; 5 and 10 (AN5D's degrees on a V100)
 * measured no better than their neighbours. */
static const int tblock_values[] = {1, 2, 3, 4, 6, 8, 12, 16};

static const CgParam params[] = {
    {.key = "tblock", .kind = PK_NUMBER, .first = P_TB, .pos = 12, .flags = PF_STEPS, .dims = 1,
     .values = tblock_values, .nvalues = 8,
     .doc_values = "positive integer (the space: 2, 3, 4, 6, 8, 12, 16), at most the run's steps",
     .doc = "temporal blocking: time steps fused in one launch"},
    {.key = "select", .kind = PK_BOOL, .first = P_SELECT, .pos = 15, .dims = 2, .values = onoff,
     .nvalues = 2, .doc_values = "on/off",
     .doc = "streaming temporal kernel: each fused step computes every column's point and selects "
            "the passed-through value where it is not computed, instead of branching around it"},
    {.key = "hold", .kind = PK_BOOL, .first = P_HOLD, .pos = 16, .dims = 1, .values_of = hold_values,
     .doc_values = "on/off",
     .doc = "fused steps that wrap or reflect run the fixed boundary's kernel over copies of the "
            "fields extended by the layers they reach, refilled before each launch (one GPU)"},
    {.key = "hwrap", .kind = PK_BOOL, .first = P_HWRAP, .pos = 17, .dims = 1, .values_of = hwrap_values,
     .doc_values = "on/off",
     .doc = "held fused steps (a distributed run's part, or hold=on) compute every point of the "
            "extended grid and wrap their loads within it, instead of holding its faces"},
    {0},
};

const CgPass cg_pass_temporal = {
    .name = "temporal",
    .params = params,
    .constraints = constraints,
    .applies = cg_temporal_wants,
    .build = cg_emit_stage_temporal,
};
