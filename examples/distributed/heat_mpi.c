/* The 3D heat equation on every GPU of an MPI job: MPI starts the ranks and shares NCCL's id;
 * stencilc's distributed API does the rest (docs/distributed.md).
 *   make && NCCL_NVLS_ENABLE=0 mpirun -np 4 ./heat_mpi 512 512 1024 100 */
#include <mpi.h>
#include "heat_rank.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, ngpu = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int global[3] = {argc > 3 ? atoi(argv[1]) : 256, argc > 3 ? atoi(argv[2]) : 256,
                           argc > 3 ? atoi(argv[3]) : 256};
    const int steps = argc > 4 ? atoi(argv[4]) : 100, procs[3] = {1, 1, size};
    cudaGetDeviceCount(&ngpu);
    cudaSetDevice(rank % (ngpu > 0 ? ngpu : 1));
    ncclUniqueId id;
    if (rank == 0)
        ncclGetUniqueId(&id);
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    if (ncclCommInitRank(&comm, size, id, rank) != ncclSuccess)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double mine = 0, total = 0;
    int rc = heat_rank_main(comm, rank, global, procs, steps, &mine);
    MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && rc == 0)
        printf("%d ranks, %d x %d x %d, %d steps: total heat %.6e\n", size, global[0], global[1], global[2],
               steps, total);
    ncclCommDestroy(comm);
    MPI_Finalize();
    return rc;
}
