/* examples/jacobi_residual.st through the emitted C API, as a user's solver would run it: the
 * Laplace equation on a 65 x 49 grid with u = x on the boundary (so the solution is u = x),
 * in rounds of 500 steps, jacobi_run then jacobi_reduce, or jacobi_run_reduce (the last step
 * fused with the reductions it can fold) every other round, stopping once the residual is below
 * 1e-8. Every round's values are compared with a plain C Jacobi written here (the
 * interpreter's comparison is tests/runtime/test_reduce.c). Prints the rounds; exits 1 on a
 * mismatch or no convergence. Built and run by run_jacobi_capi.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "jacobi.h"

enum { NX = 65, NY = 49, ROUND = 500, MAX_ROUNDS = 100 };

/* One Jacobi step of the interior of a into b (the halo of b already holds the boundary). */
static void cpu_step(const double *a, double *b)
{
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            b[jacobi_index(i, j, 0, NX, NY)] = 0.25 * (a[jacobi_index(i - 1, j, 0, NX, NY)] + a[jacobi_index(i + 1, j, 0, NX, NY)]
                                                        + a[jacobi_index(i, j - 1, 0, NX, NY)] + a[jacobi_index(i, j + 1, 0, NX, NY)]);
}

static void cpu_reduce(const double *u, jacobi_reductions *r)
{
    r->residual = 0;
    r->total = 0;
    r->lowest = INFINITY;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            double c = u[jacobi_index(i, j, 0, NX, NY)];
            double lap = u[jacobi_index(i - 1, j, 0, NX, NY)] + u[jacobi_index(i + 1, j, 0, NX, NY)]
                         + u[jacobi_index(i, j - 1, 0, NX, NY)] + u[jacobi_index(i, j + 1, 0, NX, NY)] - 4 * c;
            r->residual = fabs(lap) > r->residual ? fabs(lap) : r->residual;
            r->total += c;
            r->lowest = c < r->lowest ? c : r->lowest;
        }
}

static int close_to(double got, double want, double scale) { return fabs(got - want) <= 1e-9 * scale; }

int main(void)
{
    size_t elems = jacobi_buffer_elems(NX, NY, 1), bytes = elems * sizeof(double);
    double *a = calloc(elems, sizeof(double)), *b = calloc(elems, sizeof(double));
    for (int j = -1; j <= NY; j++)
        for (int i = -1; i <= NX; i++) {
            int inside = i >= 0 && i < NX && j >= 0 && j < NY;
            a[jacobi_index(i, j, 0, NX, NY)] = b[jacobi_index(i, j, 0, NX, NY)] = inside ? 0.0 : (double)i;
        }
    jacobi_fields f;
    if (cudaMalloc((void **)&f.u[0], bytes) != cudaSuccess || cudaMalloc((void **)&f.u[1], bytes) != cudaSuccess
        || cudaMemcpy(f.u[0], a, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "jacobi_capi: no GPU memory\n");
        return 77;
    }
    jacobi_params p = jacobi_params_defaults();
    jacobi_reductions got, want;
    int round = 0, bad = 0;
    do {
        cudaError_t err;
        if (round % 2) /* the last step's kernel folds total and lowest (jacobi.h says which) */
            err = jacobi_run_reduce(&f, &p, NX, NY, 1, ROUND, NULL, &got, 0);
        else if ((err = jacobi_run(&f, &p, NX, NY, 1, ROUND, NULL, 0)) == cudaSuccess)
            err = jacobi_reduce(&f, &p, NX, NY, 1, &got, 0);
        if (err != cudaSuccess) {
            fprintf(stderr, "jacobi_capi: %s\n", cudaGetErrorString(err));
            return 1;
        }
        for (int s = 0; s < ROUND; s++) {
            cpu_step(a, b);
            double *t = a;
            a = b;
            b = t;
        }
        cpu_reduce(a, &want);
        round++;
        double scale = NX * NY * (double)NX;
        if (!close_to(got.residual, want.residual, 1.0) || !close_to(got.total, want.total, scale)
            || !close_to(got.lowest, want.lowest, 1.0)) {
            printf("round %d: GPU residual %.17g total %.17g lowest %.17g; C %.17g %.17g %.17g\n", round, got.residual,
                   got.total, got.lowest, want.residual, want.total, want.lowest);
            bad = 1;
        }
    } while (!bad && got.residual >= 1e-8 && round < MAX_ROUNDS);
    printf("jacobi_capi: residual %.3g after %d steps (C loop %.3g), total %.12g (exact %.12g)\n", got.residual,
           round * ROUND, want.residual, got.total, (NX - 1) / 2.0 * NX * NY);
    cudaFree(f.u[0]);
    cudaFree(f.u[1]);
    free(a);
    free(b);
    return bad || got.residual >= 1e-8;
}
