/* The static feature vector of a variant (feat.h): the program, the configuration, what
 * the plan launches, the compiled kernel and the occupancy. */
#include "feat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const feat_names[FEAT_COUNT] = {
#define FEAT_NAME(name) #name,
    FEAT_LIST(FEAT_NAME)
#undef FEAT_NAME
};

int feat_index(const char *name)
{
    for (int i = 0; i < FEAT_COUNT; i++)
        if (!strcmp(feat_names[i], name))
            return i;
    return -1;
}

static double lg(double v) { return v > 0 ? log2(v) : 0; }

/* ---- the program --------------------------------------------------------------------------- */

static int nonlinear_ops(const IrProgram *p)
{
    int n = 0;
    for (int s = 0; s < p->nstages; s++)
        for (int i = 0; i < p->stages[s].nnodes; i++) {
            IrOp op = p->stages[s].nodes[i].op;
            n += op == N_DIV || op == N_SQRT || op == N_RSQRT || op == N_EXP || op == N_LOG
                 || op == N_SIN || op == N_COS || op == N_POW || op == N_TANH || op == N_CBRT
                 || op == N_EXP2 || op == N_LOG2 || op == N_ATAN2 || op == N_FMOD || op == N_HYPOT;
        }
    return n;
}

static void program_features(const Space *s, double *f)
{
    const IrProgram *p = s->prog;
    const IrAnalysis *an = &p->an;
    double points = 1;
    for (int d = 0; d < p->dims; d++)
        points *= (double)s->n[d];
    f[FEAT_p_dims] = p->dims;
    f[FEAT_p_radius] = an->radius;
    f[FEAT_p_points] = an->points;
    f[FEAT_p_flops] = an->flops;
    f[FEAT_p_bytes] = an->bytes_per_point;
    f[FEAT_p_star] = an->shape == SHAPE_STAR;
    f[FEAT_p_box] = an->shape == SHAPE_BOX;
    f[FEAT_p_double] = p->type == ELEM_DOUBLE;
    f[FEAT_p_fields_read] = an->fields_read;
    f[FEAT_p_fields_written] = an->fields_written;
    f[FEAT_p_stages] = p->nstages;
    f[FEAT_p_nonlinear] = nonlinear_ops(p);
    f[FEAT_p_log2_grid] = lg(points);
    f[FEAT_p_flops_per_byte] = an->bytes_per_point > 0 ? (double)an->flops / an->bytes_per_point : 0;
}

/* ---- the configuration --------------------------------------------------------------------- */

static int on(const Config *c, ParamId p) { return c->v[p] == 2; }

static void config_features(const Config *c, double *f)
{
    static const ParamId logs[] = {P_TBX, P_TBY, P_TBZ, P_SB, P_UFX, P_UFY, P_UFZ, P_CMX, P_CMY,
                                   P_CMZ, P_BMX, P_BMY, P_BMZ, P_TB, P_MAXREG, P_VEC};
    static const FeatId at[] = {FEAT_c_tbx, FEAT_c_tby, FEAT_c_tbz, FEAT_c_sb, FEAT_c_ufx,
                                FEAT_c_ufy, FEAT_c_ufz, FEAT_c_cmx, FEAT_c_cmy, FEAT_c_cmz,
                                FEAT_c_bmx, FEAT_c_bmy, FEAT_c_bmz, FEAT_c_tblock, FEAT_c_maxreg,
                                FEAT_c_vec};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++)
        f[at[i]] = lg(c->v[logs[i]]);
    f[FEAT_c_smem] = on(c, P_SMEM);
    f[FEAT_c_cmem] = on(c, P_CMEM);
    f[FEAT_c_stream] = on(c, P_STREAM);
    f[FEAT_c_sd] = on(c, P_SD);
    f[FEAT_c_retime] = on(c, P_RETIME);
    /* planes loaded ahead: 1 through registers, 2 by asynchronous copies */
    f[FEAT_c_prefetch] = c->v[P_ASYNC] == 2 ? 2 : on(c, P_PREFETCH);
    f[FEAT_c_regq] = c->v[P_REGQ] - 1;
    f[FEAT_c_hcol] = on(c, P_HCOL);
    f[FEAT_c_select] = on(c, P_SELECT);
    f[FEAT_c_hold] = on(c, P_HOLD);
}

/* The streaming axis: z in 3D when sd says so, else y. */
static int stream_axis(const IrProgram *p, const Config *c)
{
    return p->dims == 3 && c->v[P_SD] == 2 ? 2 : 1;
}

/* The distinct (field, level, offset) reads of the step, for the load estimate below. */
typedef struct {
    int field, level, off[3];
} Read;

static int collect_reads(const IrProgram *p, Read *r, int max)
{
    int n = 0;
    for (int s = 0; s < p->nstages; s++)
        for (int i = 0; i < p->stages[s].nnodes; i++) {
            const IrNode *nd = &p->stages[s].nodes[i];
            if (nd->op != N_READ)
                continue;
            int dup = 0;
            for (int j = 0; j < n && !dup; j++)
                dup = r[j].field == nd->field && r[j].level == nd->level
                      && !memcmp(r[j].off, nd->off, sizeof nd->off);
            if (!dup && n < max)
                r[n++] = (Read){nd->field, nd->level, {nd->off[0], nd->off[1], nd->off[2]}};
        }
    return n;
}

/* Global loads per output point, estimated from the kernel family: the plain kernel loads every
 * read; merging loads what the thread's unrolled points read once (register reuse, config.md's
 * tile pass); shared memory and streaming load the tile with its halo once. An estimate for the
 * model to weigh, not a cost model: L1 and L2 catch much of the plain kernel's re-reads. */
static double loads_per_point(const IrProgram *p, const Config *c, double *halo_ratio)
{
    Read reads[512];
    int nr = collect_reads(p, reads, 512);
    int dims = p->dims;
    int tb[3], merge[3], tile[3];
    for (int a = 0; a < 3; a++) {
        tb[a] = c->v[P_TBX + a];
        merge[a] = c->v[P_BMX + a] * c->v[P_CMX + a];
        tile[a] = a < dims ? tb[a] * merge[a] : 1;
    }
    int streaming = on(c, P_STREAM), sd = stream_axis(p, c);
    if (streaming)
        tile[sd] = c->v[P_SB];
    if (streaming && dims == 3) /* the other in-plane axis holds bm rows per thread */
        tile[3 - sd] = tb[3 - sd] * c->v[P_BMX + 3 - sd];
    /* the tile with the program's halo, over the tile */
    double grown = 1, inner = 1;
    for (int a = 0; a < dims; a++) {
        grown *= tile[a] + 2.0 * p->halo[a] * (c->v[P_TB] > 1 ? c->v[P_TB] : 1);
        inner *= tile[a];
    }
    *halo_ratio = grown / inner;
    if (streaming || on(c, P_SMEM) || c->v[P_TB] > 1) {
        /* each (field, level) read at an offset loads the tile and its halo once */
        int fl[64][2], nfl = 0;
        double loads = 0;
        for (int i = 0; i < nr; i++) {
            int seen = 0;
            for (int j = 0; j < nfl && !seen; j++)
                seen = fl[j][0] == reads[i].field && fl[j][1] == reads[i].level;
            if (seen || nfl == 64)
                continue;
            fl[nfl][0] = reads[i].field, fl[nfl][1] = reads[i].level, nfl++;
            loads += *halo_ratio;
        }
        return loads / (c->v[P_TB] > 1 ? c->v[P_TB] : 1);
    }
    /* merging: a thread's points along axis a sit at i + k * tb * bm (bm adjacent, cm a block
     * apart); they share loads along the axes unrolled fully, else only within one point */
    int pts[3], full[3];
    for (int a = 0; a < 3; a++) {
        pts[a] = a < dims ? merge[a] : 1;
        full[a] = c->v[P_UFX + a] >= pts[a];
    }
    int total = pts[0] * pts[1] * pts[2];
    if (total > 64)
        return nr;
    /* distinct addresses over the points of one group (the fully unrolled axes), times groups */
    int gsize[3], groups = 1;
    for (int a = 0; a < 3; a++) {
        gsize[a] = full[a] ? pts[a] : 1;
        groups *= pts[a] / gsize[a];
    }
    int cap = nr * gsize[0] * gsize[1] * gsize[2];
    int (*seen)[5] = malloc(sizeof *seen * (size_t)(cap > 0 ? cap : 1));
    int nseen = 0;
    for (int i = 0; i < nr; i++)
        for (int z = 0; z < gsize[2]; z++)
            for (int y = 0; y < gsize[1]; y++)
                for (int x = 0; x < gsize[0]; x++) {
                    int q[3] = {x, y, z}, at[5] = {reads[i].field, reads[i].level};
                    for (int a = 0; a < 3; a++) {
                        int bm = c->v[P_BMX + a];
                        at[2 + a] = reads[i].off[a] + q[a] % bm + q[a] / bm * tb[a] * bm;
                    }
                    int dup = 0;
                    for (int j = 0; j < nseen && !dup; j++)
                        dup = !memcmp(seen[j], at, sizeof at);
                    if (!dup)
                        memcpy(seen[nseen++], at, sizeof at);
                }
    free(seen);
    return (double)nseen * groups / total;
}

static void derived_features(const IrProgram *p, const Config *c, double *f)
{
    int dims = p->dims;
    double threads = (double)c->v[P_TBX] * c->v[P_TBY] * c->v[P_TBZ];
    double pts = 1;
    for (int a = 0; a < dims; a++)
        pts *= c->v[P_BMX + a] * c->v[P_CMX + a];
    if (on(c, P_STREAM))
        pts *= c->v[P_SB];
    int streaming = on(c, P_STREAM), temporal = c->v[P_TB] > 1;
    int tile = !streaming && !temporal
               && (on(c, P_SMEM) || on(c, P_CMEM) || pts > 1 || c->v[P_UFX] > 1 || c->v[P_UFY] > 1
                   || c->v[P_UFZ] > 1 || c->v[P_VEC] > 1 || on(c, P_HCOL));
    f[FEAT_d_threads] = lg(threads);
    f[FEAT_d_points_thread] = lg(pts);
    f[FEAT_d_family_plain] = !streaming && !temporal && !tile;
    f[FEAT_d_family_tile] = tile;
    f[FEAT_d_family_stream] = streaming && !temporal && !on(c, P_RETIME);
    f[FEAT_d_family_retime] = streaming && !temporal && on(c, P_RETIME);
    f[FEAT_d_family_temporal] = temporal;
    double halo_ratio = 1;
    f[FEAT_d_loads_point] = loads_per_point(p, c, &halo_ratio);
    f[FEAT_d_halo_ratio] = halo_ratio;
    int tbx = c->v[P_TBX] < 32 ? c->v[P_TBX] : 32;
    f[FEAT_d_row_bytes] = lg((double)tbx * c->v[P_VEC] * ir_elem_size(p));
}

/* ---- the plan ------------------------------------------------------------------------------ */

/* Whether a launch computes a stage (not a halo fill nor a copy). */
static int stage_launch(const PlanLaunch *l) { return !l->fill && l->nargs > 0 && l->tile[0] > 0; }

/* l's blocks along grid axis d, which has a tile (plan.h: ceil(cover_n / tile)) */
static double axis_blocks(const PlanLaunch *l, const long n[3], int d)
{
    return ceil((double)(n[l->axis_of[d]] + l->extra[d]) / l->tile[d]);
}

static double launch_blocks(const PlanLaunch *l, const long n[3])
{
    double blocks = 1;
    for (int d = 0; d < 3; d++)
        if (l->tile[d] > 0)
            blocks *= axis_blocks(l, n, d);
    return blocks;
}

/* The stage launch with the most threads (the step's main kernel). */
static const PlanLaunch *main_launch(const Plan *plan)
{
    const PlanLaunch *best = NULL;
    for (int i = 0; i < plan->nstep; i++) {
        const PlanLaunch *l = &plan->step[i];
        if (stage_launch(l) && (!best || l->block[0] * l->block[1] * l->block[2]
                                             > best->block[0] * best->block[1] * best->block[2]))
            best = l;
    }
    return best ? best : plan->nstep ? &plan->step[0] : NULL;
}

void feat_launch_shape(const Plan *plan, const long n[3], int *threads, int *smem, double *blocks)
{
    const PlanLaunch *l = main_launch(plan);
    *threads = l ? l->block[0] * l->block[1] * l->block[2] : 256;
    *smem = 0;
    for (int i = 0; i < plan->nstep; i++)
        if (plan->step[i].smem_bytes > *smem)
            *smem = plan->step[i].smem_bytes;
    *blocks = l ? launch_blocks(l, n) : 1;
}

Occupancy feat_occupancy(const Plan *plan, const FeatKernel *k, const OccGpu *g)
{
    const PlanLaunch *l = main_launch(plan);
    int threads = l ? l->block[0] * l->block[1] * l->block[2] : 256;
    int regs = k && k->known ? k->regs : plan->config.v[P_MAXREG] > 1 ? plan->config.v[P_MAXREG] : 32;
    int smem = 0;
    for (int i = 0; i < plan->nstep; i++)
        if (plan->step[i].smem_bytes > smem)
            smem = plan->step[i].smem_bytes;
    if (k && k->known)
        smem += k->smem_static;
    return occ_compute(g, threads, regs, smem);
}

/* The share of the points l's blocks cover (tile x blocks along each tiled axis) that lie in the
 * grid: below 1 where the tiles do not divide it, or start before it (a vector kernel's shift of
 * halo x mod vec: 513 points of a 512 row in tiles of 256 launch 3 where 2 would do). */
static double launch_fill(const PlanLaunch *l, const long n[3])
{
    double fill = 1;
    for (int d = 0; l && d < 3; d++)
        if (l->tile[d] > 0 && l->axis_of[d] >= 0 && n[l->axis_of[d]] > 0)
            fill *= (double)n[l->axis_of[d]] / (axis_blocks(l, n, d) * l->tile[d]);
    return fill;
}

static void plan_features(const Plan *plan, const long n[3], const FeatKernel *k, const OccGpu *g,
                          double *f)
{
    int launches = 0, smem = 0;
    for (int i = 0; i < plan->nstep; i++) {
        launches += stage_launch(&plan->step[i]);
        if (plan->step[i].smem_bytes > smem)
            smem = plan->step[i].smem_bytes;
    }
    const PlanLaunch *l = main_launch(plan);
    double blocks = l ? launch_blocks(l, n) : 1;
    Occupancy o = feat_occupancy(plan, k, g);
    f[FEAT_l_launches] = launches;
    f[FEAT_l_smem_kib] = smem / 1024.0;
    f[FEAT_l_log2_blocks] = lg(blocks);
    f[FEAT_l_waves] = o.blocks_sm > 0 ? blocks / ((double)g->sms * o.blocks_sm) : 0;
    f[FEAT_l_fill] = launch_fill(l, n);
    f[FEAT_o_occupancy] = o.occupancy;
    f[FEAT_o_blocks_sm] = o.blocks_sm;
    f[FEAT_o_by_regs] = o.status == OCC_FITS && o.limit == OCC_BY_REGS;
    f[FEAT_o_by_smem] = o.status == OCC_FITS && o.limit == OCC_BY_SMEM;
    f[FEAT_o_regs_used] = k && k->known ? k->regs
                          : plan->config.v[P_MAXREG] > 1 ? plan->config.v[P_MAXREG] : 32;
}

static void kernel_features(const Plan *plan, const FeatKernel *k, double *f)
{
    if (!k || !k->known) {
        for (int i = FEAT_k_known; i <= FEAT_k_vector_mem; i++)
            f[i] = -1;
        f[FEAT_k_known] = 0;
        return;
    }
    /* instruction counts per output point of a thread, so that merging's longer bodies compare */
    double pts = 1;
    for (int a = 0; a < 3; a++)
        pts *= plan->config.v[P_BMX + a] * plan->config.v[P_CMX + a];
    f[FEAT_k_known] = 1;
    f[FEAT_k_regs] = k->regs;
    f[FEAT_k_spill] = k->spill_bytes;
    f[FEAT_k_stack] = k->stack_bytes;
    f[FEAT_k_barriers] = k->barriers;
    f[FEAT_k_ptx_instr] = k->instr / pts;
    f[FEAT_k_ld_global] = k->ld_global / pts;
    f[FEAT_k_st_global] = k->st_global / pts;
    f[FEAT_k_ld_shared] = k->ld_shared / pts;
    f[FEAT_k_st_shared] = k->st_shared / pts;
    f[FEAT_k_ld_const] = k->ld_const / pts;
    f[FEAT_k_fma] = k->fma / pts;
    f[FEAT_k_farith] = k->farith / pts;
    f[FEAT_k_iarith] = k->iarith / pts;
    f[FEAT_k_shfl] = k->shfl / pts;
    f[FEAT_k_branch] = k->branch / pts;
    f[FEAT_k_vector_mem] = k->vector_mem / pts;
}

int feat_variant(const Space *s, const Config *c, const Plan *plan, const FeatKernel *k,
                 const OccGpu *g, Arena *arena, double out[FEAT_COUNT], char *why, int whylen)
{
    if (!plan && !(plan = plan_build(s->prog, c, arena, why, whylen)))
        return -1;
    program_features(s, out);
    config_features(c, out);
    derived_features(s->prog, c, out);
    plan_features(plan, s->n, k, g, out);
    kernel_features(plan, k, out);
    out[FEAT_g_cc] = g->cc;
    out[FEAT_g_sms] = g->sms;
    out[FEAT_g_mem_gbs] = g->mem_gbs;
    out[FEAT_g_l2_mib] = g->l2_kib / 1024.0;
    out[FEAT_g_smem_sm_kib] = g->smem_sm / 1024.0;
    out[FEAT_g_max_warps] = g->max_warps_sm;
    return 0;
}

void feat_print(FILE *out, const double v[FEAT_COUNT])
{
    for (int i = 0; i < FEAT_COUNT; i++)
        fprintf(out, "%-20s %.6g\n", feat_names[i], v[i]);
}
