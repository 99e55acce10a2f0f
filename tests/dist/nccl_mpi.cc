/* A test double of the NCCL calls in tests/dist/nccl_stub/nccl.h over MPI, staged through host
 * memory, so that tests/dist/run_gpu.sh can run several ranks on one GPU (NCCL refuses two ranks
 * of a communicator on one device). Test-only: the emitted code and the product use NCCL.
 *
 * Each call waits for its stream, moves the data through the host and MPI, and copies the result
 * back on the same stream before it returns, so the order of the stream's work is kept (slow, and
 * no overlap: correctness only). Point-to-point calls inside ncclGroupStart/End are posted
 * together at ncclGroupEnd, as NCCL matches them; MPI keeps the order of messages between two
 * ranks, as NCCL does. Collectives run when called, in a group too (every rank calls them in
 * the same order). The communicator is a duplicate of MPI_COMM_WORLD (rank = world rank). */
#include <mpi.h>
#include <nccl.h>

#include <cstring>
#include <vector>

struct ncclComm {
    int rank, nranks;
    MPI_Comm mc;
};

namespace {

struct P2p {
    bool send;
    void *dev;
    size_t bytes;
    int peer;
    ncclComm_t comm;
    cudaStream_t stream;
    std::vector<char> host;
};

int depth_ = 0;            /* ncclGroupStart nesting */
std::vector<P2p> pending_; /* the group's point-to-point calls */

size_t size_of(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    default: return 8;
    }
}

MPI_Datatype mpi_type(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: return MPI_INT8_T;
    case ncclUint8: return MPI_UINT8_T;
    case ncclInt32: return MPI_INT32_T;
    case ncclUint32: return MPI_UINT32_T;
    case ncclInt64: return MPI_INT64_T;
    case ncclUint64: return MPI_UINT64_T;
    case ncclFloat32: return MPI_FLOAT;
    case ncclFloat64: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

MPI_Op mpi_op(ncclRedOp_t op)
{
    switch (op) {
    case ncclSum: return MPI_SUM;
    case ncclProd: return MPI_PROD;
    case ncclMax: return MPI_MAX;
    case ncclMin: return MPI_MIN;
    default: return MPI_OP_NULL;
    }
}

/* Device to host (to_host) or back, on the stream, waited for. */
bool stage(void *host, void *dev, size_t bytes, bool to_host, cudaStream_t stream)
{
    if (!bytes)
        return true;
    cudaError_t e = cudaMemcpyAsync(to_host ? host : dev, to_host ? dev : host, bytes,
                                    to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, stream);
    return e == cudaSuccess && cudaStreamSynchronize(stream) == cudaSuccess;
}

ncclResult_t run_p2p(std::vector<P2p> &ops)
{
    std::vector<MPI_Request> req(ops.size(), MPI_REQUEST_NULL);
    for (size_t i = 0; i < ops.size(); i++) {
        P2p &o = ops[i];
        o.host.resize(o.bytes ? o.bytes : 1);
        if (o.send && !stage(o.host.data(), o.dev, o.bytes, true, o.stream))
            return ncclUnhandledCudaError;
        int rc = o.send ? MPI_Isend(o.host.data(), (int)o.bytes, MPI_BYTE, o.peer, 0, o.comm->mc, &req[i])
                        : MPI_Irecv(o.host.data(), (int)o.bytes, MPI_BYTE, o.peer, 0, o.comm->mc, &req[i]);
        if (rc != MPI_SUCCESS)
            return ncclSystemError;
    }
    if (MPI_Waitall((int)req.size(), req.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return ncclSystemError;
    for (P2p &o : ops)
        if (!o.send && !stage(o.host.data(), o.dev, o.bytes, false, o.stream))
            return ncclUnhandledCudaError;
    return ncclSuccess;
}

ncclResult_t p2p(bool send, const void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm,
                 cudaStream_t stream)
{
    if (!comm || peer < 0 || peer >= comm->nranks || (count && !buf) || count * size_of(t) > 0x7fffffffu)
        return ncclInvalidArgument;
    P2p o{send, const_cast<void *>(buf), count * size_of(t), peer, comm, stream, {}};
    if (depth_ > 0) {
        pending_.push_back(o);
        return ncclSuccess;
    }
    std::vector<P2p> one{o};
    return run_p2p(one);
}

} // namespace

extern "C" {

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    if (!id)
        return ncclInvalidArgument;
    std::memset(id, 0, sizeof *id);
    return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId, int rank)
{
    int world = 0, me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (!comm || nranks != world || rank != me)
        return ncclInvalidArgument;
    ncclComm_t c = new ncclComm{rank, nranks, MPI_COMM_NULL};
    if (MPI_Comm_dup(MPI_COMM_WORLD, &c->mc) != MPI_SUCCESS) {
        delete c;
        return ncclSystemError;
    }
    *comm = c;
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    if (!comm)
        return ncclInvalidArgument;
    MPI_Comm_free(&comm->mc);
    delete comm;
    return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t r)
{
    return r == ncclSuccess ? "no error" : "error (tests/dist/nccl_mpi.cc)";
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    if (!comm || !count)
        return ncclInvalidArgument;
    *count = comm->nranks;
    return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (!comm || !rank)
        return ncclInvalidArgument;
    *rank = comm->rank;
    return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t t, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream)
{
    if (!comm || mpi_type(t) == MPI_DATATYPE_NULL || mpi_op(op) == MPI_OP_NULL)
        return ncclInvalidArgument;
    std::vector<char> host(count * size_of(t) + 1);
    if (!stage(host.data(), const_cast<void *>(send), count * size_of(t), true, stream))
        return ncclUnhandledCudaError;
    if (MPI_Allreduce(MPI_IN_PLACE, host.data(), (int)count, mpi_type(t), mpi_op(op), comm->mc) != MPI_SUCCESS)
        return ncclSystemError;
    return stage(host.data(), recv, count * size_of(t), false, stream) ? ncclSuccess : ncclUnhandledCudaError;
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count, ncclDataType_t t, ncclComm_t comm,
                           cudaStream_t stream)
{
    if (!comm)
        return ncclInvalidArgument;
    const size_t bytes = count * size_of(t);
    std::vector<char> mine(bytes + 1), all(bytes * (size_t)comm->nranks + 1);
    if (!stage(mine.data(), const_cast<void *>(send), bytes, true, stream))
        return ncclUnhandledCudaError;
    if (MPI_Allgather(mine.data(), (int)bytes, MPI_BYTE, all.data(), (int)bytes, MPI_BYTE, comm->mc) != MPI_SUCCESS)
        return ncclSystemError;
    return stage(all.data(), recv, bytes * (size_t)comm->nranks, false, stream) ? ncclSuccess
                                                                                 : ncclUnhandledCudaError;
}

ncclResult_t ncclSend(const void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm,
                      cudaStream_t stream)
{
    return p2p(true, buf, count, t, peer, comm, stream);
}

ncclResult_t ncclRecv(void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t stream)
{
    return p2p(false, buf, count, t, peer, comm, stream);
}

ncclResult_t ncclGroupStart(void)
{
    depth_++;
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
    if (depth_ == 0)
        return ncclInvalidUsage;
    if (--depth_ > 0)
        return ncclSuccess;
    std::vector<P2p> ops;
    ops.swap(pending_);
    return run_p2p(ops);
}

} // extern "C"
