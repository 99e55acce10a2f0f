/* The stream pass with retiming (retime=on), for a stage whose stored write is a weighted sum
 * of reads. Each incoming plane is staged once in shared memory (two slots, one barrier per
 * plane); every thread reads its in-plane neighbourhood of that plane once and adds its
 * contributions to the partial sums of the 2R+1 output planes that need it (accumulators
 * a0..a2R: a0 is the oldest output, complete when the incoming plane is R planes past it, then
 * stored and the ring rotates). A box stencil thus needs one staged plane instead of 2R+1 and
 * (2R+1)^2 shared reads per point instead of (2R+1)^3. The sum is re-associated: results match
 * the plain kernel to rounding. */
#include "opt.h"
#include "opt_stream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef CgLinTerm LinTerm;

typedef struct {
    LinTerm *t;
    int n, cap;
    Arena *arena;
    const char *bad; /* the first non-linear construct met */
} LinSum;

static void add_term(LinSum *ls, const IrNode *n, double c)
{
    for (int i = 0; i < ls->n; i++) {
        LinTerm *t = &ls->t[i];
        if (t->field == n->field && t->level == n->level && !memcmp(t->off, n->off, sizeof t->off)) {
            t->c += c;
            return;
        }
    }
    if (ls->n == ls->cap) {
        int cap = ls->cap ? 2 * ls->cap : 64;
        LinTerm *nt = ls->arena ? arena_alloc(ls->arena, sizeof *nt * (size_t)cap)
                                : malloc(sizeof *nt * (size_t)cap);
        if (!nt) {
            ls->bad = "out of memory";
            return;
        }
        if (ls->n)
            memcpy(nt, ls->t, sizeof *nt * (size_t)ls->n);
        if (!ls->arena)
            free(ls->t);
        ls->t = nt;
        ls->cap = cap;
    }
    LinTerm *t = &ls->t[ls->n++];
    t->field = n->field;
    t->level = n->level;
    memcpy(t->off, n->off, sizeof t->off);
    t->c = c;
}

static int is_const(const IrStage *st, int i, double *v)
{
    if (i < 0 || st->nodes[i].op != N_CONST)
        return 0;
    *v = st->nodes[i].value;
    return isfinite(*v);
}

/* Adds scale * node i to ls; records a reason when the node is not linear in reads. */
static void linearize(const IrProgram *p, const IrStage *st, int i, double scale, LinSum *ls)
{
    if (ls->bad)
        return;
    const IrNode *n = &st->nodes[i];
    double v;
    switch (n->op) {
    case N_READ:
        if (p->fields[n->field].role == ROLE_TEMP) {
            ls->bad = "it reads a temp";
            return;
        }
        add_term(ls, n, scale);
        return;
    case N_ADD:
        linearize(p, st, n->a, scale, ls);
        linearize(p, st, n->b, scale, ls);
        return;
    case N_SUB:
        linearize(p, st, n->a, scale, ls);
        linearize(p, st, n->b, -scale, ls);
        return;
    case N_NEG:
        linearize(p, st, n->a, -scale, ls);
        return;
    case N_MUL:
        if (is_const(st, n->a, &v))
            linearize(p, st, n->b, scale * v, ls);
        else if (is_const(st, n->b, &v))
            linearize(p, st, n->a, scale * v, ls);
        else
            ls->bad = "it multiplies two non-constant values";
        return;
    case N_DIV:
        if (is_const(st, n->b, &v) && v != 0)
            linearize(p, st, n->a, scale / v, ls);
        else
            ls->bad = "it divides by a non-constant value";
        return;
    case N_CONST:
        ls->bad = "it adds a constant term";
        return;
    case N_PARAM:
        ls->bad = "it uses a parameter";
        return;
    default:
        ls->bad = "it applies a non-linear operation";
        return;
    }
}

/* The single stored write of the stage, or -1. */
static int stored_write(const IrProgram *p, const IrStage *st, int *count)
{
    int w = -1;
    *count = 0;
    for (int k = 0; k < st->nwrites; k++)
        if (cg_field_stored(p, st->writes[k].field)) {
            w = k;
            (*count)++;
        }
    return w;
}

int cg_stream_linear(const IrProgram *prog, int stage, char *why, int whylen)
{
    return cg_linear_terms(prog, stage, NULL, NULL, NULL, why, whylen);
}

int cg_linear_terms(const IrProgram *prog, int stage, Arena *arena, const CgLinTerm **terms, int *nterms,
                    char *why, int whylen)
{
    const IrStage *st = &prog->stages[stage];
    int nw;
    int w = stored_write(prog, st, &nw);
    if (nw != 1) {
        snprintf(why, (size_t)whylen, "stage %d stores %d fields: retiming accumulates one "
                 "weighted sum", stage, nw);
        return 0;
    }
    LinSum ls = {0};
    ls.arena = arena;
    linearize(prog, st, st->writes[w].node, 1.0, &ls);
    if (ls.bad) {
        snprintf(why, (size_t)whylen, "stage %d is not a weighted sum of reads (%s): retiming "
                 "accumulates const * read terms only", stage, ls.bad);
        if (!arena)
            free(ls.t);
        return 0;
    }
    if (terms && arena) {
        *terms = ls.t;
        *nterms = ls.n;
    } else {
        free(ls.t);
    }
    return 1;
}

int cg_emit_stream_retime(CgCtx *ctx, int stage, const char *name, const CgArgs *args,
                          PlanLaunch *l, const StreamGeom *g, char *why, int whylen)
{
    const IrProgram *prog = ctx->prog;
    const Config *c = ctx->cfg;
    const IrStage *st = &prog->stages[stage];
    const CgLinTerm *terms = NULL;
    int nterms = 0;
    if (!cg_linear_terms(prog, stage, ctx->arena, &terms, &nterms, why, whylen))
        return -1;
    int nw;
    int w = stored_write(prog, st, &nw);
    StrBuf *o = ctx->src;
    const char *T = ctx->T;
    int R = g->R, W = g->W, H = g->H, hx = g->hx, hb = g->hb;
    int PL = W * H;
    int threads = g->tbx * g->tbb;
    int ncell = (PL + threads - 1) / threads;
    int block[3] = {c->v[P_TBX], c->v[P_TBY], c->v[P_TBZ]};
    static const char axis_letter[3] = {'x', 'y', 'z'};

    sb_printf(o, "/* stage %d: 2.5D streaming along %c with retiming, %d planes per block: each "
              "plane staged once, its terms added to %d partial sums, %s */\n", stage,
              axis_letter[g->sd], g->sb, 2 * R + 1,
              g->prefetch ? "next planes prefetched" : "no prefetch");
    cg_emit_signature(ctx, name, block, args);
    sb_printf(o, "    extern __shared__ __align__(16) unsigned char %s_smem[];\n", name);
    for (int k = 0; k < g->nsrc; k++)
        sb_printf(o, "    %s *const sm%d = (%s *)%s_smem + %d;\n", T, k, T, name,
                  g->src[k].smem_offset);
    cg_emit_strides(ctx);
    sb_printf(o, "    const long long ps = %s;\n", g->sd == 2 ? "s2" : "s1");
    sb_printf(o, "    const int bx0 = (int)(blockIdx.x * %du);\n", g->tbx);
    sb_puts(o, "    const int i = bx0 + (int)threadIdx.x;\n");
    const char *sB = g->ab == 1 ? "s1" : "s2";
    if (g->dims == 3) {
        const char *tB = g->ab == 1 ? "threadIdx.y" : "threadIdx.z";
        const char *bB = g->ab == 1 ? "blockIdx.y" : "blockIdx.z";
        const char *nB = g->ab == 1 ? "n1" : "n2";
        sb_printf(o, "    const int bb0 = (int)(%s * %du);\n", bB, g->tbb);
        sb_printf(o, "    const int jb = bb0 + (int)%s;\n", tB);
        sb_printf(o, "    const int tid = (int)threadIdx.x + (int)%s * %d;\n", tB, g->tbx);
        sb_printf(o, "    const bool inside = i < n0 && jb < %s;\n", nB);
        sb_printf(o, "    const long long own_g = (long long)(jb + %d) * %s + (i + %d);\n", hb, sB, hx);
        sb_printf(o, "    const int own_s = ((int)%s + %d) * %d + (int)threadIdx.x + %d;\n", tB, hb,
                  W, hx);
    } else {
        sb_puts(o, "    const int bb0 = 0;\n    const int tid = (int)threadIdx.x;\n");
        sb_puts(o, "    const bool inside = i < n0;\n");
        sb_printf(o, "    const long long own_g = (long long)(i + %d);\n", hx);
        sb_printf(o, "    const int own_s = (int)threadIdx.x + %d;\n", hx);
    }
    sb_printf(o, "    const int z0 = (int)(blockIdx.%c * %du);\n", axis_letter[g->sd], g->sb);
    sb_printf(o, "    const int zend = min(z0 + %d, n%d);\n", g->sb, g->sd);
    sb_printf(o, "    const int tlast = zend - 1 + %d;\n", R);
    /* tile cells of this thread: row-major over the tile with its halo */
    for (int cc = 0; cc < ncell; cc++) {
        sb_printf(o, "    const int fs%d = tid + %d;\n", cc, cc * threads);
        sb_printf(o, "    const int fy%d = fs%d / %d, fx%d = fs%d - fy%d * %d;\n", cc, cc, W, cc, cc,
                  cc, W);
        sb_printf(o, "    const bool okf%d = fs%d < %d && bx0 + fx%d < n0 + %d", cc, cc, PL, cc, 2 * hx);
        if (g->dims == 3)
            sb_printf(o, " && bb0 + fy%d < n%d + %d", cc, g->ab, 2 * hb);
        sb_puts(o, ";\n");
        if (g->dims == 3)
            sb_printf(o, "    const long long fg%d = okf%d ? (long long)fy%d * %s + fx%d : 0;\n", cc,
                      cc, cc, sB, cc);
        else
            sb_printf(o, "    const int fg%d = okf%d ? fx%d : 0;\n", cc, cc, cc);
    }
    for (int k = 0; k < g->nsrc; k++) {
        PlanArg a = {ARG_BUF, g->src[k].field, g->src[k].level, 0};
        char an[160];
        cg_arg_name(prog, &a, an, sizeof an);
        sb_printf(o, "    const %s *bp%d = %s + (long long)z0 * ps + (long long)bb0 * %s + bx0;\n", T,
                  k, an, g->dims == 3 ? sB : "0");
    }
    sb_puts(o, "    (void)bb0;\n");
    for (int j = 0; j <= 2 * R; j++)
        sb_printf(o, "    %s a%d = (%s)0;\n", T, j, T);
    /* loads of a group of uf planes together (with prefetch: the next group's, carried) */
    int uf = g->uf;
    for (int u = 0; g->prefetch && u < uf; u++)
        for (int k = 0; k < g->nsrc; k++)
            for (int cc = 0; cc < ncell; cc++)
                sb_printf(o, "    %s h%d_%d_%d = (z0 - %d + %d <= tlast && okf%d) ? __ldg(bp%d + "
                          "%d * ps + fg%d) : (%s)0;\n", T, k, cc, u, R, u, cc, k, u, cc, T);
    sb_printf(o, "    for (int t0 = z0 - %d; t0 <= tlast; t0 += %d) {\n", R, uf);
    for (int u = 0; u < uf; u++)
        for (int k = 0; k < g->nsrc; k++)
            for (int cc = 0; cc < ncell; cc++)
                sb_printf(o, "        const %s h%d_%d_%d%s = (t0 + %d <= tlast && okf%d) ? "
                          "__ldg(bp%d + %d * ps + fg%d) : (%s)0;\n", T, k, cc, u,
                          g->prefetch ? "n" : "", (g->prefetch ? uf : 0) + u, cc, k,
                          (g->prefetch ? uf : 0) + u, cc, T);
    PlanArg wa = {ARG_BUF, st->writes[w].field,
                  prog->fields[st->writes[w].field].role == ROLE_STATE ? 1 : 0, 0};
    char wn[160];
    cg_arg_name(prog, &wa, wn, sizeof wn);
    for (int u = 0; u < uf; u++) {
        if (u == 0)
            sb_puts(o, "        {\n");
        else
            sb_printf(o, "        if (t0 + %d <= tlast) {\n", u);
        sb_printf(o, "            const int t = t0 + %d;\n", u);
        for (int k = 0; k < g->nsrc; k++) {
            sb_printf(o, "            %s *const wr%d = sm%d + (t & 1) * %d;\n", T, k, k, PL);
            for (int cc = 0; cc < ncell; cc++)
                sb_printf(o, "            if (fs%d < %d) wr%d[fs%d] = h%d_%d_%d;\n", cc, PL, k, cc,
                          k, cc, u);
        }
        sb_puts(o, "            __syncthreads();\n");
        /* each in-plane neighbour read once, its terms added to the partial sums */
        for (int k = 0; k < g->nsrc; k++) {
            sb_printf(o, "            {\n                const %s *const rd = sm%d + (t & 1) * %d + "
                      "own_s;\n", T, k, PL);
            for (int dy = -hb; dy <= hb; dy++)
                for (int dx = -hx; dx <= hx; dx++) {
                    int any = 0;
                    for (int m = 0; m < nterms; m++) {
                        const CgLinTerm *lt = &terms[m];
                        int ldy = g->ab > 0 ? lt->off[g->ab] : 0;
                        if (cg_stream_find_src(g, lt->field, lt->level) != k || lt->off[0] != dx || ldy != dy ||
                            lt->c == 0)
                            continue;
                        if (!any)
                            sb_printf(o, "                {\n                    const %s r = "
                                      "rd[%d];\n", T, dy * W + dx);
                        any = 1;
                        int dp = lt->off[g->sd];
                        sb_printf(o, "                    a%d += ", R - dp);
                        cg_emit_const(o, lt->c, prog->type);
                        sb_puts(o, " * r;\n");
                    }
                    if (any)
                        sb_puts(o, "                }\n");
                }
            sb_puts(o, "            }\n");
        }
        sb_printf(o, "            if (t >= z0 + %d && inside)\n", R);
        sb_printf(o, "                %s[(long long)t * ps + own_g] = a0;\n", wn);
        for (int j = 0; j < 2 * R; j++)
            sb_printf(o, "            a%d = a%d;\n", j, j + 1);
        sb_printf(o, "            a%d = (%s)0;\n", 2 * R, T);
        sb_puts(o, "        }\n");
    }
    for (int u = 0; g->prefetch && u < uf; u++)
        for (int k = 0; k < g->nsrc; k++)
            for (int cc = 0; cc < ncell; cc++)
                sb_printf(o, "        h%d_%d_%d = h%d_%d_%dn;\n", k, cc, u, k, cc, u);
    for (int k = 0; k < g->nsrc; k++)
        sb_printf(o, "        bp%d += %d * ps;\n", k, uf);
    sb_puts(o, "    }\n}\n\n");
    for (int d = 0; d < 3; d++) {
        l->block[d] = block[d];
        l->tile[d] = d == g->sd ? g->sb : block[d];
        l->axis_of[d] = d;
    }
    l->smem_bytes = (int)(g->smem_elems * ir_elem_size(prog));
    return 0;
}
