/* Runs the diffusion kernel generated from diffuse2d.st for 25 steps on a 101 x 67 torus and
 * checks it against a plain CPU loop that wraps its indices. The grid starts with a hot stripe
 * across the x edge, so the periodic boundary carries heat from one side to the other.
 * Prints "diffuse2d_app: ok" and exits 0 when every interior point agrees to 1e-5. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "diffuse2d.h"

/* Prints a failed CUDA call's error; true when the call succeeded. */
static int ok(cudaError_t err, const char *what)
{
    if (err != cudaSuccess)
        fprintf(stderr, "diffuse2d_app: %s: %s\n", what, cudaGetErrorString(err));
    return err == cudaSuccess;
}

enum { NX = 101, NY = 67, STEPS = 25 };

static float at(const float *g, int i, int j) /* g: NX x NY, unpadded, indices wrap */
{
    return g[((j + NY) % NY) * NX + (i + NX) % NX];
}

int main(void)
{
    const size_t elems = diffuse2d_buffer_elems(NX, NY, 1), bytes = elems * sizeof(float);
    float *padded = calloc(elems, sizeof(float)), *a = malloc(NX * NY * sizeof(float)),
          *b = malloc(NX * NY * sizeof(float));
    if (!padded || !a || !b)
        return 1;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            a[j * NX + i] = padded[diffuse2d_index(i, j, 0, NX, NY)] = i < 3 || i > NX - 4 ? 1.0f : 0.0f;

    diffuse2d_fields f;
    /* the halo needs no values: a periodic field's halo is filled by diffuse2d_run */
    for (int l = 0; l < 2; l++)
        if (!ok(cudaMalloc((void **)&f.u[l], bytes), "cudaMalloc")
            || !ok(cudaMemcpy(f.u[l], padded, bytes, cudaMemcpyHostToDevice), "cudaMemcpy"))
            return 1;
    diffuse2d_params p = diffuse2d_params_defaults(); /* k = 0.2, from diffuse2d.st */
    if (!ok(diffuse2d_run(&f, &p, NX, NY, 1, STEPS, NULL, 0), "diffuse2d_run")
        || !ok(cudaDeviceSynchronize(), "the run")
        /* f.u[0]: the newest step, whichever buffer that is */
        || !ok(cudaMemcpy(padded, f.u[0], bytes, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        return 1;

    for (int s = 0; s < STEPS; s++) {
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                b[j * NX + i] = at(a, i, j) + p.k * (at(a, i - 1, j) + at(a, i + 1, j) + at(a, i, j - 1)
                                                     + at(a, i, j + 1) - 4 * at(a, i, j));
        float *t = a;
        a = b, b = t;
    }
    double worst = 0;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            worst = fmax(worst, fabs((double)padded[diffuse2d_index(i, j, 0, NX, NY)] - a[j * NX + i]));
    printf("diffuse2d_app: %d steps on %dx%d, largest difference from the CPU %.3g: %s\n", STEPS,
           NX, NY, worst, worst <= 1e-5 ? "ok" : "WRONG");
    for (int l = 0; l < 2; l++)
        cudaFree(f.u[l]);
    free(padded), free(a), free(b);
    return worst <= 1e-5 ? 0 : 1;
}
