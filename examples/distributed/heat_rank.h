/* One rank's part of the distributed heat example: split the grid, start from a hot block in
 * the middle, run, and report the total heat (which the fixed boundary lets flow out slowly).
 * Used by heat_mpi.c (one process per GPU, started by mpirun) and heat_threads.c (one process,
 * one thread per GPU of this machine). */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#include "heat.h"

/* The process grid: the ranks split z (slabs); pass other splits as px, py, pz. */
static int heat_rank_main(ncclComm_t comm, int rank, const int global[3], const int procs[3], int steps,
                          double *total)
{
    const int coords[3] = {rank % procs[0], rank / procs[0] % procs[1], rank / (procs[0] * procs[1])};
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    heat_dist d;
    /* depth 0: HEAT_DIST_DEPTH, the exchange depth stencilc chose (with --procs; else 1) */
    int st = heat_dist_init(&d, global, procs, coords, 0, comm, stream);
    if (st != HEAT_DIST_OK) {
        fprintf(stderr, "rank %d: %s: %s\n", rank, heat_dist_status_string(st), d.message);
        return 1;
    }
    size_t elems = heat_dist_buffer_elems(&d);
    float *host = calloc(elems, sizeof(float));
    /* a hot block in the middle of the global grid, owned points only */
    for (int k = 0; k < d.n[2]; k++)
        for (int j = 0; j < d.n[1]; j++)
            for (int i = 0; i < d.n[0]; i++) {
                int g[3] = {d.offset[0] + i, d.offset[1] + j, d.offset[2] + k}, hot = 1;
                for (int a = 0; a < 3; a++)
                    hot &= g[a] >= global[a] / 4 && g[a] < 3 * global[a] / 4;
                host[heat_index(i + d.ext_lo[0], j + d.ext_lo[1], k + d.ext_lo[2], d.local[0], d.local[1])] =
                    hot ? 1.0f : 0.0f;
            }
    heat_fields f;
    for (int l = 0; l < 2; l++) {
        cudaMalloc((void **)&f.u[l], elems * sizeof(float));
        cudaMemcpy(f.u[l], host, elems * sizeof(float), cudaMemcpyHostToDevice);
    }
    heat_params p = heat_params_defaults();
    st = heat_dist_run(&d, &f, &p, steps, NULL, stream);
    if (st != HEAT_DIST_OK) {
        fprintf(stderr, "rank %d: %s: %s\n", rank, heat_dist_status_string(st), d.message);
        return 1;
    }
    cudaMemcpy(host, f.u[0], elems * sizeof(float), cudaMemcpyDeviceToHost);
    *total = 0;
    for (int k = 0; k < d.n[2]; k++)
        for (int j = 0; j < d.n[1]; j++)
            for (int i = 0; i < d.n[0]; i++)
                *total += host[heat_index(i + d.ext_lo[0], j + d.ext_lo[1], k + d.ext_lo[2], d.local[0], d.local[1])];
    cudaFree(f.u[0]);
    cudaFree(f.u[1]);
    free(host);
    heat_dist_free(&d);
    cudaStreamDestroy(stream);
    return 0;
}
