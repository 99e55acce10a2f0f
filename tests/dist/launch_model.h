/* What the fake CUDA runtime and NCCL of tests/dist/fake_cuda.cc record for
 * tests/dist/launch_model.cu: the launches, sends and receives of one simulated rank, in order. */
#ifndef STC_LAUNCH_MODEL_H
#define STC_LAUNCH_MODEL_H
#include <cuda_runtime_api.h>
#include <map>
#include <string>
#include <vector>

struct Op {
    enum Kind { LAUNCH, SEND, RECV, RECORD, WAIT } kind; /* RECORD, WAIT: an event on `stream` */
    std::string name;   /* LAUNCH: the kernel */
    dim3 grid;
    unsigned off[3];    /* LAUNCH of an _off_ copy: its offsets (x, y, z) */
    int offsets;        /* whether it is an _off_ copy (off then holds its offsets, 0 elsewhere) */
    int peer;           /* SEND, RECV */
    size_t count;
    cudaStream_t stream;
};

extern std::vector<Op> ops_;
/* kernel name -> its parameters, and the grid axes of its last ones, the offsets of an _off_
 * copy (launch_model.cu reads them from p.cu) */
extern std::map<std::string, int> nparams_;
extern std::map<std::string, std::vector<int> > offset_axes_;
extern cudaStream_t high_;                  /* the stream created at the highest priority */

/* The fake communicator: a rank and the size. */
struct ncclComm {
    int rank, nranks;
};
#endif
