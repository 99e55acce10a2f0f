/* Runs the heat kernel generated from heat.st for 20 steps on a 37 x 29 x 23 block (odd sizes,
 * so that no tile divides them) and checks it against a plain CPU loop. The interior starts at
 * 0 with a warm spot, the halo (held fixed) at 1: heat flows in from the faces.
 * Prints "heat_app: ok" and exits 0 when every interior point agrees to 1e-5. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat.h"

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t err_ = (call);                                                      \
        if (err_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                          \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

enum { NX = 37, NY = 29, NZ = 23, STEPS = 20 };

/* One step of heat.st on padded host buffers: the interior of `out` from `in`; the halo of
 * `out` is left as it is (the fixed boundary). */
static void cpu_step(float *out, const float *in, float alpha)
{
    const long sx = 1, sy = NX + 2 * HEAT_HALO_X, sz = sy * (NY + 2 * HEAT_HALO_Y);
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                const size_t e = heat_index(i, j, k, NX, NY);
                const float *u = in + e;
                out[e] = u[0] + alpha * (u[-sx] + u[sx] + u[-sy] + u[sy] + u[-sz] + u[sz] - 6 * u[0]);
            }
}

int main(void)
{
    const size_t elems = heat_buffer_elems(NX, NY, NZ), bytes = elems * sizeof(float);
    float *start = malloc(bytes), *a = malloc(bytes), *b = malloc(bytes), *gpu = malloc(bytes);
    if (!start || !a || !b || !gpu)
        return 1;
    for (size_t e = 0; e < elems; e++)
        start[e] = 1.0f; /* the halo */
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                start[heat_index(i, j, k, NX, NY)] = (i - 10) * (i - 10) + (j - 9) * (j - 9) < 16 ? 2.0f : 0.0f;

    heat_fields f;
    for (int l = 0; l < 2; l++) {
        CHECK(cudaMalloc((void **)&f.u[l], bytes));
        CHECK(cudaMemcpy(f.u[l], start, bytes, cudaMemcpyHostToDevice));
    }
    heat_params p = heat_params_defaults(); /* alpha = 0.1, from heat.st */

    /* NULL workspace: heat has no temp fields, and the API would allocate one if it had */
    CHECK(heat_run(&f, &p, NX, NY, NZ, STEPS, NULL, 0));
    CHECK(cudaDeviceSynchronize());
    /* f.u[0] now holds the newest step, whichever buffer that is */
    CHECK(cudaMemcpy(gpu, f.u[0], bytes, cudaMemcpyDeviceToHost));

    memcpy(a, start, bytes);
    memcpy(b, start, bytes);
    for (int s = 0; s < STEPS; s++) {
        cpu_step(b, a, p.alpha);
        float *t = a;
        a = b, b = t;
    }
    double worst = 0;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                const size_t e = heat_index(i, j, k, NX, NY);
                worst = fmax(worst, fabs((double)gpu[e] - a[e]));
            }
    printf("heat_app: %d steps on %dx%dx%d, largest difference from the CPU %.3g: %s\n", STEPS,
           NX, NY, NZ, worst, worst <= 1e-5 ? "ok" : "WRONG");
    for (int l = 0; l < 2; l++)
        CHECK(cudaFree(f.u[l]));
    free(start), free(a), free(b), free(gpu);
    return worst <= 1e-5 ? 0 : 1;
}
