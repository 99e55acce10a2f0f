/* The exchange-cost model of docs/distributed.md and the choice of exchange depth and overlap
 * (dist_model.h). */
#include "dist_model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

/* The model's constants, fitted on 4 H200s over NVLink, 2026-11-26 (docs/distributed.md,
 * "Choosing a decomposition: a model"; the runs of bench/DISTRIBUTED.md). Between nodes only
 * B changes (--link GBPS): the fixed costs a stay NVLink's. */
static const struct {
    double a_us[3];     /* fixed cost of one exchange of an axis, by its kind (axis_kind): NCCL's
                           latency and group launch, and for axes that are not outermost the
                           pack and unpack kernels. Fitted: star3d1r slabs 23 us a step on 4
                           GPUs, 1x2x2 50 us, 2x2x1 75 us */
    double nvlink_gbs;  /* B between two H200s, one way (measured with the peer's exchange) */
    double split_us[2]; /* what an overlapped step costs more than one launch when it cuts the
                           launch in three, by block life (CgDistTraits.long_blocks: short,
                           long), and extra_us for each launch beyond three (the blocks way of
                           pencils and blocks cuts it in 5 or 7). Short blocks: star3d1r's
                           one-step kernel (32 points a thread), 0.3205 ms a step with overlap
                           against 0.312 on one GPU (2 H200s, 2026-11-27, slabs: 3 launches),
                           0.337 against 0.315 over 1x2x2 (4 H200s, 2026-11-27: 5 launches).
                           Long blocks: star3d1r tblock=3 (630 points), 0.258 ms a step at depth 3
                           and 0.243 at depth 6 against 0.228 (2 H200s: 90 us a group, 3
                           launches); box3d1r's streaming one-step kernel (256 points), 0.503
                           against 0.388 over 1x2x2 (4 H200s: 5 launches; 0.442 without
                           overlap). Not profiled: long-lived blocks keep NCCL's kernels
                           waiting for an SM */
    double extra_us[2];
    double mem_gbs;     /* the local kernel's bytes (prog->an.bytes_per_point a point) per second
                           where t_local is not measured: star3d1r float 512^3, 0.312 ms a step */
} MODEL = {
    .a_us = {20.0, 24.0, 45.0},
    .nvlink_gbs = 390.0,
    .split_us = {8.5, 90.0},
    .extra_us = {6.75, 12.5},
    .mem_gbs = 3440.0,
};

enum { AXIS_CONTIGUOUS, AXIS_PACKED, AXIS_STRIDED };

/* The outermost axis's faces are contiguous; x's (innermost) are strided; a middle axis's are
 * packed in rows. */
static int axis_kind(int dims, int a)
{
    if (a == dims - 1)
        return AXIS_CONTIGUOUS;
    return a == 0 ? AXIS_STRIDED : AXIS_PACKED;
}

int cg_dist_parse_link(const char *s, double *gbs, char *name, int namelen)
{
    if (!strcmp(s, "nvlink")) {
        *gbs = MODEL.nvlink_gbs;
        snprintf(name, (size_t)namelen, "nvlink");
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < 0.1 || v > 100000)
        return -1;
    *gbs = v;
    snprintf(name, (size_t)namelen, "%g GB/s", v);
    return 0;
}

/* One candidate's part: its volume and the bytes per step across each exchanged face. */
static int candidate(const Plan *plan, const CgDistTraits *t, const CgDistChoice *c, int depth, CgDistCand *k)
{
    const IrProgram *p = plan->prog;
    long local[3];
    char why[256];
    if (cg_dist_local_size(p, c->global, c->procs, depth, t->reflects, t->held_wraps, local, why, sizeof why) != 0)
        return -1;
    memset(k, 0, sizeof *k);
    k->depth = depth;
    memcpy(k->local, local, sizeof k->local);
    k->volume = (double)local[0] * (double)local[1] * (double)local[2];
    k->t_local_ms = k->volume * p->an.bytes_per_point / (MODEL.mem_gbs * 1e9) * 1e3;
    int bufs = cg_dist_group_buffers(p, depth);
    for (int a = 0; a < p->dims; a++) {
        if (!t->reach[a] || (c->procs[a] == 1 && !(t->periodic >> a & 1)))
            continue;
        double face = (double)t->reach[a] * bufs * ir_elem_size(p);
        for (int o = 0; o < p->dims; o++)
            if (o != a)
                face *= (double)(local[o] + 2 * p->halo[o]);
        k->bytes[a] = face;
    }
    return 0;
}

/* Whether the code can overlap this split at the first candidate's depth, as
 * NAME_dist_overlap_fits_ tests it (emit_dist_overlap.c; tests/dist/test_launches.sh checks that
 * the two agree), on an inner part: a step of one kernel at depth 1 (overlap kind 1) or of one
 * fused kernel at a multiple of its steps (kind 2); the planes way where a one-step kernel's
 * split exchanges only the outermost axis (its owned part at least two sent slabs thick), else
 * the blocks way, every exchanged axis in ranges of blocks with an interior range. Sets the share
 * of the launch beside the exchange and its launches. */
static int overlap_fits(const CgDistTraits *t, CgDistCand *one, const CgDistChoice *c)
{
    const int outer = c->dims - 1;
    const int depth_ok = t->overlap_able == CG_OVERLAP_PLANES ? one->depth == 1 : one->depth % t->tblock == 0;
    int axes = 0, outer_only = 1;
    for (int a = 0; a < c->dims; a++)
        if (one->bytes[a] > 0) {
            axes++;
            outer_only = outer_only && a == outer;
        }
    if (t->overlap_able == CG_OVERLAP_NONE || !depth_ok || axes == 0)
        return 0;
    const long part = c->global[outer] / c->procs[outer], w = (long)one->depth * t->reach[outer];
    one->launches = 1 + 2 * axes;
    if (t->overlap_able == CG_OVERLAP_PLANES && outer_only) {
        one->interior = part > 2 * w ? (double)(part - 2 * w) / (double)part : 0;
        return part >= 2 * w;
    }
    one->interior = 1;
    for (int a = 0; a < c->dims; a++) {
        if (one->bytes[a] == 0)
            continue;
        const long tile = t->block_tile[a], wa = (long)one->depth * t->reach[a];
        const long ext = wa - t->reach[a], len = one->local[a];
        if (tile <= 0)
            return 0;
        const long lo = (ext + wa + tile - 1) / tile, hi = (len - ext - wa) / tile, end = (len + tile - 1) / tile;
        if (lo > hi)
            return 0;
        one->interior *= (double)(hi - lo) / (double)end;
    }
    return 1;
}

int cg_dist_prepare(const Plan *plan, const long global[3], const long procs[3], int depth, double link_gbs,
                    const char *link, CgDistChoice *c, char *why, int whylen)
{
    const IrProgram *p = plan->prog;
    CgDistTraits t;
    cg_dist_traits(plan, &t);
    memset(c, 0, sizeof *c);
    c->dims = p->dims;
    c->link_gbs = link_gbs;
    snprintf(c->link, sizeof c->link, "%s", link);
    c->given = depth > 0;
    c->chosen = -1;
    c->owned_volume = 1;
    for (int a = 0; a < 3; a++) {
        c->global[a] = global[a];
        c->procs[a] = procs[a];
        c->owned_volume *= (double)((global[a] + procs[a] - 1) / procs[a]);
    }
    int depths[4], n = 0;
    if (depth > 0)
        depths[n++] = depth;
    else if (t.depth1_only)
        depths[n++] = 1;
    else
        for (int i = 1; i <= 4; i++)
            depths[n++] = i * t.tblock; /* T = 1: 1..4; else multiples of the fused steps */
    for (int i = 0; i < n; i++)
        if (candidate(plan, &t, c, depths[i], &c->cand[c->ncand]) == 0)
            c->ncand++;
    if (c->ncand == 0 && depth == 0 && t.tblock > 1) /* no multiple of T fits: fusion is lost */
        for (int d = 1; d < t.tblock && d <= 4; d++)
            if (candidate(plan, &t, c, d, &c->cand[c->ncand]) == 0)
                c->ncand++;
    if (c->ncand == 0) {
        snprintf(why, (size_t)whylen, "no exchange depth fits the parts of %ldx%ldx%ld over %ldx%ldx%ld",
                 global[0], global[1], global[2], procs[0], procs[1], procs[2]);
        return -1;
    }
    c->long_blocks = t.long_blocks;
    if (overlap_fits(&t, &c->cand[0], c)) {
        c->cand[c->ncand] = c->cand[0];
        c->cand[c->ncand++].overlap = 1;
    }
    return 0;
}

/* Overlap, the rule: the split launch computes the sent slabs on the exchange's own stream (of
 * the highest priority) beside the interior, and exchanges them there, so it hides the whole
 * exchange, fixed cost and bandwidth, up to the interior's time; its launches cost
 * MODEL.split_us and extra_us by the blocks' life, once a group of `depth` steps
 * (docs/distributed.md, "Exchange cost and overlap"): on NVLink a kernel of short-lived blocks
 * gains, one of long-lived blocks (long streams, fused steps) loses. */
static double exchange_ms(const CgDistChoice *c, const CgDistCand *k)
{
    double fixed = 0, bandwidth = 0;
    for (int a = 0; a < c->dims; a++)
        if (k->bytes[a] > 0) {
            fixed += MODEL.a_us[axis_kind(c->dims, a)] * 1e-3 / k->depth;
            bandwidth += k->bytes[a] / (c->link_gbs * 1e9) * 1e3;
        }
    if (!k->overlap)
        return fixed + bandwidth;
    const double beside = k->t_local_ms * k->interior;
    double hidden = fixed + bandwidth < beside ? fixed + bandwidth : beside;
    const int life = c->long_blocks != 0, extra = k->launches > 3 ? k->launches - 3 : 0;
    const double split_us = MODEL.split_us[life] + MODEL.extra_us[life] * extra;
    return fixed + bandwidth - hidden + split_us * 1e-3 / k->depth;
}

void cg_dist_choose(CgDistChoice *c)
{
    c->chosen = -1;
    c->t_owned_ms = c->ncand ? c->cand[0].t_local_ms * c->owned_volume / c->cand[0].volume : 0;
    for (int i = 0; i < c->ncand; i++) {
        CgDistCand *k = &c->cand[i];
        k->t_x_ms = exchange_ms(c, k);
        k->t_step_ms = k->t_local_ms + k->t_x_ms;
        k->efficiency = k->t_step_ms > 0 ? c->t_owned_ms / k->t_step_ms : 0;
        /* a tie keeps the earlier: the smaller depth, and no overlap */
        if (c->chosen < 0 || k->t_step_ms < c->cand[c->chosen].t_step_ms * (1 - 1e-9))
            c->chosen = i;
    }
}

static const char *cand_name(const CgDistCand *k, char *buf, int len)
{
    snprintf(buf, (size_t)len, "depth %d%s", k->depth, k->overlap ? " with overlap" : "");
    return buf;
}

void cg_dist_summary(const CgDistChoice *c, char *buf, int len)
{
    const CgDistCand *k = &c->cand[c->chosen];
    char name[48];
    int used = snprintf(buf, (size_t)len, "%s %s over %ldx%ldx%ld on %s: %.4f ms a step predicted, %.1f%% "
                        "efficiency (t_local %s)", c->given ? "given" : "chose", cand_name(k, name, sizeof name),
                        c->procs[0], c->procs[1], c->procs[2], c->link, k->t_step_ms, 100 * k->efficiency,
                        c->measured ? "measured" : "scaled from the part's volume");
    const char *sep = "; against ";
    for (int i = 0; i < c->ncand && used > 0 && used < len; i++)
        if (i != c->chosen) {
            used += snprintf(buf + used, (size_t)(len - used), "%s%s %.1f%%", sep,
                             cand_name(&c->cand[i], name, sizeof name), 100 * c->cand[i].efficiency);
            sep = ", ";
        }
}

void cg_dist_table(const CgDistChoice *c, const char *prefix, StrBuf *out)
{
    char name[48];
    for (int i = 0; i < c->ncand; i++) {
        const CgDistCand *k = &c->cand[i];
        sb_printf(out, "%s%-22s %.4f ms a step (local %.4f + exchange %.4f), %.1f%%%s\n", prefix,
                  cand_name(k, name, sizeof name), k->t_step_ms, k->t_local_ms, k->t_x_ms, 100 * k->efficiency,
                  i == c->chosen ? "  <- chosen" : "");
    }
}
