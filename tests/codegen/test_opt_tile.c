/* The tile pass: every parameter changes the emitted kernel, the launch geometry (tile, shared
 * memory bytes) is exact, the constraints refuse what the pass cannot do, with their reasons, and
 * the emitted device code compiles with nvcc without warnings when nvcc is there. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen.h"
#include "hand_ir.h"
#include "space.h"

/* The reason space_check gives for cfg on p with grid n (NULL: unknown), or "" when valid. */
static const char *refusal(const IrProgram *p, const long *n, const char *cfg)
{
    static char why[256];
    Config c;
    assert(config_parse(cfg, p->dims, &c, why, sizeof why) == 0);
    Space s;
    space_init(&s, p, n);
    if (space_check(&s, &c, why, sizeof why))
        return "";
    return why;
}

static void refused(const IrProgram *p, const long *n, const char *cfg, const char *needle)
{
    const char *why = refusal(p, n, cfg);
    if (!*why || !strstr(why, needle)) {
        fprintf(stderr, "%s '%s': expected a refusal with '%s', got '%s'\n", p->name, cfg, needle, why);
        assert(0);
    }
}

static const PlanLaunch *stage_launch(const Plan *plan, const char *kernel)
{
    for (int i = 0; i < plan->nstep; i++)
        if (strcmp(plan->step[i].kernel, kernel) == 0)
            return &plan->step[i];
    assert(0);
    return NULL;
}

static int compile_with_nvcc(const char *source, const char *tag)
{
    const char *nvcc = "/usr/local/cuda/bin/nvcc";
    if (access(nvcc, X_OK) != 0)
        return 0;
    char path[256], cmd[768];
    snprintf(path, sizeof path, "/tmp/stc_tile_%ld_%s.cu", (long)getpid(), tag);
    FILE *f = fopen(path, "w");
    assert(f);
    fputs(source, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -c -x cu -Werror all-warnings -o /dev/null %s", nvcc, path);
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "nvcc failed on %s\n", path);
    else
        remove(path);
    assert(rc == 0);
    return 1;
}

int main(void)
{
    Arena *arena = arena_new();
    IrProgram *star = hb_example(arena, 0);   /* 2D float, radius 1, fixed */
    IrProgram *box = hb_example(arena, 1);    /* 3D double, 27 points */
    IrProgram *wave = hb_example(arena, 2);   /* 2D, 3 levels + coef */
    IrProgram *two = hb_example(arena, 4);    /* 2D, two stages with a temp */
    IrProgram *heat = hb_example(arena, 5);   /* 1D */

    /* the plain kernel is untouched by the pass */
    Plan *plain = hb_plan(arena, star, "default");
    hb_lacks(plain->source, "tile pass");

    /* smem: a staged array with its halo, exact bytes (32+2) x (8*4+2) floats */
    Plan *p1 = hb_plan(arena, star, "tb=32x8,smem=on");
    hb_has(p1->source, "extern __shared__ __align__(16) unsigned char tile_smem[];");
    hb_has(p1->source, "__syncthreads();");
    const PlanLaunch *l = stage_launch(p1, p1->step[0].kernel);
    assert(l->smem_bytes == 34 * 10 * 4);
    assert(l->tile[0] == 32 && l->tile[1] == 8);
    Plan *p2 = hb_plan(arena, star, "tb=32x8,smem=on,bm=1x4,uf=1x4");
    l = &p2->step[0];
    assert(l->smem_bytes == 34 * 34 * 4);
    assert(l->tile[0] == 32 && l->tile[1] == 32 && l->block[1] == 8);
    hb_has(p2->source, "const int b1 = (int)threadIdx.y * 4;");
    /* the register cache: 3 x 6 distinct values for 4 points of a 5-point star minus corners */
    hb_has(p2->source, "const float r0 = ");
    hb_has(p2->source, "f_u_lp1[idxb + 3 * s1] = ");
    hb_lacks(p2->source, "#pragma unroll 4");

    /* uf below the merge factor: a pragma loop instead of generator-unrolled points */
    Plan *p3 = hb_plan(arena, star, "tb=32x8,bm=1x4,uf=1x2");
    hb_has(p3->source, "#pragma unroll 2\n");
    hb_has(p3->source, "for (int m1 = 0; m1 < 4; m1++)");
    assert(strcmp(p3->source, hb_plan(arena, star, "tb=32x8,bm=1x4,uf=1x1")->source) != 0);

    /* cyclic merging: points tb apart, tile tb * cm */
    Plan *p4 = hb_plan(arena, star, "tb=32x8,cm=2x1,uf=2x1");
    hb_has(p4->source, "f_u_lp1[idxb + 32] = ");
    assert(p4->step[0].tile[0] == 64 && p4->step[0].block[0] == 32);
    Plan *p4b = hb_plan(arena, star, "tb=32x8,cm=2x1,uf=1x1");
    hb_has(p4b->source, "m0 * 32");

    /* cmem: a __constant__ array named after the kernel, no float immediates left */
    Plan *p5 = hb_plan(arena, star, "tb=32x8,cmem=on");
    hb_has(p5->source, "__constant__ float p_star2d1r_step_c[");
    hb_has(p5->source, "p_star2d1r_step_c[0]");
    hb_lacks(p5->source, "0.200000003f *");

    /* 3 levels, coef, params; 3D double; two stages; 1D */
    Plan *p6 = hb_plan(arena, wave, "tb=32x4,bm=2x2,uf=2x2,smem=on,cmem=on");
    (void)p6;
    Plan *p7 = hb_plan(arena, box, "tb=32x4x2,bm=1x1x4,uf=1x1x4,smem=on");
    assert(p7->step[0].smem_bytes == 34 * 6 * 10 * 8);
    Plan *p8 = hb_plan(arena, two, "tb=32x8,cm=1x2,uf=1x2,smem=on");
    int stage_kernels = 0;
    for (int i = 0; i < p8->nstep; i++)
        stage_kernels += strstr(p8->step[i].kernel, "_stage") != NULL;
    assert(stage_kernels == 2);
    Plan *p9 = hb_plan(arena, heat, "tb=128,bm=4,uf=4,smem=on");
    assert(p9->step[0].tile[0] == 512);

    /* vec: the x points of a thread as one vector load/store per aligned run. star2d1r has a
     * halo of 1, so the tiles start one point before the grid and the launch covers n + 1. */
    Plan *v1 = hb_plan(arena, star, "tb=32x8,bm=2x2,uf=2x2");
    Plan *v2 = hb_plan(arena, star, "tb=32x8,bm=2x2,uf=2x2,vec=2");
    assert(strcmp(v1->source, v2->source) != 0);
    hb_lacks(v1->source, "float2");
    hb_has(v2->source, "const int o0 = (int)(blockIdx.x * 64u) - 1;\n");
    hb_has(v2->source, "const bool vec_ok = s1 % 2 == 0 && ((unsigned long long)f_u_lp1 | "
                        "(unsigned long long)f_u_l0) % 8u == 0;");
    hb_has(v2->source, "if (o0 + b0 >= 0 && vec_ok && ");
    hb_has(v2->source, "const float2 q0 = *(const float2 *)&f_u_l0[idxb];\n");
    hb_has(v2->source, "*(float2 *)&f_u_lp1[idxb] = float2{w0_0, w0_1};");
    hb_has(v2->source, "*(float2 *)&f_u_lp1[idxb + s1] = float2{w0_0, w0_1};");
    hb_has(v2->source, "if (i >= 0 && i < n0 && j < n1)"); /* the slow path skips the halo point */
    hb_lacks(v2->source, " f_u_lp1[idxb] = ");                /* no scalar store on the fast path */
    assert(v2->step[0].extra[0] == 1 && v1->step[0].extra[0] == 0);
    assert(v2->step[0].tile[0] == 64);
    /* x neighbours outside the thread's vectors stay scalar loads */
    hb_has(v2->source, "= f_u_l0[idxb - 1];");
    hb_has(v2->source, "= f_u_l0[idxb + 2];");
    /* doubles, 3D box of radius 1: again 1 point before the grid; 4 doubles are too wide */
    Plan *v4 = hb_plan(arena, box, "tb=32x4x2,bm=2x1x1,uf=2x1x1,vec=2");
    hb_has(v4->source, "const int o0 = (int)(blockIdx.x * 64u) - 1;\n");
    hb_has(v4->source, "const double2 q0 = *(const double2 *)&");
    hb_has(v4->source, "% 16u == 0;");
    hb_has(v4->source, "= double2{w0_0, w0_1};");
    assert(v4->step[0].extra[0] == 1);
    refused(box, NULL, "tb=32x4x2,bm=4x1x1,uf=4x1x1,vec=4", "beyond the 16 of one load");
    /* 4 floats: the shift is halo mod 4 */
    Plan *v3 = hb_plan(arena, star, "tb=32x8,bm=4x1,uf=4x1,vec=4");
    hb_has(v3->source, "const int o0 = (int)(blockIdx.x * 128u) - 1;\n");
    hb_has(v3->source, "= float4{w0_0, w0_1, w0_2, w0_3};");
    /* 1D: no row check; two stages with a temp; 3 levels + coef */
    Plan *v5 = hb_plan(arena, heat, "tb=128,bm=2,uf=2,vec=2");
    hb_has(v5->source, "const bool vec_ok = ((");
    Plan *v6 = hb_plan(arena, two, "tb=32x8,bm=2x1,uf=2x1,vec=2");
    hb_has(v6->source, "_stage0(");
    hb_has(v6->source, "_stage1(");
    assert(strstr(strstr(v6->source, "_stage1("), "double2{") != NULL); /* both stages store vectors */
    Plan *v7 = hb_plan(arena, wave, "tb=32x4,bm=4x2,uf=4x2,cmem=on,vec=2");
    hb_has(v7->source, "float2{");
    refused(star, NULL, "tb=32x8,bm=1x2,uf=1x2,vec=2", "bm x >= 2");
    refused(star, NULL, "tb=32x8,bm=2x1,uf=1x1,vec=2", "unrolled by the generator");
    refused(star, NULL, "tb=32x8,cm=2x1,uf=2x1,vec=2", "bm x = 2 with cyclic merging");
    refused(star, NULL, "tb=32x8,bm=4x1,cm=2x1,uf=8x1,vec=2", "except the vectors of vec");
    refused(star, NULL, "tb=32x8,bm=2x1,cm=2x1,uf=2x1,vec=2", "uf x = bm x * cm x = 4");
    refused(star, NULL, "tb=32x8,bm=2x2,cm=2x1,uf=4x2,vec=2", "block merging (bm) and cyclic");
    /* vec with cyclic merging along x: runs of 2 adjacent points (one vector) dealt out cm x
     * times, tb x vectors apart: thread t's points are 2t + {0, 1} and 64 + 2t + {0, 1} of its
     * 128-point tile; the fast path's last point is at 64 + 1 */
    Plan *v8 = hb_plan(arena, star, "tb=32x8,bm=2x1,cm=2x2,uf=4x1,vec=2");
    hb_has(v8->source, "block-cyclic merging");
    hb_has(v8->source, "const int o0 = (int)(blockIdx.x * 128u) - 1;\n");
    hb_has(v8->source, "const int b0 = (int)threadIdx.x * 2;\n");
    hb_has(v8->source, "if (o0 + b0 >= 0 && vec_ok && o0 + b0 + 65 < n0 && o1 + b1 + 8 < n1)");
    hb_has(v8->source, "const float2 q0 = *(const float2 *)&f_u_l0[idxb];\n");
    hb_has(v8->source, "= *(const float2 *)&f_u_l0[idxb + 64];\n");
    hb_has(v8->source, "*(float2 *)&f_u_lp1[idxb + 64] = float2{w0_0, w0_1};");
    hb_has(v8->source, "= f_u_l0[idxb + 63];");
    hb_has(v8->source, "const int i = o0 + b0 + m0 / 2 * 64 + m0 % 2;"); /* slow path */
    assert(v8->step[0].tile[0] == 128 && v8->step[0].extra[0] == 1);
    refused(star, NULL, "tb=32x8,bm=2x1,uf=2x1,smem=on,vec=2", "smem=on");
    refused(star, NULL, "tb=128x1,stream=y,sb=64,vec=2", "tile pass only");
    long odd[3] = {65, 64, 1};
    refused(star, odd, "tb=32x8,bm=2x1,uf=2x1,vec=2", "67 elements");
    long even[3] = {64, 64, 1};
    assert(*refusal(star, even, "tb=32x8,bm=2x1,uf=2x1,vec=2") == 0);
    refused(star, even, "tb=16x8,bm=4x1,uf=4x1,vec=4", "66 elements");

    /* hcol: the blocks that hold x = 0 or x = n0 - 1 store their rows' halo columns again, from
     * the newest buffer (the same fixed values), one row per thread */
    Plan *h1 = hb_plan(arena, star, "tb=32x8,cm=2x1,uf=2x1,hcol=on");
    hb_has(h1->source, "const bool lo = o0 <= 0;\n"); hb_has(h1->source, "const bool hi = o0 <= n0 - 1 && o0 + 64 > n0 - 1;\n");
    hb_has(h1->source, "for (int r = htid; r < 8; r += 256) {\n");
    hb_has(h1->source, "const int j = o1 + r % 8;\n");
    hb_has(h1->source, "const long long row = (long long)(j + 1) * s1;\n");
    hb_has(h1->source, "f_u_lp1[row] = f_u_l0[row];\n");
    hb_has(h1->source, "f_u_lp1[row + n0 + 1] = f_u_l0[row + n0 + 1];\n");
    Plan *h0 = hb_plan(arena, star, "tb=32x8,cm=2x1,uf=2x1");
    hb_lacks(h0->source, "halo columns");
    hb_lacks(h0->source, "htid");
    /* alone it turns the tile kernel on (one point a thread); with vec the tiles start a point
     * before the grid, and the first block still holds x = 0 */
    Plan *h2 = hb_plan(arena, star, "tb=64x4,hcol=on");
    hb_has(h2->source, "o0 + 64 > n0 - 1");
    hb_has(h2->source, "for (int r = htid; r < 4; r += 256) {\n");
    Plan *h3 = hb_plan(arena, star, "tb=32x8,bm=2x1,uf=2x1,vec=2,hcol=on");
    hb_has(h3->source, "const int o0 = (int)(blockIdx.x * 64u) - 1;\n");
    hb_has(h3->source, "const bool lo = o0 <= 0;\n");
    hb_has(h3->source, "const bool hi = o0 <= n0 - 1 && o0 + 64 > n0 - 1;\n");
    refused(star, NULL, "tb=128x1,stream=y,sb=64,hcol=on", "tile pass only");
    refused(star, NULL, "tb=32x8,tblock=2,hcol=on", "tblock=2 with hcol=on");
    refused(box, NULL, "tb=32x4x2,hcol=on", "no field qualifies");  /* periodic */
    refused(wave, NULL, "tb=32x8,hcol=on", "no field qualifies");   /* clamp */
    refused(heat, NULL, "tb=256,hcol=on", "no field qualifies");    /* 1D */

    /* constraints */
    refused(star, NULL, "tb=32x8,bm=1x2,cm=2x1", "block merging (bm) and cyclic merging");
    refused(star, NULL, "tb=32x8,uf=1x2", "at most the merge factor");
    refused(star, NULL, "tb=32x8,bm=1x2,uf=1x4", "at most the merge factor");
    refused(star, NULL, "tb=32x8,bm=1x1x2", "bm along z must be 1");
    refused(box, NULL, "tb=32x4x2,bm=1x8x16", "points per thread: at most 64");
    refused(box, NULL, "tb=32x4x2,bm=2x16x4", "points per thread");
    long small[3] = {64, 64, 1};
    refused(star, small, "tb=32x8,bm=1x16", "exceeds the grid");
    assert(*refusal(star, small, "tb=32x8,bm=1x8,uf=1x8") == 0);
    refused(box, NULL, "tb=32x8x4,bm=1x1x16,smem=on", "shared memory");
    IrProgram *sum = hb_program(arena, "sum1d", 1, ELEM_FLOAT);
    int u = hb_field(arena, sum, "u", ROLE_STATE, 2, BC_PERIODIC, 0);
    int s0 = hb_stage(arena, sum);
    hb_write(arena, sum, s0, u, hb_op(arena, sum, s0, N_ADD, hb_read(arena, sum, s0, u, 0, -1, 0, 0),
                                      hb_read(arena, sum, s0, u, 0, 1, 0, 0), -1));
    hb_finish(sum);
    refused(sum, NULL, "tb=256,cmem=on", "no constants");
    assert(*refusal(heat, NULL, "tb=256,cmem=on") == 0);
    refused(box, NULL, "tb=32x4x2,bm=4x4x4,uf=4x4x4", "registers");
    /* streaming and temporal blocking are other passes' business */
    assert(strcmp(refusal(star, NULL, "tb=32x8,bm=1x2,uf=1x2"), "") == 0);

    /* every source compiles without warnings */
    if (compile_with_nvcc(p2->source, "p2")) {
        const Plan *more[] = {p1, p3, p4, p4b, p5, p6, p7, p8, p9, v2, v3, v4, v5, v6, v7, h1, h2, h3};
        for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
            char tag[16];
            snprintf(tag, sizeof tag, "m%zu", i);
            compile_with_nvcc(more[i]->source, tag);
        }
    }
    arena_free(arena);
    printf("tile pass: ok\n");
    return 0;
}
