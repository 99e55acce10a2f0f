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
