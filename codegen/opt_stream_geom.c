/* The stream pass: which planes of which buffers live where (see opt_stream.h). */
#include "opt_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ParamId cg_stream_uf_param(int sd) { return sd == 2 ? P_UFZ : P_UFY; }

int cg_stream_find_src(const StreamGeom *g, int field, int level)
{
    for (int k = 0; k < g->nsrc; k++)
        if (g->src[k].field == field && g->src[k].level == level)
            return k;
    return -1;
}

const char *cg_stream_signed_name(char buf[16], int v)
{
    snprintf(buf, 16, "%c%d", v < 0 ? 'm' : 'p', abs(v));
    return buf;
}

static char axis_letter_of(int d) { return "xyz"[d < 0 ? 0 : d]; }

int cg_stream_reg_count(const StreamGeom *g)
{
    int n = 0;
    for (int k = 0; k < g->nsrc; k++)
        for (int r = 0; r < g->bm + 2 * g->hb; r++) {
            if (g->src[k].vmin[r] <= g->R)
                n += g->R - g->src[k].vmin[r] + 1;
            if (g->src[k].emin[r] <= g->R)
                n += g->R - g->src[k].emin[r] + 1;
        }
    return n;
}

/* A temp read at zero offset in the stage that writes it is the written value (no buffer). */
static int is_own_temp_value(const IrProgram *p, const IrStage *st, const IrNode *n)
{
    if (p->fields[n->field].role != ROLE_TEMP || n->off[0] || n->off[1] || n->off[2])
        return 0;
    for (int w = 0; w < st->nwrites; w++)
        if (st->writes[w].field == n->field)
            return 1;
    return 0;
}

/* Window positions in the order the register set takes them: 0, +1, -1, +2, -2, ... */
static int reg_order(int k) { return k == 0 ? 0 : (k % 2 ? (k + 1) / 2 : -(k / 2)); }

/* regq = 1 + the number of window planes whose centre reads come from shared memory: the
 * register set is the first 2R+2-regq positions of the order (regq=1: all of them). */
static void place_source(StreamGeom *g, StreamSrc *s)
{
    int R = g->R;
    int nreg = 2 * R + 2 - g->regq;
    for (int k = 0; k < nreg && k < 2 * R + 1; k++)
        s->in_reg[reg_order(k) + R] = 1;
    s->lo = R + 1;
    s->hi = -R - 1;
    for (int p = -R; p <= R; p++) {
        int staged = s->read_plane[p + R] || (s->read_centre[p + R] && !s->in_reg[p + R]);
        if (staged) {
            s->lo = p < s->lo ? p : s->lo;
            s->hi = p > s->hi ? p : s->hi;
        }
    }
    /* Registers: the register set and the inflow queue above the shared range. A register
     * below the shared range is fed by the one above it, or by the shared copy of the plane
     * one position up; extend the range down to it where neither exists. */
    for (int p = -R; p <= R; p++)
        s->chain[p + R] = s->in_reg[p + R] || (s->lo <= s->hi && p > s->hi) ||
                          (s->lo > s->hi);
    if (s->lo <= s->hi)
        for (int p = R - 1; p >= -R; p--)
            if (s->chain[p + R] && !s->chain[p + 1 + R] && p + 1 < s->lo)
                s->lo = p + 1;
    s->slots = s->lo <= s->hi ? s->hi - s->lo + 2 : 0;
}

/* The axes, tile and window of the kernel, and the limits the pass keeps; -1 with a reason. */
static int stream_axes(const IrProgram *prog, const Config *c, StreamGeom *g, char *why, int whylen)
{
    g->dims = prog->dims;
    g->sd = prog->dims == 2 ? 1 : c->v[P_SD] == 2 ? 2 : 1;
    g->ab = prog->dims == 3 ? 3 - g->sd : -1;
    g->R = prog->halo[g->sd];
    g->hx = prog->halo[0];
    g->hb = g->ab > 0 ? prog->halo[g->ab] : 0;
    g->tbx = c->v[P_TBX];
    g->tbb = g->ab > 0 ? c->v[P_TBX + g->ab] : 1;
    g->W = g->tbx + 2 * g->hx;
    g->sb = c->v[P_SB];
    g->uf = c->v[cg_stream_uf_param(g->sd)];
    g->regq = c->v[P_REGQ];
    g->prefetch = c->v[P_PREFETCH] == 2;
    g->retime = c->v[P_RETIME] == 2;
    g->async = g->retime && c->v[P_ASYNC] == 2;
    /* Register mode: streaming without smem=on (and without retime): the whole window in
     * registers, in-plane x neighbours by warp shuffles. It needs whole warps along x and an x
     * halo that the edge lanes of a warp can load (2hx <= 32). */
    g->reg_mode = !g->retime && c->v[P_SMEM] != 2;
    g->bm = g->ab > 0 ? c->v[P_BMX + g->ab] : 1;
    g->H = g->tbb * g->bm + 2 * g->hb;
    if (g->reg_mode && (g->tbx % 32 != 0 || 2 * g->hx > 32 || g->regq != 1))
        snprintf(why, (size_t)whylen, "%s", g->regq != 1
                 ? "regq > 1 moves planes to shared memory: it needs smem=on"
                 : "streaming without smem=on keeps planes in registers and takes x neighbours "
                   "by warp shuffles: it needs tb along x a multiple of 32 and an x halo of at "
                   "most 16 (or smem=on)");
    else if (g->bm > STREAM_MAX_BM)
        snprintf(why, (size_t)whylen, "bm along %c = %d: a streaming thread computes at most %d rows",
                 axis_letter_of(g->ab), g->bm, STREAM_MAX_BM);
    else if (g->R > STREAM_MAX_R)
        snprintf(why, (size_t)whylen, "radius %d along the streaming axis: the stream pass keeps "
                 "at most %d planes on each side", g->R, STREAM_MAX_R);
    else if (g->hb > STREAM_MAX_R) /* a thread's rows, bm + 2 hb, index StreamSrc's vmin, emin */
        snprintf(why, (size_t)whylen, "radius %d along %c, beside the streaming axis: the stream "
                 "pass keeps at most %d rows on each side", g->hb, axis_letter_of(g->ab), STREAM_MAX_R);
    else if (g->regq > 2 * g->R + 1)
        snprintf(why, (size_t)whylen, "regq=%d but the window along the streaming axis has only "
                 "%d planes (2R+1)", g->regq, 2 * g->R + 1);
    else
        return 0;
    return -1;
}

/* The source of (field, level) in g, added when new; -1 beyond STREAM_MAX_SRC. */
static int source_of(StreamGeom *g, const IrNode *n)
{
    int k = 0;
    while (k < g->nsrc && !(g->src[k].field == n->field && g->src[k].level == n->level))
        k++;
    if (k < g->nsrc)
        return k;
    if (g->nsrc == STREAM_MAX_SRC)
        return -1;
    g->src[k].field = n->field;
    g->src[k].level = n->level;
    for (int r = 0; r < STREAM_MAX_ROWS; r++)
        g->src[k].vmin[r] = g->src[k].emin[r] = (signed char)(g->R + 1);
    g->nsrc++;
    return k;
}

/* Records read n in its source: the window position, centre or in-plane, and per strip row the
 * lowest position read (vmin) and read at an x offset (emin). */
static void record_read(StreamGeom *g, StreamSrc *sk, const IrNode *n)
{
    int p = n->off[g->sd] + g->R;
    int inplane = n->off[0] != 0 || (g->ab > 0 && n->off[g->ab] != 0);
    if (inplane)
        sk->read_plane[p] = 1;
    else
        sk->read_centre[p] = 1;
    int dy = g->ab > 0 ? n->off[g->ab] : 0;
    for (int o = 0; o < g->bm; o++) {
        int r = o + dy + g->hb;
        if (n->off[g->sd] < sk->vmin[r])
            sk->vmin[r] = (signed char)n->off[g->sd];
        if (n->off[0] != 0 && n->off[g->sd] < sk->emin[r])
            sk->emin[r] = (signed char)n->off[g->sd];
    }
}

int cg_stream_geom(const IrProgram *prog, int stage, const Config *c, StreamGeom *g, char *why,
                   int whylen)
{
    memset(g, 0, sizeof *g);
    if (stream_axes(prog, c, g, why, whylen) != 0)
        return -1;
    const IrStage *st = &prog->stages[stage];
    for (int i = 0; i < st->nnodes; i++) {
        const IrNode *n = &st->nodes[i];
        if (n->op != N_READ || is_own_temp_value(prog, st, n))
            continue;
        int k = source_of(g, n);
        if (k < 0) {
            snprintf(why, (size_t)whylen, "the stage reads more than %d buffers: the stream "
                     "pass keeps at most that many queues", STREAM_MAX_SRC);
            return -1;
        }
        record_read(g, &g->src[k], n);
    }
    /* retiming: two slots (double buffer) of one plane per source, three with asynchronous
     * copies (two planes in flight beside the one read); register mode: none; else each
     * source's ring */
    long at = 0;
    for (int k = 0; k < g->nsrc; k++) {
        if (g->reg_mode || g->retime)
            g->src[k].slots = g->retime ? 2 + g->async : 0;
        else
            place_source(g, &g->src[k]);
        g->src[k].smem_offset = (int)at;
        at += (long)g->src[k].slots * g->W * g->H;
    }
    g->smem_elems = at;
    return 0;
}
