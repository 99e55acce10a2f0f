/* The same on the GPUs of one machine without MPI: one process, ncclCommInitAll, one thread per
 * GPU (each rank's calls are collective and synchronize its stream, so each needs a thread).
 *   make && NCCL_NVLS_ENABLE=0 ./heat_threads 512 512 1024 100 */
#include <pthread.h>
#include "heat_rank.h"

enum { MAX_GPUS = 64 };
static ncclComm_t comms[MAX_GPUS];
static int ngpu, global[3], procs[3], steps, failed[MAX_GPUS];
static double heat[MAX_GPUS];

static void *rank_thread(void *arg)
{
    int rank = (int)(size_t)arg;
    cudaSetDevice(rank);
    failed[rank] = heat_rank_main(comms[rank], rank, global, procs, steps, &heat[rank]);
    return NULL;
}

int main(int argc, char **argv)
{
    cudaGetDeviceCount(&ngpu);
    if (ngpu < 1 || ngpu > MAX_GPUS || ncclCommInitAll(comms, ngpu, NULL) != ncclSuccess) {
        fprintf(stderr, "no GPUs, or NCCL could not start\n");
        return 1;
    }
    for (int a = 0; a < 3; a++)
        global[a] = argc > 3 ? atoi(argv[1 + a]) : 256;
    steps = argc > 4 ? atoi(argv[4]) : 100;
    procs[0] = procs[1] = 1;
    procs[2] = ngpu;
    pthread_t t[MAX_GPUS];
    for (int r = 0; r < ngpu; r++)
        pthread_create(&t[r], NULL, rank_thread, (void *)(size_t)r);
    double total = 0;
    int rc = 0;
    for (int r = 0; r < ngpu; r++) {
        pthread_join(t[r], NULL);
        total += heat[r];
        rc |= failed[r];
        ncclCommDestroy(comms[r]);
    }
    if (!rc)
        printf("%d GPUs, %d x %d x %d, %d steps: total heat %.6e\n", ngpu, global[0], global[1], global[2], steps,
               total);
    return rc;
}
