/* The stream pass without a GPU: every stream parameter changes the emitted source, the launch
 * geometry follows sb and the block, regq moves planes between registers and shared memory,
 * and the constraints refuse what the kernel cannot do, with a reason. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "hand_ir.h"
#include "opt.h"
#include "opt_stream.h"
#include "plan.h"
#include "space.h"
#include "../../util/arena.h"

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

/* The text of s from the first `from` to the next `to` after it (a copy in the arena). */
static const char *between(Arena *a, const char *s, const char *from, const char *to)
{
    const char *b = strstr(s, from);
    const char *e = b ? strstr(b, to) : NULL;
    if (!e)
        fprintf(stderr, "no '%s' ... '%s' in:\n%s\n", from, to, s);
    assert(b && e);
    size_t n = (size_t)(e - b);
    char *r = arena_alloc(a, n + 1);
    memcpy(r, b, n);
    r[n] = 0;
    return r;
}

/* The smem-ring kernel's fast path for full blocks: decided once per block, pointers stepped
 * by the plane stride, no bounds tests, constant ring slots where the unroll allows. */
static void fast_path(Arena *a, IrProgram *star2d, IrProgram *box3d)
{
    const char *s = source(a, star2d, "tb=128x1x1,stream=y,sb=32,smem=on,prefetch=on,uf=1x2x1");
    assert(strstr(s, "const bool full = z0 + 32 <= n1 && bx0 + 128 <= n0;"));
    assert(strstr(s, "if (full) {"));
    assert(strstr(s, "for (int t0 = z0 - 1; t0 <= tlast; t0 += 2)")); /* the general loop stays */
    const char *fast = between(a, s, "if (full) {", "return; /* the general loop");
    const char *loop = between(a, s, "for (int jj = 0; jj < 32; jj += 2)", "return;");
    /* pointers set once: own column and tile cell at plane z0, output at plane z0+R */
    assert(strstr(fast, "const float *pg0 = f_u_l0 + (long long)z0 * s1 + own_g;"));
    assert(strstr(fast, "const float *ph0_0 = f_u_l0 + (long long)z0 * s1 + tile_g + hg0;"));
    assert(strstr(fast, "float *po0 = f_u_lp1 + (long long)(z0 + 1) * s1 + own_g;"));
    /* the loop: no multiply by a stride, no 64-bit index, no per-plane predicates */
    assert(!strstr(loop, "* s1") && !strstr(loop, "long long"));
    assert(!strstr(loop, "live") && !strstr(loop, "inside") && !strstr(loop, "tlast"));
    assert(!strstr(loop, ">= z0") && !strstr(loop, "rb"));
    assert(strstr(loop, "pg0 += s1;") && strstr(loop, "ph0_0 += s1;") && strstr(loop, "po0 += s1;"));
    assert(strstr(loop, "g0_0n = *pg0;"));
    /* two slots, unroll 2: constant slots 0 and 1 */
    assert(strstr(loop, "sm0 + 0 * 130") && strstr(loop, "sm0 + 1 * 130"));
    /* prefetch: only the next group's loads test, once, that there is one */
    assert(strstr(loop, "if (jj + 2 < 32) {") && hb_count(loop, "if (jj") == 1);
    assert(hb_count(loop, "__syncthreads();") == 2);
    /* warm-up: plane z0-1 neither stores nor reads the ring (no barrier), plane z0 stores */
    const char *warm = between(a, fast, "/* warm-up plane t = z0-1 */", "#pragma unroll 1");
    assert(hb_count(warm, "__syncthreads();") == 1);

    /* no prefetch, uf=1: unrolled to the two slots */
    s = source(a, star2d, "tb=128x1x1,stream=y,sb=32,smem=on");
    loop = between(a, s, "for (int jj = 0; jj < 32; jj += 2)", "return;");
    assert(!strstr(loop, "rb") && !strstr(loop, "if (jj") && hb_count(loop, "__syncthreads();") == 2);
    /* three slots (regq=2) do not divide a power-of-two sb: unroll uf, slots computed */
    s = source(a, star2d, "tb=128x1x1,stream=y,sb=32,smem=on,regq=2,uf=1x2x1");
    loop = between(a, s, "for (int jj = 0; jj < 32; jj += 2)", "return;");
    assert(strstr(loop, "const unsigned rb = (unsigned)(jj + 4);") && strstr(loop, "% 3u"));
    assert(!strstr(loop, "* s1") && !strstr(loop, "live"));
    /* a box in 3D: whole-tile cells, four slots, unroll 4, the tile test covers both axes */
    s = source(a, box3d, "tb=32x8x1,stream=z,sb=32,smem=on");
    assert(strstr(s, "&& bx0 + 32 <= n0 && bb0 + 8 <= n1;"));
    loop = between(a, s, "for (int jj = 0; jj < 32; jj += 4)", "return;");
    assert(strstr(loop, "okf0 ? *ph0_0 : (double)0;") && !strstr(loop, "* s2"));
    assert(!strstr(loop, "rb") && hb_count(loop, "__syncthreads();") == 4);
    /* the register mode and retiming kernels have no fast path (yet) */
    assert(!strstr(source(a, box3d, "tb=32x4x1,stream=z,sb=32"), "if (full)"));
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
    assert(strstr(source(a, star2d, "tb=128x1x1,stream=y,sb=32"), "__shfl_down_sync"));
    assert(!strstr(source(a, star2d, "tb=128x1x1,stream=y,sb=32"), "__syncthreads"));
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

    /* retiming: one staged plane (two slots), partial sums; not with regq or bm */
    differs(a, box3d, "tb=32x4x1,stream=z,sb=32,smem=on", "tb=32x4x1,stream=z,sb=32,retime=on");
    refused(a, box3d, "tb=32x4x1,stream=z,sb=32,retime=on,smem=on", "retime");
    assert(strstr(source(a, box3d, "tb=32x4x1,stream=z,sb=32,retime=on"), "a6 = a0") == NULL);
    assert(strstr(source(a, box3d, "tb=32x4x1,stream=z,sb=32,retime=on"), "a0 = a1"));
    config_parse("tb=32x4x1,stream=z,sb=32,retime=on", 3, &c, why, sizeof why);
    assert(cg_stream_geom(box3d, 0, &c, &g, why, sizeof why) == 0);
    assert(g.retime && g.smem_elems == 2L * g.W * g.H);
    refused(a, box3d, "tb=32x4x1,stream=z,sb=32,retime=on,regq=2", "retime");
    refused(a, hb_example(a, 2), "tb=32x1x1,stream=y,sb=32,retime=on", "weighted sum");
    config_parse("tb=32x8x1,stream=z,sb=32,smem=on,regq=3", 3, &c, why, sizeof why);
    assert(cg_stream_geom(box3d, 0, &c, &g, why, sizeof why) == 0);
    assert(g.src[0].lo == -box3d->halo[2] && g.src[0].hi == box3d->halo[2]);

    /* constraints */
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
