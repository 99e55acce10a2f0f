/* examples/wave3d_energy.st (three time levels, periodic, a coef, three reductions) through the
 * emitted C API in two variants linked into one program (stencilc --name): wfused fuses two
 * steps a launch (tblock=2: the workspace's fourth buffer, rotations by two, a live level copied
 * back into the caller's buffers), wplain runs the default kernel step by step. From the same
 * start, rounds of steps (odd counts, so that the fused variant also runs its single-step tail)
 * alternate NAME_run + NAME_reduce with NAME_run_reduce (peak folded into the last step); after
 * each round the caller's pointers must be the same three buffers, and the two variants' newest
 * two levels and reductions must agree. Prints a line per round; exits 1 on a mismatch, 77
 * without a GPU. Built and run by run_wave_capi.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#include "wfused.h"
#include "wplain.h"

enum { NX = 40, NY = 36, NZ = 30, ROUNDS = 4 };

static int alloc_levels(float *u[3], const float *init, size_t elems)
{
    for (int l = 0; l < 3; l++)
        if (cudaMalloc((void **)&u[l], elems * sizeof(float)) != cudaSuccess
            || cudaMemcpy(u[l], init, elems * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess)
            return -1;
    return 0;
}

/* Whether q holds the buffers of p, in any order (nothing lost, the workspace not handed out). */
static int same_set(float *const p[3], float *const q[3])
{
    int found = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            found += p[i] == q[j];
    return found == 3;
}

/* The largest |a - b| over two device buffers, relative to the largest |b|. */
static double level_error(const float *a, const float *b, size_t elems, float *ha, float *hb)
{
    cudaMemcpy(ha, a, elems * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(hb, b, elems * sizeof(float), cudaMemcpyDeviceToHost);
    double worst = 0, scale = 1e-30;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                size_t at = wplain_index(i, j, k, NX, NY);
                worst = fmax(worst, fabs((double)ha[at] - hb[at]));
                scale = fmax(scale, fabs((double)hb[at]));
            }
    return worst / scale;
}

static int close_to(double got, double want) { return fabs(got - want) <= 1e-4 * fmax(fabs(want), 1e-3); }

int main(void)
{
    if (cudaFree(0) != cudaSuccess) {
        fprintf(stderr, "wave_capi: no GPU\n");
        return 77;
    }
    size_t elems = wplain_buffer_elems(NX, NY, NZ);
    float *u0 = malloc(elems * sizeof(float)), *kc = malloc(elems * sizeof(float));
    float *ha = malloc(elems * sizeof(float)), *hb = malloc(elems * sizeof(float));
    srand(5);
    for (size_t e = 0; e < elems; e++) {
        u0[e] = 0.5f + (float)rand() / (float)RAND_MAX;
        kc[e] = 0.5f + (float)rand() / (float)RAND_MAX;
    }
    wfused_fields ff;
    wplain_fields fp;
    float *kd;
    if (alloc_levels(ff.u, u0, elems) || alloc_levels(fp.u, u0, elems)
        || cudaMalloc((void **)&kd, elems * sizeof(float)) != cudaSuccess
        || cudaMemcpy(kd, kc, elems * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "wave_capi: no GPU memory\n");
        return 77;
    }
    ff.k = fp.k = kd;
    float *fused_set[3] = {ff.u[0], ff.u[1], ff.u[2]};
    wfused_params pf = wfused_params_defaults();
    wplain_params pp = wplain_params_defaults();
    int bad = 0;
    for (int round = 0; round < ROUNDS && !bad; round++) {
        int steps = 2 * round + 5; /* 5, 7, 9, 11: fused pairs and a single step */
        wfused_reductions got;
        wplain_reductions want;
        cudaError_t ef = round % 2 ? wfused_run_reduce(&ff, &pf, NX, NY, NZ, steps, NULL, &got, 0)
                                   : wfused_run(&ff, &pf, NX, NY, NZ, steps, NULL, 0);
        if (ef == cudaSuccess && round % 2 == 0)
            ef = wfused_reduce(&ff, &pf, NX, NY, NZ, &got, 0);
        cudaError_t ep = wplain_run(&fp, &pp, NX, NY, NZ, steps, NULL, 0);
        if (ep == cudaSuccess)
            ep = wplain_reduce(&fp, &pp, NX, NY, NZ, &want, 0);
        if (ef != cudaSuccess || ep != cudaSuccess) {
            fprintf(stderr, "wave_capi: %s / %s\n", cudaGetErrorString(ef), cudaGetErrorString(ep));
            return 1;
        }
        double e0 = level_error(ff.u[0], fp.u[0], elems, ha, hb);
        double e1 = level_error(ff.u[1], fp.u[1], elems, ha, hb);
        int ok = same_set(fused_set, ff.u) && e0 <= 1e-5 && e1 <= 1e-5 && close_to(got.energy, want.energy)
                 && close_to(got.peak, want.peak) && close_to(got.low, want.low);
        printf("round %d (%s, %d steps): levels t %.2g, t-1 %.2g; energy %.9g / %.9g, peak %.9g / %.9g, "
               "low %.9g / %.9g%s%s\n", round, round % 2 ? "run_reduce" : "run + reduce", steps, e0, e1,
               got.energy, want.energy, got.peak, want.peak, got.low, want.low,
               same_set(fused_set, ff.u) ? "" : "; the caller's buffers changed", ok ? "" : "  MISMATCH");
        bad |= !ok;
    }
    for (int l = 0; l < 3; l++) {
        cudaFree(ff.u[l]);
        cudaFree(fp.u[l]);
    }
    cudaFree(kd);
    free(u0);
    free(kc);
    free(ha);
    free(hb);
    printf("wave_capi: %s\n", bad ? "FAILED" : "ok");
    return bad;
}
