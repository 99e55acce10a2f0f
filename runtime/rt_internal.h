/* Internals shared by the runtime's files: the CUDA driver and NVRTC entry points, resolved at
 * run time with dlsym (stencilc links nothing from CUDA, so it builds and runs without a GPU),
 * and the objects behind rt.h's opaque handles. cuda.h and nvrtc.h are included for their types
 * only. */
#ifndef STC_RT_INTERNAL_H
#define STC_RT_INTERNAL_H
#include <cuda.h>
#include <nvrtc.h>
#include "rt.h"

/* The driver entry points, by the symbol names every driver since CUDA 4 exports (cuda.h maps
 * e.g. cuMemAlloc to cuMemAlloc_v2 with macros; dlsym needs the real names). */
typedef struct {
    void *libcuda, *libnvrtc;
    CUresult (*Init)(unsigned);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (*DeviceTotalMem)(size_t *, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*FuncSetAttribute)(CUfunction, CUfunction_attribute, int);
    CUresult (*FuncGetAttribute)(int *, CUfunction_attribute, CUfunction);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemGetInfo)(size_t *, size_t *);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*MemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
    CUresult (*EventCreate)(CUevent *, unsigned);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
    CUresult (*EventDestroy)(CUevent);
    CUresult (*GetErrorName)(CUresult, const char **);
    CUresult (*GetErrorString)(CUresult, const char **);

    nvrtcResult (*nvrtcVersion)(int *, int *);
    nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int,
                                      const char *const *, const char *const *);
    nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
    const char *(*nvrtcGetErrorString)(nvrtcResult);
} CudaApi;

/* cuda_loader.c: opens libcuda and libnvrtc and resolves every entry point above. Returns 0, or
 * -1 with a reason in why (both libraries closed again). */
int rt_cuda_load(CudaApi *api, char *why, int whylen);
/* NVRTC alone (the driver's entry points stay NULL): compiling where no GPU is. */
int rt_nvrtc_load(CudaApi *api, char *why, int whylen);
/* Creates and compiles source as every NVRTC compile here does (the context's architecture,
 * -default-device, C++17; with ptxas_verbose, -Xptxas -v for the resource report). Returns 0
 * with *prog to destroy, the compile's result in *result and the -arch option in arch; -1 when
 * the program could not be created (log says why). */
int rt_nvrtc_build(const RtContext *rc, const char *source, const char *name, int ptxas_verbose,
                   nvrtcProgram *prog, char arch[32], nvrtcResult *result, char *log, int loglen);
void rt_cuda_unload(CudaApi *api);
/* rt_nvcc.c: source compiled by $STC_NVCC as `nvcc -c` compiles device code, for the context's
 * architecture: the CUBIN (and its size), the PTX and ptxas's report (-Xptxas -v), each
 * malloc'd where its pointer is not NULL. 0, or -1 with nvcc's output in log. */
int rt_nvcc_build(const RtContext *rc, const char *source, void **cubin, size_t *cubin_size,
                  char **ptx, char **report, char *log, int loglen);

struct RtContext {
    CudaApi api;
    CUdevice dev;
    CUcontext ctx;
    RtDeviceInfo info;
    CUdeviceptr flush_buf;  /* written between timed repetitions (rt_time.c), lazily */
    size_t flush_bytes;
};

/* The functions of one launch list, resolved from the module. */
struct RtModule {
    RtContext *rc;
    const Plan *plan;
    CUmodule mod;
    CUfunction *prologue, *step, *single, *reduce, *fused, *after;
    CUfunction *held, hold_copy, hold_edge; /* hold=on (rt_hold.c): NULL, 0 without */
};

struct RtGrid {
    RtContext *rc;
    const IrProgram *prog;
    int n[3], pad[3];
    long total;                 /* elements per buffer */
    size_t bytes;               /* bytes per buffer */
    CUdeviceptr buf[RT_MAX_FIELDS][4]; /* [3]: a three-level field's fourth (rt_ring.c) */
    int newest[RT_MAX_FIELDS];  /* which buffer of a state field holds step t */
    int ring[RT_MAX_FIELDS];    /* 4 while a three-level field runs on four buffers, else 0 */
    double *params;             /* one per program parameter */
    long step;                  /* the run's next step (the built-in step): 0 after the prologue */
    CUdeviceptr scratch;        /* the reductions' (ARG_SCRATCH) while rt_reduce runs, else 0 */
    CUdeviceptr hold[RT_MAX_FIELDS][4]; /* hold=on: the extended copies (rt_hold.c), kept */
    size_t hold_bytes;          /* the size they were allocated for (0: none) */
};

/* The GPU's reductions on g against the interpreter's on state (g's own state downloaded):
 * their largest relative error raises res->max_rel_err, and sets res->worst_reduce
 * (rt_reduce.c). Returns 0, or -1 with why when they could not run. */
int rt_verify_reductions(RtModule *m, RtGrid *g, InterpGrid *state, RtVerifyResult *res, char *why, int whylen);
/* The fused step (NAME_run_reduce's last step) checked as rt_verify_plan checks the plan: from
 * the same random start (seed), `steps` steps with the last one fused; its fields against the
 * interpreter's final state want, every reduction against the interpreter's on want. Raises
 * res->max_rel_err and sets worst_field or worst_reduce; nothing where no reduction is fused
 * (rt_reduce.c). Returns 0, or -1 with why when it could not run. */
int rt_verify_fused(RtModule *m, const int n[3], long steps, unsigned seed, const InterpGrid *want,
                    RtVerifyResult *res, char *why, int whylen);
/* Before and after the launches of a plan whose three-level fields have four buffers
 * (Plan.ring3): the fourth joins the ring behind the oldest level, and leaves it again with
 * the three newest levels in buf[0..2] (rt_ring.c). */
int rt_ring_widen(RtGrid *g, const Plan *plan, char *why, int whylen);
void rt_ring_narrow(RtGrid *g);
/* Launches ls[0..n) with their functions fns on g, in order (rt_run.c). */
int rt_launch_list(RtModule *m, RtGrid *g, const PlanLaunch *ls, const CUfunction *fns, int n, char *why,
                   int whylen);

/* Writes "what: CUDA_ERROR_X (description)" into why when r is an error; returns 0 or -1. */
/* hold=on (rt_hold.c): whether the held groups take a grid of n, and `groups` of them run. */
int rt_hold_fits(const Plan *p, const int n[3]);
int rt_run_held(RtModule *m, RtGrid *g, long groups, char *why, int whylen);

int rt_cu_check(const RtContext *rc, CUresult r, const char *what, char *why, int whylen);
#define RT_CU(rc, call, what, why, whylen) rt_cu_check((rc), (rc)->api.call, (what), (why), (whylen))

#endif
