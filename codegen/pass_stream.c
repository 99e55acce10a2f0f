/* The stream pass: 2.5D streaming along y or z (codegen/opt_stream*.c build the kernels), with
 * its parameters stream, sb, retime, prefetch and regq; it also reads the tile pass's smem
 * (the shared ring), uf along the streaming axis and, in register mode, bm along the other
 * in-plane axis. */
#include "opt_stream.h"
#include "pass.h"

#include <stdio.h>

static int dims_of(const Space *s) { return s->prog ? s->prog->dims : 3; }

static int streaming(const Config *c) { return c->v[P_STREAM] == 2; }

extern const CgPass cg_pass_stream;

/* Built by this pass: with streaming and temporal blocking, the temporal pass (before this one
 * in the table) builds the kernel, and its constraints judge it instead of the stream kernel's
 * geometry, modes and register limits. */
static int builds(const Config *c) { return cg_pass_builds(&cg_pass_stream, c); }

/* The streaming axis of c on this space's grid. */
static int sd_of(const Space *s, const Config *c)
{
    return dims_of(s) == 2 ? 1 : c->v[P_SD] == 2 ? 2 : 1;
}

/* sb: 1 (no streaming) and 8 .. the largest SD axis rounded up to a power of two (32768 when
 * the grid is unknown). */
static void sb_values(const Space *s, SpaceParam *sp)
{
    long nmax = 0;
    for (int d = 1; d < dims_of(s); d++)
        nmax = s->n[d] > nmax ? s->n[d] : nmax;
    sp->nvalues = 0;
    sp->values[sp->nvalues++] = 1;
    for (long v = 8; sp->nvalues < SPACE_MAX_VALUES && v <= 32768; v *= 2) {
        sp->values[sp->nvalues++] = (int)v;
        if (nmax > 0 && v >= nmax)
            break;
    }
}

/* regq: 1 .. 2R+1, R the largest halo along a streaming axis. */
static void regq_values(const Space *s, SpaceParam *sp)
{
    int R = 0;
    for (int d = 1; d < dims_of(s); d++)
        R = s->prog && s->prog->halo[d] > R ? s->prog->halo[d] : R;
    if (!s->prog)
        R = STREAM_MAX_R;
    sp->nvalues = 0;
    for (int v = 1; v <= 2 * R + 1 && sp->nvalues < SPACE_MAX_VALUES; v++)
        sp->values[sp->nvalues++] = v;
}

/* ---- constraints ---- */

static int c_stream_only(const Space *s, const Config *c, char *why, int whylen)
{
    (void)s;
    if (streaming(c))
        return 1;
    static const ParamId only[] = {P_SD, P_SB, P_REGQ, P_PREFETCH, P_RETIME, P_ASYNC};
    for (int i = 0; i < 6; i++)
        if (c->v[only[i]] != 1) {
            char item[48];
            config_item(c, only[i], item, sizeof item);
            snprintf(why, (size_t)whylen, "%s applies to streaming only (stream is off)", item);
            return 0;
        }
    return 1;
}

static int c_stream_block(const Space *s, const Config *c, char *why, int whylen)
{
    if (!streaming(c))
        return 1;
    int sd = sd_of(s, c);
    if (c->v[P_TBX + sd] != 1) {
        snprintf(why, (size_t)whylen, "tb=%dx%dx%d: with streaming along %c each thread walks its "
                 "own column, so the block has 1 thread along %c", c->v[P_TBX], c->v[P_TBY],
                 c->v[P_TBZ], "xyz"[sd], "xyz"[sd]);
        return 0;
    }
    return 1;
}

static int c_stream_sb(const Space *s, const Config *c, char *why, int whylen)
{
    if (!streaming(c))
        return 1;
    int sd = sd_of(s, c);
    int sb = c->v[P_SB];
    if (sb < 8) {
        snprintf(why, (size_t)whylen, "sb=%d: give each streaming block at least 8 planes (e.g. "
                 "sb=64)", sb);
        return 0;
    }
    int uf = c->v[cg_stream_uf_param(sd)];
    if (uf > sb) {
        snprintf(why, (size_t)whylen, "uf along %c = %d exceeds sb=%d: a block computes only sb "
                 "planes", "xyz"[sd], uf, sb);
        return 0;
    }
    long n = s->n[sd];
    if (n > 0 && sb / 2 >= n) {
        snprintf(why, (size_t)whylen, "sb=%d is beyond the %ld points along %c (sb=%d already "
                 "covers the axis)", sb, n, "xyz"[sd], sb / 2);
        return 0;
    }
    if (n > 0 && (n + sb - 1) / sb > 65535 && sd > 0) {
        snprintf(why, (size_t)whylen, "%ld blocks along %c: CUDA allows at most 65535",
                 (n + sb - 1) / sb, "xyz"[sd]);
        return 0;
    }
    return 1;
}

static int c_stream_others(const Space *s, const Config *c, char *why, int whylen)
{
    if (!streaming(c))
        return 1;
    int sd = sd_of(s, c);
    static const ParamId off[] = {P_CMEM, P_CMX, P_CMY, P_CMZ};
    for (int i = 0; i < 4; i++)
        if (c->v[off[i]] != 1) {
            char item[48];
            config_item(c, off[i], item, sizeof item);
            snprintf(why, (size_t)whylen, "%s with streaming: the stream kernel stages planes in "
                     "shared memory itself (regq) and does not merge points cyclically", item);
            return 0;
        }
    /* block merging: only along the other in-plane axis of a 3D grid (register mode checks
     * the rest in stream-reg; with tblock the temporal pass's tblock-columns judges bm) */
    int ab = dims_of(s) == 3 ? 3 - sd : -1;
    for (int d = 0; d < 3 && builds(c); d++)
        if (d != ab && c->v[P_BMX + d] != 1) {
            snprintf(why, (size_t)whylen, "bm along %c with streaming along %c: a streaming thread "
                     "merges rows only along %s", "xyz"[d], "xyz"[sd],
                     ab < 0 ? "no axis of a 2D grid" : ab == 1 ? "y" : "z");
            return 0;
        }
    for (int d = 0; d < 3; d++)
        if (d != sd && c->v[P_UFX + d] != 1) {
            snprintf(why, (size_t)whylen, "uf along %c with streaming along %c: the stream kernel "
                     "unrolls only its plane loop", "xyz"[d], "xyz"[sd]);
            return 0;
        }
    return 1;
}

/* The geometry of every stage: radius, buffer count, regq within the window, shared memory. */
static int c_stream_fits(const Space *s, const Config *c, char *why, int whylen)
{
    if (!builds(c) || !s->prog || dims_of(s) < 2)
        return 1;
    const IrProgram *p = s->prog;
    for (int st = 0; st < p->nstages; st++) {
        StreamGeom g;
        if (cg_stream_geom(p, st, c, &g, why, whylen) != 0)
            return 0;
        long bytes = g.smem_elems * ir_elem_size(p);
        if (bytes > STREAM_SMEM_LIMIT) {
            snprintf(why, (size_t)whylen, "stage %d needs %ld bytes of shared memory for its planes "
                     "(at most %d per block): lower regq's shared part, the block or the radius",
                     st, bytes, STREAM_SMEM_LIMIT);
            return 0;
        }
    }
    return 1;
}

/* Register mode (regq=1, whole warps along x) and its rows per thread; retiming's needs. */
static int c_stream_modes(const Space *s, const Config *c, char *why, int whylen)
{
    if (!builds(c) || dims_of(s) < 2)
        return 1;
    int sd = sd_of(s, c);
    int ab = dims_of(s) == 3 ? 3 - sd : -1;
    int bm = ab > 0 ? c->v[P_BMX + ab] : 1;
    if (c->v[P_ASYNC] == 2 && (c->v[P_RETIME] != 2 || c->v[P_PREFETCH] == 2)) {
        snprintf(why, (size_t)whylen, "async=on %s", c->v[P_RETIME] != 2
                 ? "without retime: only the retimed kernel stages its planes by asynchronous copies"
                 : "with prefetch=on: the asynchronous copies are the prefetch (two planes ahead, "
                   "in shared memory); prefetch=off");
        return 0;
    }
    if (c->v[P_RETIME] == 2) {
        if (c->v[P_REGQ] != 1 || c->v[P_SMEM] != 1) {
            snprintf(why, (size_t)whylen, "%s with retime: a retimed kernel reads each plane once "
                     "from one plane it stages in shared memory itself, it has no plane queue",
                     c->v[P_REGQ] != 1 ? "regq" : "smem");
            return 0;
        }
        for (int st = 0; s->prog && st < s->prog->nstages; st++)
            if (!cg_stream_linear(s->prog, st, why, whylen))
                return 0;
        return 1;
    }
    if (bm != 1 && c->v[P_SMEM] == 2) {
        snprintf(why, (size_t)whylen, "bm along %c = %d with smem=on: rows per thread exist in "
                 "register mode only (streaming without smem)", "xyz"[ab], bm);
        return 0;
    }
    return 1;
}

static int c_stream_regs(const Space *s, const Config *c, char *why, int whylen)
{
    if (!builds(c) || !s->prog || dims_of(s) < 2)
        return 1;
    for (int st = 0; st < s->prog->nstages; st++) {
        StreamGeom g;
        if (cg_stream_geom(s->prog, st, c, &g, why, whylen) != 0 || !g.reg_mode)
            continue;
        int n = cg_stream_reg_count(&g);
        if (n > STREAM_MAX_REGS) {
            snprintf(why, (size_t)whylen, "register mode keeps %d values per thread for stage %d "
                     "(at most %d, beyond they spill): fewer rows (bm), regq > 1 or retime", n,
                     st, STREAM_MAX_REGS);
            return 0;
        }
    }
    return 1;
}

/* --same-bits promises the plain kernel's bits; a retimed kernel (one step or fused) adds each
 * point's terms plane by plane, in another order, so it cannot keep that promise. */
static int c_retime_same_bits(const Space *s, const Config *c, char *why, int whylen)
{
    if (c->v[P_RETIME] != 2 || !s->prog || !s->prog->same_bits)
        return 1;
    snprintf(why, (size_t)whylen, "retime with --same-bits: a retimed kernel adds each point's terms "
             "plane by plane, in another order than the other kernels, so its bits differ; retime=off");
    return 0;
}

static const SpaceConstraint stream_constraints[] = {
    {"stream-only", c_stream_only, "sb, regq, prefetch, retime and async shape the streaming kernel only"},
    {"stream-tb", c_stream_block, "a streaming block has one thread along the streaming axis"},
    {"stream-sb", c_stream_sb, "a streaming block walks at least 8 planes, uf <= sb, sb within "
     "the axis"},
    {"stream-excl", c_stream_others, "cmem, cyclic merging, block merging other "
     "than along the other in-plane axis, and in-plane unrolling are not combined with streaming"},
    {"stream-modes", c_stream_modes, "retime needs weighted-sum stages and no regq/smem; async "
     "needs retime and prefetch off; bm along the other in-plane axis needs register mode (smem "
     "off) or retime"},
    {"retime-same-bits", c_retime_same_bits, "retime stays off with --same-bits (a retimed "
     "kernel adds a point's terms in another order)"},
    {"stream-regs", c_stream_regs, "register mode holds at most 160 queued values per thread"},
    {"stream-fits", c_stream_fits, "radius <= 8 along the streaming axis, at most 16 streamed "
     "buffers, regq <= 2R+1, shared memory <= 227 KiB; without smem=on (register mode): regq=1, "
     "tb along x a multiple of 32, x halo <= 16"},
    {0},
};

static const int onoff[] = {1, 2};

static const CgWord stream_words[] = {
    {"off", {1, 1}, 1},
    {"y", {2, 1}, 2},
    {"z", {2, 2}, 3},
};

static const CgParam params[] = {
    {.key = "stream", .kind = PK_CHOICE, .first = P_STREAM, .pos = 3, .dims = 2,
     .words = stream_words, .nwords = 3, .id2 = "sd", .doc_values = "`y`, `z`, off",
     .doc = "2.5D streaming: each block walks along the streaming dimension (y or z in 3D, y in "
            "2D), keeping a window of planes"},
    {.key = "sb", .kind = PK_NUMBER, .first = P_SB, .pos = 4, .flags = PF_POW2, .dims = 2,
     .values_of = sb_values, .doc_values = "power of two",
     .doc = "with streaming: points along the streaming dimension per block (concurrent "
            "streaming)"},
    {.key = "retime", .kind = PK_BOOL, .first = P_RETIME, .pos = 10, .dims = 2,
     .values = onoff, .nvalues = 2, .doc_values = "on/off",
     .doc = "retiming (streaming only): accumulate partial sums plane by plane"},
    {.key = "prefetch", .kind = PK_BOOL, .first = P_PREFETCH, .pos = 11, .dims = 2,
     .values = onoff, .nvalues = 2, .doc_values = "on/off",
     .doc = "load the next plane while computing this one (streaming only)"},
    {.key = "async", .kind = PK_BOOL, .first = P_ASYNC, .pos = 18, .dims = 2,
     .values = onoff, .nvalues = 2, .doc_values = "on/off",
     .doc = "retimed streaming: each plane is staged by asynchronous copies (cp.async) into a "
            "ring of three slots, two planes in flight, instead of through registers"},
    {.key = "regq", .kind = PK_NUMBER, .first = P_REGQ, .pos = 13, .dims = 2,
     .values_of = regq_values, .doc_values = "positive integer",
     .doc = "streaming with smem=on: 1 + how many of the 2R+1 streamed planes have their centre "
            "reads in shared memory (1 = all in registers)"},
    {0},
};

const CgPass cg_pass_stream = {
    .name = "stream",
    .params = params,
    .constraints = stream_constraints,
    .applies = cg_stream_wants,
    .build = cg_emit_stage_stream,
};
