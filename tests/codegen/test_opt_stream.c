/* The stream pass without a GPU: every stream parameter changes the emitted source, the launch
 * geometry follows sb and the block, regq moves planes between registers and shared memory,
 * the kernels as built (the plan's module, walked) have the structure each mode promises, and
 * the constraints refuse what the kernel cannot do, with a reason. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "hand_ir.h"
#include "opt.h"
#include "opt_stream.h"
#include "plan.h"
#include "space.h"
#include "../../util/arena.h"
#include "../../util/strbuf.h"

static Plan *build(Arena *a, const IrProgram *p, const char *text, char *why, int whylen)
{
    Config c;
    char err[256];
    int rc = config_parse(text, p->dims, &c, err, sizeof err);
    assert(rc == 0);
    return plan_build(p, &c, a, why, whylen);
}

static const char *source(Arena *a, const IrProgram *p, const char *text)
{
    char why[512];
    Plan *pl = build(a, p, text, why, sizeof why);
    if (!pl)
        fprintf(stderr, "unexpectedly refused: %s: %s\n", text, why);
    assert(pl);
    return pl->source;
}

static void refused(Arena *a, const IrProgram *p, const char *text, const char *words)
{
    char why[512];
    Plan *pl = build(a, p, text, why, sizeof why);
    if (pl || !strstr(why, words))
        fprintf(stderr, "%s: expected a refusal mentioning '%s', got '%s'\n", text, words,
                pl ? "(accepted)" : why);
    assert(!pl && strstr(why, words));
}

static void differs(Arena *a, const IrProgram *p, const char *x, const char *y)
{
    const char *sx = source(a, p, x), *sy = source(a, p, y);
    /* the first line names the configuration: compare the kernels only */
    sx = strstr(sx, "*/");
    sy = strstr(sy, "*/");
    if (strcmp(sx, sy) == 0)
        fprintf(stderr, "same source for '%s' and '%s'\n", x, y);
    assert(strcmp(sx, sy) != 0);
}

/* ---- the kernels as built (kernel representation), walked ---- */

/* Stage 0's stream kernel of p under the configuration text, as the plan keeps it. */
static const KKernel *kernel(Arena *a, const IrProgram *p, const char *text)
{
    char why[512];
    Plan *pl = build(a, p, text, why, sizeof why);
    if (!pl)
        fprintf(stderr, "%s: %s\n", text, why);
    assert(pl && pl->nstep > 0);
    const KKernel *k = k_module_kernel(&pl->module, pl->step[0].kernel);
    assert(k);
    return k;
}

static const char *text(Arena *a, const KExpr *e)
{
    StrBuf t = {0};
    kir_cuda_expr(&t, e);
    const char *r = arena_strdup(a, t.data);
    sb_free(&t);
    return r;
}

/* The first statement of kind (and name, for declarations and loops: NULL for any) in block,
 * nested statements included. */
static const KStmt *find(const KBlock *b, KStmtKind kind, const char *name)
{
    for (int i = 0; i < b->n; i++) {
        const KStmt *s = b->items[i];
        if (s->kind == kind && (!name || (s->name && strcmp(s->name, name) == 0)))
            return s;
        const KStmt *in = find(&s->body, kind, name);
        if (!in)
            in = find(&s->els, kind, name);
        if (in)
            return in;
    }
    return NULL;
}

/* Whether some expression of block (nested) satisfies pred with arg. */
typedef int (*ExprPred)(const KExpr *e, const char *arg);

static int expr_any(const KExpr *e, ExprPred pred, const char *arg)
{
    if (!e)
        return 0;
    if (pred(e, arg))
        return 1;
    for (int i = 0; i < e->nargs; i++)
        if (expr_any(e->args[i], pred, arg))
            return 1;
    return expr_any(e->a, pred, arg) || expr_any(e->b, pred, arg) || expr_any(e->c, pred, arg);
}

static int block_any(const KBlock *b, ExprPred pred, const char *arg)
{
    for (int i = 0; i < b->n; i++) {
        const KStmt *s = b->items[i];
        const KExpr *parts[] = {s->init, s->lhs, s->rhs, s->cond, s->step};
        for (int j = 0; j < 5; j++)
            if (expr_any(parts[j], pred, arg))
                return 1;
        if (block_any(&s->body, pred, arg) || block_any(&s->els, pred, arg))
            return 1;
    }
    return 0;
}

static int is_var(const KExpr *e, const char *name) { return e->kind == KE_VAR && strcmp(e->name, name) == 0; }
static int is_cast(const KExpr *e, const char *type) { return e->kind == KE_CAST && strcmp(e->name, type) == 0; }
/* x * name or name * x */
static int is_mul_by(const KExpr *e, const char *name)
{
    return e->kind == KE_BINARY && e->op == KO_MUL && (is_var(e->a, name) || is_var(e->b, name));
}
/* name += x */
static int adds_to(const KBlock *b, const char *name)
{
    for (int i = 0; i < b->n; i++) {
        const KStmt *s = b->items[i];
        if ((s->kind == KS_ASSIGN && s->quals && is_var(s->lhs, name)) || adds_to(&s->body, name) ||
            adds_to(&s->els, name))
            return 1;
    }
    return 0;
}
/* A declaration of name in b (nested) initialized to exactly init (as printed). */
static int declares(Arena *a, const KBlock *b, const char *name, const char *init)
{
    for (int i = 0; i < b->n; i++) {
        const KStmt *s = b->items[i];
        if (s->kind == KS_DECL && strcmp(s->name, name) == 0 && s->init && strcmp(text(a, s->init), init) == 0)
            return 1;
        if (declares(a, &s->body, name, init) || declares(a, &s->els, name, init))
            return 1;
    }
    return 0;
}

static int is_shuffle(const KExpr *e, const char *kind)
{
    return e->kind == KE_SHUFFLE && e->shuffle == (strcmp(kind, "down") == 0 ? KSH_DOWN : KSH_IDX);
}

/* The statement of block (not nested) that is `if (cond)` with cond a variable named name. */
static const KStmt *if_var(const KBlock *b, const char *name)
{
    for (int i = 0; i < b->n; i++)
        if (b->items[i]->kind == KS_IF && is_var(b->items[i]->cond, name))
            return b->items[i];
    return NULL;
}

/* Ifs of b (nested) whose condition mentions var. */
static int ifs_on(const KBlock *b, const char *var)
{
    int n = 0;
    for (int i = 0; i < b->n; i++) {
        const KStmt *s = b->items[i];
        n += s->kind == KS_IF && expr_any(s->cond, is_var, var);
        n += ifs_on(&s->body, var) + ifs_on(&s->els, var);
    }
    return n;
}

/* The steady loop of the fast path: per-plane work without bounds tests or 64-bit indices. */
static void steady_loop_is_lean(const KStmt *loop, const char *stride)
{
    const KBlock *b = &loop->body;
    assert(loop->unroll == 1 && loop->init->ival == 0);
    assert(block_any(b, is_var, "sm0")); /* the walk reaches the planes' nested blocks */
    assert(!block_any(b, is_mul_by, stride) && !block_any(b, is_cast, "long long"));
    static const char *const per_plane[] = {"live", "inside", "tlast", "z0", "t"};
    for (int i = 0; i < 5; i++)
        assert(!block_any(b, is_var, per_plane[i]));
}

/* The smem-ring kernel's fast path for full blocks: decided once per block, pointers stepped
 * by the plane stride, no bounds tests, constant ring slots where the unroll allows. */
static void fast_path(Arena *a, IrProgram *star2d, IrProgram *box3d)
{
    const KKernel *k = kernel(a, star2d, "tb=128x1x1,stream=y,sb=32,smem=on,prefetch=on,uf=1x2x1");
    assert(declares(a, &k->body, "full", "z0 + 32 <= n1 && bx0 + 128 <= n0"));
    const KStmt *fast = if_var(&k->body, "full");
    assert(fast && fast->body.items[fast->body.n - 1]->kind == KS_RETURN);
    const KStmt *general = find(&k->body, KS_FOR, "t0"); /* the general loop stays */
    assert(general && general->inclusive && general->step->ival == 2 && strcmp(text(a, general->init), "z0 - 1") == 0);
    /* pointers set once: own column and tile cell at plane z0, output at plane z0+R */
    assert(declares(a, &fast->body, "pg0", "f_u_l0 + (long long)z0 * s1 + own_g"));
    assert(declares(a, &fast->body, "ph0_0", "f_u_l0 + (long long)z0 * s1 + tile_g + hg0"));
    assert(declares(a, &fast->body, "po0", "f_u_lp1 + (long long)(z0 + 1) * s1 + own_g"));
    const KStmt *loop = find(&fast->body, KS_FOR, "jj");
    assert(loop && loop->step->ival == 2 && loop->cond->ival == 32);
    /* the loop: no multiply by a stride, no 64-bit index, no per-plane predicates */
    steady_loop_is_lean(loop, "s1");
    assert(!block_any(&loop->body, is_var, "rb"));
    assert(adds_to(&loop->body, "pg0") && adds_to(&loop->body, "ph0_0") && adds_to(&loop->body, "po0"));
    /* two slots, unroll 2: constant slots 0 and 1 */
    assert(declares(a, &loop->body, "w", "sm0 + 0 * 130") && declares(a, &loop->body, "w", "sm0 + 1 * 130"));
    /* prefetch: only the next group's loads test, once, that there is one */
    const KStmt *more = find(&loop->body, KS_IF, NULL);
    assert(more && strcmp(text(a, more->cond), "jj + 2 < 32") == 0 && ifs_on(&loop->body, "jj") == 1);
    assert(find(&more->body, KS_ASSIGN, NULL) && strcmp(text(a, find(&more->body, KS_ASSIGN, NULL)->rhs), "*pg0") == 0);
    assert(kir_count_stmts(&loop->body, KS_BARRIER) == 2);
    /* warm-up: plane z0-1 neither stores nor reads the ring (no barrier), plane z0 stores */
    int warm_barriers = 0;
    for (int i = 0; fast->body.items[i] != loop; i++)
        warm_barriers += kir_count_stmts(&fast->body.items[i]->body, KS_BARRIER);
    assert(warm_barriers == 1);

    /* no prefetch, uf=1: unrolled to the two slots */
    k = kernel(a, star2d, "tb=128x1x1,stream=y,sb=32,smem=on");
    loop = find(&k->body, KS_FOR, "jj");
    assert(loop->step->ival == 2 && !block_any(&loop->body, is_var, "rb") && ifs_on(&loop->body, "jj") == 0);
    assert(kir_count_stmts(&loop->body, KS_BARRIER) == 2);
    /* three slots (regq=2) do not divide a power-of-two sb: unroll uf, slots computed */
    k = kernel(a, star2d, "tb=128x1x1,stream=y,sb=32,smem=on,regq=2,uf=1x2x1");
    loop = find(&k->body, KS_FOR, "jj");
    assert(loop->step->ival == 2 && declares(a, &loop->body, "rb", "(unsigned)(jj + 4)"));
    assert(declares(a, &loop->body, "w", "sm0 + rb % 3u * 130"));
    steady_loop_is_lean(loop, "s1");
    /* a box in 3D: whole-tile cells, four slots, unroll 4, the tile test covers both axes */
    k = kernel(a, box3d, "tb=32x8x1,stream=z,sb=32,smem=on");
    assert(declares(a, &k->body, "full", "z0 + 32 <= n2 && bx0 + 32 <= n0 && bb0 + 8 <= n1"));
    loop = find(&k->body, KS_FOR, "jj");
    assert(loop->step->ival == 4 && declares(a, &loop->body, "h0_0_0", "okf0 ? *ph0_0 : (double)0"));
    steady_loop_is_lean(loop, "s2");
    assert(!block_any(&loop->body, is_var, "rb") && kir_count_stmts(&loop->body, KS_BARRIER) == 4);
    /* the register mode and retiming kernels have no fast path (yet) */
    assert(!find(&kernel(a, box3d, "tb=32x4x1,stream=z,sb=32")->body, KS_DECL, "full"));
}

/* An assignment lhs = rhs (as printed) in b, nested. */
static int assigns(Arena *a, const KBlock *b, const char *lhs, const char *rhs)
{
    for (int i = 0; i < b->n; i++) {
        const KStmt *s = b->items[i];
        if (s->kind == KS_ASSIGN && !s->quals && is_var(s->lhs, lhs) && strcmp(text(a, s->rhs), rhs) == 0)
            return 1;
        if (assigns(a, &s->body, lhs, rhs) || assigns(a, &s->els, lhs, rhs))
            return 1;
    }
    return 0;
}

/* Register mode: no shared memory, no barrier, x neighbours by warp shuffles. */
static void reg_mode(Arena *a, IrProgram *star2d)
{
    const KKernel *k = kernel(a, star2d, "tb=128x1x1,stream=y,sb=32");
    assert(block_any(&k->body, is_shuffle, "down"));
    assert(kir_count_stmts(&k->body, KS_BARRIER) == 0 && !find(&k->body, KS_DECL, "k_smem"));
}

/* Retiming: one staged plane per barrier, 2R+1 partial sums that rotate once per plane. */
/* Retiming's weights may be products of constants and parameters: heat1d's
 * u + alpha * (u[-1] + u[1] - 2u) is four terms, three weighted by alpha. */
static void param_weights(Arena *a)
{
    const CgLinTerm *t = NULL;
    int n = 0, weighted = 0;
    char why[256];
    assert(cg_linear_terms(hb_example(a, 5), 0, a, &t, &n, why, sizeof why));
    for (int i = 0; i < n; i++)
        weighted += t[i].nparams == 1 && t[i].params[0] == 0;
    assert(n == 4 && weighted == 3);
}

static void retime(Arena *a, IrProgram *box3d)
{
    const KKernel *k = kernel(a, box3d, "tb=32x4x1,stream=z,sb=32,retime=on");
    int R = box3d->halo[2];
    char last[16], past[16];
    snprintf(last, sizeof last, "a%d", 2 * R);
    snprintf(past, sizeof past, "a%d", 2 * R + 1);
    assert(declares(a, &k->body, "a0", "(double)0") && declares(a, &k->body, last, "(double)0"));
    assert(!find(&k->body, KS_DECL, past));
    const KStmt *loop = find(&k->body, KS_FOR, "t0");
    assert(loop && kir_count_stmts(&loop->body, KS_BARRIER) == 1);
    assert(kir_count_index(&loop->body, "rd") == (1 + 2 * box3d->halo[1]) * (2 * box3d->halo[0] + 1));
    assert(assigns(a, &loop->body, "a0", "a1") && assigns(a, &loop->body, last, "(double)0"));
    assert(!assigns(a, &loop->body, last, "a0"));
}

/* Retiming with four rows a thread (bm along y): partial sums per row, one staged tile of
 * 4 x tb rows plus the halo, each row's sums shifted, still one barrier per plane. */
static void retime_rows(Arena *a, IrProgram *box3d)
{
    const KKernel *k = kernel(a, box3d, "tb=32x2x1,stream=z,sb=32,retime=on,bm=1x4x1");
    int R = box3d->halo[2];
    char last[16];
    snprintf(last, sizeof last, "a%d_3", 2 * R);
    assert(declares(a, &k->body, "a0_0", "(double)0") && declares(a, &k->body, last, "(double)0"));
    assert(!find(&k->body, KS_DECL, "a0") && !find(&k->body, KS_DECL, "a0_4"));
    assert(declares(a, &k->body, "jb", "bb0 + (int)threadIdx.y * 4"));
    const KStmt *loop = find(&k->body, KS_FOR, "t0");
    assert(loop && kir_count_stmts(&loop->body, KS_BARRIER) == 1);
    /* each value around the four rows read once from the staged plane: 6 x 3 for a 3x3x3 box,
     * where four one-row threads read 4 x 9 */
    assert(kir_count_index(&loop->body, "rd") == (4 + 2 * box3d->halo[1]) * (2 * box3d->halo[0] + 1));
    for (int o = 0; o < 4; o++) {
        char a0[16], a1[16];
        snprintf(a0, sizeof a0, "a0_%d", o);
        snprintf(a1, sizeof a1, "a1_%d", o);
        assert(assigns(a, &loop->body, a0, a1));
    }
    Config c;
    StreamGeom g;
    char why[256];
    config_parse("tb=32x2x1,stream=z,sb=32,retime=on,bm=1x4x1", 3, &c, why, sizeof why);
    assert(cg_stream_geom(box3d, 0, &c, &g, why, sizeof why) == 0);
    assert(g.bm == 4 && g.H == 2 * 4 + 2 * g.hb && g.smem_elems == 2L * g.W * g.H);
}

/* Retiming with asynchronous copies (async=on): three slots a source; the loop waits for plane
 * t, passes one barrier, then copies plane t + 2 (a group, committed) and reads plane t from
 * the rotating slot sl; no plane passes through registers; the copies are cp.async of the
 * element's size, with a plain copy before sm_80. */
static void retime_async(Arena *a, IrProgram *box3d)
{
    const char *cfg = "tb=32x2x1,stream=z,sb=32,retime=on,bm=1x4x1,async=on";
    const KKernel *k = kernel(a, box3d, cfg);
    Config c;
    StreamGeom g;
    char why[256];
    assert(config_parse(cfg, 3, &c, why, sizeof why) == 0);
    assert(cg_stream_geom(box3d, 0, &c, &g, why, sizeof why) == 0);
    assert(g.async && g.src[0].slots == 3 && g.smem_elems == 3L * g.W * g.H);
    int cells = (g.W * g.H + 63) / 64;
    const KStmt *loop = find(&k->body, KS_FOR, "t0");
    assert(loop && kir_count_stmts(&loop->body, KS_BARRIER) == 1);
    assert(kir_count_stmts(&loop->body, KS_COPY) == cells && kir_count_stmts(&loop->body, KS_COPY_COMMIT) == 1);
    const KStmt *wait = kir_find_stmt(&loop->body, KS_COPY_WAIT, 0);
    assert(wait && wait->extent == 1 && kir_count_stmts(&loop->body, KS_COPY_WAIT) == 1);
    /* the first two planes before the loop, and every copy waited for at the end */
    assert(kir_count_stmts(&k->body, KS_COPY) == 3 * cells && kir_count_stmts(&k->body, KS_COPY_WAIT) == 2);
    assert(kir_find_stmt(&k->body, KS_COPY_WAIT, 1)->extent == 0);
    assert(!find(&k->body, KS_DECL, "h0_0_0") && !find(&k->body, KS_DECL, "h0_0_0n"));
    assert(declares(a, &k->body, "sl", "0") && assigns(a, &loop->body, "sl", "sl == 2 ? 0 : sl + 1"));
    assert(kir_count_index(&loop->body, "rd") == (4 + 2 * box3d->halo[1]) * (2 * box3d->halo[0] + 1));
    const char *src = source(a, box3d, cfg);
    assert(strstr(src, "cp.async.ca.shared.global [%0], [%1], 8, %2;") && strstr(src, "cp.async.wait_group 1;"));
    assert(strstr(src, "#if __CUDA_ARCH__ >= 800\n") && strstr(src, "#else\n"));
    assert(strstr(src, "two planes ahead copied asynchronously"));
    differs(a, box3d, "tb=32x2x1,stream=z,sb=32,retime=on,bm=1x4x1", cfg);
    refused(a, box3d, "tb=32x4x1,stream=z,sb=32,async=on", "without retime");
    refused(a, box3d, "tb=32x4x1,stream=z,sb=32,retime=on,prefetch=on,async=on", "prefetch=off");
    refused(a, box3d, "tb=32x4x1,stream=z,sb=32,retime=on,async=on,tblock=2", "async=on");
    refused(a, box3d, "async=on", "streaming only");
}

/* A radius of 20 along z, the axis beside a stream along y: a thread's rows (bm + 2 x 20) would
 * index past StreamSrc's per-row arrays (fuzz_parse found it, 2026-11-27); refused with a reason,
 * while streaming along z is refused for the radius along the stream. */
static void wide_beside(Arena *a)
{
    IrProgram *p = hb_program(a, "z20", 3, ELEM_FLOAT);
    int u = hb_field(a, p, "u", ROLE_STATE, 2, BC_FIXED, 0);
    int s = hb_stage(a, p);
    int sum = hb_op(a, p, s, N_ADD, hb_read(a, p, s, u, 0, 0, 0, 0), hb_read(a, p, s, u, 0, 0, 0, 20), -1);
    hb_write(a, p, s, u, hb_op(a, p, s, N_ADD, sum, hb_read(a, p, s, u, 0, 0, 1, 0), -1));
    hb_finish(p);
    assert(p->halo[2] == 20);
    refused(a, p, "tb=32x1x1,stream=y,sb=16", "beside the streaming axis");
    refused(a, p, "tb=32x1x1,stream=z,sb=16", "along the streaming axis");
}

int main(void)
{
    Arena *a = arena_new();
    IrProgram *star2d = hb_example(a, 0), *box3d = hb_example(a, 1);
    assert(star2d->dims == 2 && box3d->dims == 3);

    /* the default stays the plain kernel */
    assert(!strstr(source(a, star2d, "default"), "streaming"));
    /* every parameter changes the code */
    const char *base2 = "tb=128x1x1,stream=y,sb=32";
    assert(strstr(source(a, star2d, base2), "2.5D streaming along y"));
    differs(a, star2d, base2, "tb=128x1x1,stream=y,sb=64");
    differs(a, star2d, base2, "tb=128x1x1,stream=y,sb=32,smem=on");
    differs(a, star2d, "tb=128x1x1,stream=y,sb=32,smem=on", "tb=128x1x1,stream=y,sb=32,smem=on,regq=2");
    differs(a, star2d, base2, "tb=128x1x1,stream=y,sb=32,prefetch=on");
    differs(a, star2d, base2, "tb=128x1x1,stream=y,sb=32,uf=1x2x1");
    differs(a, box3d, "tb=32x8x1,stream=z,sb=32", "tb=32x1x8,stream=y,sb=32");
    differs(a, box3d, "tb=32x8x1,stream=z,sb=32,smem=on", "tb=32x8x1,stream=z,sb=32,smem=on,regq=3");
    differs(a, star2d, base2, "tb=128x1x1,stream=y,sb=32,retime=on");

    fast_path(a, star2d, box3d);

    /* launch geometry: sb points per block along SD, the block's tile elsewhere */
    char why[512];
    Plan *pl = build(a, box3d, "tb=32x8x1,stream=z,sb=64,smem=on,regq=3", why, sizeof why);
    assert(pl);
    PlanLaunch *l = NULL;
    for (int i = 0; i < pl->nstep; i++)
        if (strstr(pl->step[i].kernel, "step"))
            l = &pl->step[i];
    assert(l && l->tile[0] == 32 && l->tile[1] == 8 && l->tile[2] == 64);
    assert(l->smem_bytes > 0);

    /* Without smem=on: register mode (no shared memory, shuffles). With smem=on, regq = 1 +
     * planes whose centre reads come from shared memory: regq=1 keeps one shared plane for
     * the in-plane neighbours, regq=2 moves plane -1 to shared memory, regq=3 planes -1 and +1.
     * A box needs every plane in shared memory whatever regq says. */
    Config c;
    StreamGeom g;
    assert(config_parse("tb=16x1x1,stream=y,sb=32,smem=on", 2, &c, why, sizeof why) == 0);
    assert(cg_stream_geom(star2d, 0, &c, &g, why, sizeof why) == 0);
    int star_r = star2d->halo[1];
    assert(!g.reg_mode);
    assert(g.nsrc >= 1 && g.src[0].lo == 0 && g.src[0].hi == 0 && g.src[0].slots == 2);
    assert(star_r == 1);
    config_parse("tb=128x1x1,stream=y,sb=32", 2, &c, why, sizeof why);
    assert(cg_stream_geom(star2d, 0, &c, &g, why, sizeof why) == 0);
    assert(g.reg_mode && g.smem_elems == 0);
    reg_mode(a, star2d);
    config_parse("tb=128x1x1,stream=y,sb=32,smem=on,regq=2", 2, &c, why, sizeof why);
    assert(cg_stream_geom(star2d, 0, &c, &g, why, sizeof why) == 0);
    assert(!g.reg_mode && g.src[0].lo == -1 && g.src[0].hi == 0 && g.src[0].slots == 3);
    config_parse("tb=128x1x1,stream=y,sb=32,smem=on,regq=3", 2, &c, why, sizeof why);
    assert(cg_stream_geom(star2d, 0, &c, &g, why, sizeof why) == 0);
    assert(g.src[0].lo == -1 && g.src[0].hi == 1 && g.src[0].slots == 4);

    /* register mode in 3D: bm rows per thread along the other in-plane axis */
    differs(a, box3d, "tb=32x4x1,stream=z,sb=32", "tb=32x4x1,stream=z,sb=32,bm=1x2x1");
    pl = build(a, box3d, "tb=32x4x1,stream=z,sb=32,bm=1x2x1", why, sizeof why);
    assert(pl);
    for (int i = 0; i < pl->nstep; i++)
        if (strstr(pl->step[i].kernel, "step"))
            assert(pl->step[i].tile[1] == 8 && pl->step[i].smem_bytes == 0);
    refused(a, box3d, "tb=32x4x1,stream=z,sb=32,smem=on,bm=1x2x1", "register mode");
    refused(a, box3d, "tb=32x4x1,stream=z,sb=32,regq=2", "smem=on");
    refused(a, box3d, "tb=16x8x1,stream=z,sb=32", "multiple of 32");
    refused(a, box3d, "tb=32x4x1,stream=z,sb=32,bm=2x1x1", "bm along x");

    /* retiming: one staged plane (two slots), partial sums, several rows a thread; not with
     * regq */
    differs(a, box3d, "tb=32x4x1,stream=z,sb=32,smem=on", "tb=32x4x1,stream=z,sb=32,retime=on");
    refused(a, box3d, "tb=32x4x1,stream=z,sb=32,retime=on,smem=on", "retime");
    retime(a, box3d);
    retime_rows(a, box3d);
    retime_async(a, box3d);
    param_weights(a);
    config_parse("tb=32x4x1,stream=z,sb=32,retime=on", 3, &c, why, sizeof why);
    assert(cg_stream_geom(box3d, 0, &c, &g, why, sizeof why) == 0);
    assert(g.retime && g.smem_elems == 2L * g.W * g.H);
    refused(a, box3d, "tb=32x4x1,stream=z,sb=32,retime=on,regq=2", "retime");
    refused(a, hb_example(a, 2), "tb=32x1x1,stream=y,sb=32,retime=on", "weighted sum");
    config_parse("tb=32x8x1,stream=z,sb=32,smem=on,regq=3", 3, &c, why, sizeof why);
    assert(cg_stream_geom(box3d, 0, &c, &g, why, sizeof why) == 0);
    assert(g.src[0].lo == -box3d->halo[2] && g.src[0].hi == box3d->halo[2]);

    /* constraints */
    wide_beside(a);
    refused(a, star2d, "tb=32x8x1,stream=y,sb=32", "1 thread along y");
    refused(a, star2d, "tb=128x1x1,stream=y", "at least 8 planes");
    refused(a, star2d, "tb=128x1x1,stream=y,sb=8,uf=1x16x1", "exceeds sb");
    refused(a, star2d, "sb=64", "streaming only");
    refused(a, star2d, "prefetch=on", "streaming only");
    refused(a, star2d, "tb=128x1x1,stream=y,sb=32,smem=on,regq=4", "regq");
    refused(a, star2d, "retime=on", "streaming only");
    refused(a, star2d, "tb=128x1x1,stream=y,sb=32,cmem=on", "with streaming");
    refused(a, star2d, "tb=128x1x1,stream=z,sb=32", "");

    /* space: the stream parameters have values; sb stops at the axis */
    Space s;
    long n[3] = {100, 100, 1};
    space_init(&s, star2d, n);
    assert(s.params[P_STREAM].nvalues == 2 && s.params[P_PREFETCH].nvalues == 2);
    assert(s.params[P_SB].values[s.params[P_SB].nvalues - 1] == 128);
    assert(s.params[P_REGQ].nvalues == 3);
    config_parse("tb=128x1x1,stream=y,sb=256", 2, &c, why, sizeof why);
    assert(!space_check(&s, &c, why, sizeof why));
    arena_free(a);
    printf("stream pass: ok\n");
    return 0;
}
