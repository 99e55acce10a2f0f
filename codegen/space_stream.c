/* The tuning space's share of the stream pass (P_STREAM/P_SD/P_SB/P_REGQ/P_PREFETCH/P_RETIME,
 * the unroll factor along the streaming axis, and block merging along the other in-plane axis
 * in register mode): values and constraints. */
#include "opt.h"
#include "opt_stream.h"

#include <stdio.h>
#include <string.h>

/* Largest shared memory a block may opt in to on sm_90. */
enum { STREAM_SMEM_LIMIT = 227 * 1024 };

static void set_list(SpaceParam *sp, ParamId id, const int *vals, int n)
{
    sp->id = id;
    sp->nvalues = 0;
    for (int i = 0; i < n && i < SPACE_MAX_VALUES; i++)
        sp->values[sp->nvalues++] = vals[i];
}

static int dims_of(const Space *s) { return s->prog ? s->prog->dims : 3; }

static int streaming(const Config *c) { return c->v[P_STREAM] == 2; }

/* An earlier pass (plan.c asks the temporal pass first) builds the kernel for c: the stream
 * kernel's own geometry, modes and register limits do not apply, that pass's constraints do. */
static int other_pass(const Config *c) { return cg_temporal_wants(c); }

/* The streaming axis of c on this space's grid. */
static int sd_of(const Space *s, const Config *c)
{
    return dims_of(s) == 2 ? 1 : c->v[P_SD] == 2 ? 2 : 1;
}

static void init_stream(Space *s)
{
    int dims = dims_of(s);
    if (dims < 2)
        return;
    static const int onoff[] = {1, 2};
    set_list(&s->params[P_STREAM], P_STREAM, onoff, 2);
    if (dims == 3)
        set_list(&s->params[P_SD], P_SD, onoff, 2);
    set_list(&s->params[P_PREFETCH], P_PREFETCH, onoff, 2);
    set_list(&s->params[P_RETIME], P_RETIME, onoff, 2);
    /* sb: 1 (no streaming) and 8 .. the largest SD axis rounded up to a power of two (32768
     * when the grid is unknown). */
    long nmax = 0;
    for (int d = 1; d < dims; d++)
        nmax = s->n[d] > nmax ? s->n[d] : nmax;
    int sb[SPACE_MAX_VALUES] = {1}, nsb = 1;
    for (long v = 8; nsb < SPACE_MAX_VALUES && v <= 32768; v *= 2) {
        sb[nsb++] = (int)v;
        if (nmax > 0 && v >= nmax)
            break;
    }
    set_list(&s->params[P_SB], P_SB, sb, nsb);
    int R = 0;
    for (int d = 1; d < dims; d++)
        R = s->prog && s->prog->halo[d] > R ? s->prog->halo[d] : R;
    if (!s->prog)
        R = STREAM_MAX_R;
    int rq[SPACE_MAX_VALUES], nrq = 0;
    for (int v = 1; v <= 2 * R + 1 && nrq < SPACE_MAX_VALUES; v++)
        rq[nrq++] = v;
    set_list(&s->params[P_REGQ], P_REGQ, rq, nrq);
    /* Unrolling along a streaming axis: values only where the tile pass gave none. */
    static const int uf[] = {1, 2, 4, 8};
    for (int d = 1; d < dims; d++)
        if (s->params[P_UFX + d].nvalues <= 1)
            set_list(&s->params[P_UFX + d], (ParamId)(P_UFX + d), uf, 4);
}

/* ---- constraints ---- */

static int c_stream_only(const Space *s, const Config *c, char *why, int whylen)
{
    (void)s;
    if (streaming(c))
        return 1;
    static const ParamId only[] = {P_SD, P_SB, P_REGQ, P_PREFETCH, P_RETIME};
    for (int i = 0; i < 5; i++)
        if (c->v[only[i]] != 1) {
            snprintf(why, (size_t)whylen, "%s=%d applies to streaming only (stream is off)",
                     config_param_name(only[i]), c->v[only[i]]);
            return 0;
        }
    return 1;
}

/* Unroll factors the stream pass gave values to (the tile pass gave none) mean nothing
 * without streaming. */
static int c_uf_needs_stream(const Space *s, const Config *c, char *why, int whylen)
{
    if (streaming(c))
        return 1;
    for (int d = 1; d < dims_of(s); d++) {
        if (c->v[P_UFX + d] == 1)
            continue;
        Space tile;
        memset(&tile, 0, sizeof tile);
        tile.prog = s->prog;
        memcpy(tile.n, s->n, sizeof tile.n);
        for (int p = 0; p < P_COUNT; p++) {
            tile.params[p].id = (ParamId)p;
            tile.params[p].values[0] = 1;
            tile.params[p].nvalues = 1;
        }
        space_pass_tile.init(&tile);
        if (tile.params[P_UFX + d].nvalues <= 1) {
            snprintf(why, (size_t)whylen, "uf along %c applies to streaming only (stream is off)",
                     "xyz"[d]);
            return 0;
        }
    }
    return 1;
}

static int c_stream_axis(const Space *s, const Config *c, char *why, int whylen)
{
    if (!streaming(c))
        return 1;
    if (dims_of(s) < 2) {
        snprintf(why, (size_t)whylen, "streaming needs a 2D or 3D grid");
        return 0;
    }
    if (dims_of(s) == 2 && c->v[P_SD] == 2) {
        snprintf(why, (size_t)whylen, "stream=z on a 2D grid: stream along y");
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
        snprintf(why, (size_t)whylen, "tb%c=%d: with streaming along %c each thread walks its own "
                 "column, so the block has 1 thread along %c", "xyz"[sd], c->v[P_TBX + sd],
                 "xyz"[sd], "xyz"[sd]);
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
            snprintf(why, (size_t)whylen, "%s with streaming: the stream kernel stages planes in "
                     "shared memory itself (regq) and does not merge points cyclically",
                     config_param_name(off[i]));
            return 0;
        }
    /* block merging: only along the other in-plane axis of a 3D grid (register mode checks
     * the rest in stream-reg) */
    int ab = dims_of(s) == 3 ? 3 - sd : -1;
    for (int d = 0; d < 3; d++)
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
    if (!streaming(c) || other_pass(c) || !s->prog || dims_of(s) < 2)
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
    if (!streaming(c) || other_pass(c) || dims_of(s) < 2)
        return 1;
    int sd = sd_of(s, c);
    int ab = dims_of(s) == 3 ? 3 - sd : -1;
    int bm = ab > 0 ? c->v[P_BMX + ab] : 1;
    if (c->v[P_RETIME] == 2) {
        if (c->v[P_REGQ] != 1 || bm != 1 || c->v[P_SMEM] != 1) {
            snprintf(why, (size_t)whylen, "%s with retime: a retimed kernel reads each plane once "
                     "from one plane it stages in shared memory itself, it has no plane queue or "
                     "row strip", c->v[P_REGQ] != 1 ? "regq" : bm != 1 ? "bm" : "smem");
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
    if (!streaming(c) || other_pass(c) || !s->prog || dims_of(s) < 2)
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

static const SpaceConstraint stream_constraints[] = {
    {"stream-only", c_stream_only, "sd, sb, regq and prefetch shape the streaming kernel only"},
    {"stream-uf", c_uf_needs_stream, "unrolling along y/z is the streaming loop's (unless the tile "
     "pass unrolls it)"},
    {"stream-axis", c_stream_axis, "streaming walks y (2D) or y/z (3D)"},
    {"stream-tb", c_stream_block, "a streaming block has one thread along the streaming axis"},
    {"stream-sb", c_stream_sb, "a streaming block walks at least 8 planes, uf <= sb, sb within "
     "the axis"},
    {"stream-excl", c_stream_others, "cmem, cyclic merging, block merging other "
     "than along the other in-plane axis, and in-plane unrolling are not combined with streaming"},
    {"stream-modes", c_stream_modes, "retime needs weighted-sum stages and no regq/bm/smem; bm "
     "along the other in-plane axis needs register mode (smem off)"},
    {"stream-regs", c_stream_regs, "register mode holds at most 160 queued values per thread"},
    {"stream-fits", c_stream_fits, "radius <= 8 along the streaming axis, at most 16 streamed "
     "buffers, regq <= 2R+1, shared memory <= 227 KiB; without smem=on (register mode): regq=1, "
     "tb along x a multiple of 32, x halo <= 16"},
};

const SpacePass space_pass_stream = {"stream", init_stream, stream_constraints,
                                     (int)(sizeof stream_constraints / sizeof stream_constraints[0])};
