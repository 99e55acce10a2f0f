/* A fake CUDA runtime and NCCL for tests/dist/launch_model.cu: the calls the emitted distributed
 * code and nvcc's launch stubs make, recorded (launch_model.h) instead of done. No kernel runs;
 * "device" memory is host memory, and copies copy. Compiled by the host compiler: the runtime's
 * declarations come from cuda_runtime_api.h, NCCL's from tests/dist/nccl_stub. */
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "launch_model.h"

std::vector<Op> ops_;
std::map<std::string, int> nparams_;
std::map<std::string, std::vector<int> > offset_axes_;
cudaStream_t high_;
/* kernel names by host stub, filled while the program's static constructors register them (before
 * this file's globals may be constructed: made on first use) */
static std::map<const void *, std::string> &names_()
{
    static std::map<const void *, std::string> names;
    return names;
}
static dim3 cfg_grid_;
static cudaStream_t cfg_stream_;

/* ---- a fake CUDA runtime ---- */
extern "C" {
void **__cudaRegisterFatBinary(void *) { static void *h; return &h; }
void __cudaRegisterFatBinaryEnd(void **) {}
void __cudaUnregisterFatBinary(void **) {}
char __cudaInitModule(void **) { return 0; }
void __cudaRegisterVar(void **, char *, char *, const char *, int, size_t, int, int) {}
void __cudaRegisterFunction(void **, const char *host, char *, const char *name, int, uint3 *, uint3 *, dim3 *,
                            dim3 *, int *)
{
    names_()[host] = name;
}
unsigned __cudaPushCallConfiguration(dim3 grid, dim3, size_t, struct CUstream_st *stream)
{
    cfg_grid_ = grid;
    cfg_stream_ = stream;
    return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared, void *stream)
{
    *grid = cfg_grid_;
    *block = dim3(1, 1, 1);
    *shared = 0;
    *(cudaStream_t *)stream = cfg_stream_;
    return cudaSuccess;
}
}

cudaError_t cudaLaunchKernel(const void *fun, dim3 grid, dim3, void **args, size_t, cudaStream_t stream);

/* nvcc's launch stubs (CUDA 13: a kernel handle per function, then __cudaLaunchKernel; before
 * that, and with __NV_LEGACY_LAUNCH, cudaLaunchKernel) */
extern "C" cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun)
{
    *kernel = (cudaKernel_t)fun;
    return cudaSuccess;
}
extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shared,
                                          cudaStream_t stream)
{
    return cudaLaunchKernel((const void *)kernel, grid, block, args, shared, stream);
}

cudaError_t cudaLaunchKernel(const void *fun, dim3 grid, dim3, void **args, size_t, cudaStream_t stream)
{
    Op op = {};
    op.kind = Op::LAUNCH;
    op.name = names_()[fun];
    op.grid = grid;
    op.stream = stream;
    const size_t cut = op.name.find("_off_");
    if (cut != std::string::npos && nparams_.count(op.name)) {
        const std::vector<int> &axes = offset_axes_[op.name]; /* the copy's last parameters */
        const int base = nparams_[op.name] - (int)axes.size();
        for (size_t i = 0; i < axes.size(); i++)
            op.off[axes[i]] = *(unsigned *)args[base + (int)i];
        op.offsets = 1;
    }
    ops_.push_back(op);
    return cudaSuccess;
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = calloc(1, bytes ? bytes : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t) { return cudaMalloc(p, bytes); }
cudaError_t cudaFreeAsync(void *p, cudaStream_t) { return cudaFree(p); }
cudaError_t cudaMemcpyAsync(void *to, const void *from, size_t bytes, cudaMemcpyKind, cudaStream_t)
{
    memmove(to, from, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t) { memset(p, v, bytes); return cudaSuccess; }
cudaError_t cudaMemset(void *p, int v, size_t bytes) { memset(p, v, bytes); return cudaSuccess; }
cudaError_t cudaFuncSetAttribute(const void *, cudaFuncAttribute, int) { return cudaSuccess; }
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    *least = 0;
    *greatest = -5;
    return cudaSuccess;
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned, int priority)
{
    static int streams[8];
    static int n;
    *s = (cudaStream_t)&streams[n++ % 8];
    if (priority == -5)
        high_ = *s;
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static cudaError_t event_op(Op::Kind kind, cudaStream_t stream)
{
    Op op = {};
    op.kind = kind;
    op.stream = stream;
    ops_.push_back(op);
    return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t, unsigned) { return event_op(Op::WAIT, s); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned)
{
    static int events[16];
    static int n;
    *e = (cudaEvent_t)&events[n++ % 16];
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t s) { return event_op(Op::RECORD, s); }
const char *cudaGetErrorString(cudaError_t) { return "fake"; }

/* ---- a fake NCCL ---- */
extern "C" {
ncclResult_t ncclCommCount(const ncclComm_t c, int *n) { *n = c->nranks; return ncclSuccess; }
ncclResult_t ncclCommUserRank(const ncclComm_t c, int *r) { *r = c->rank; return ncclSuccess; }
ncclResult_t ncclGroupStart(void) { return ncclSuccess; }
ncclResult_t ncclGroupEnd(void) { return ncclSuccess; }
ncclResult_t ncclSend(const void *, size_t count, ncclDataType_t, int peer, ncclComm_t, cudaStream_t s)
{
    Op op = {};
    op.kind = Op::SEND, op.peer = peer, op.count = count, op.stream = s;
    ops_.push_back(op);
    return ncclSuccess;
}
ncclResult_t ncclRecv(void *, size_t count, ncclDataType_t, int peer, ncclComm_t, cudaStream_t s)
{
    Op op = {};
    op.kind = Op::RECV, op.peer = peer, op.count = count, op.stream = s;
    ops_.push_back(op);
    return ncclSuccess;
}
static size_t type_bytes(ncclDataType_t type)
{
    return type == ncclInt8 || type == ncclUint8 ? 1 : type == ncclFloat16 ? 2
           : type == ncclDouble || type == ncclInt64 || type == ncclUint64 ? 8 : 4;
}
/* The collective check and the reductions: every rank agrees with itself. */
ncclResult_t ncclAllReduce(const void *from, void *to, size_t count, ncclDataType_t type, ncclRedOp_t, ncclComm_t,
                           cudaStream_t)
{
    memmove(to, from, count * type_bytes(type));
    return ncclSuccess;
}
/* The reductions' gather: every rank's slot holds this rank's values. */
ncclResult_t ncclAllGather(const void *from, void *to, size_t count, ncclDataType_t type, ncclComm_t c, cudaStream_t)
{
    const size_t bytes = count * type_bytes(type);
    for (int r = 0; r < c->nranks; r++)
        memmove((char *)to + (size_t)r * bytes, from, bytes);
    return ncclSuccess;
}
const char *ncclGetErrorString(ncclResult_t) { return "fake"; }
}

