/* What emitted CUDA uses from the CUDA headers, declared for clang's CUDA mode. `--validate`
 * parses the emitted .cu with libclang as device code for sm_90 under -nocudainc, because clang
 * 19 cannot read CUDA 13's own headers; this shim is force-included instead, and an empty
 * <cuda_runtime.h> is provided next to it. Declarations only: nothing here is compiled. */
#pragma once
#pragma clang system_header

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
/* CUDA 12.4's register cap; clang 19 has no such attribute, so it is accepted and dropped. */
#define __maxnreg__(n)
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __CUDACC__ 1
#define CUDART_VERSION 13000

typedef __SIZE_TYPE__ size_t;

struct uint3 { unsigned int x, y, z; };
struct int3 { int x, y, z; };
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct double2 { double x, y; };
struct dim3 {
    unsigned int x, y, z;
    __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
                                       unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

/* Device intrinsics. */
__device__ void __syncthreads(void);
__device__ int __syncthreads_or(int);
__device__ int __syncthreads_and(int);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ float __ldg(const float *);
__device__ double __ldg(const double *);
__device__ int __ldg(const int *);
__device__ float __shfl_sync(unsigned, float, int, int = 32);
__device__ double __shfl_sync(unsigned, double, int, int = 32);
__device__ float __shfl_up_sync(unsigned, float, unsigned, int = 32);
__device__ double __shfl_up_sync(unsigned, double, unsigned, int = 32);
__device__ float __shfl_down_sync(unsigned, float, unsigned, int = 32);
__device__ double __shfl_down_sync(unsigned, double, unsigned, int = 32);
__device__ float atomicAdd(float *, float);
__device__ double atomicAdd(double *, double);
__device__ int atomicAdd(int *, int);
__device__ unsigned atomicAdd(unsigned *, unsigned);
__device__ float __fmaf_rn(float, float, float);
__device__ double __fma_rn(double, double, double);
__device__ float __frcp_rn(float);
__device__ float __fdividef(float, float);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __powf(float, float);

/* Math, device side, as clang's own CUDA wrappers declare it: C++ overloads with internal
 * linkage over libdevice's __nv_* functions, so that a host declaration from <math.h> or
 * <stdlib.h> (extern "C", __host__) overloads them instead of clashing. */
#define STC_SHIM_MATH1(fn)                                                                \
    extern "C" __device__ double __nv_##fn(double);                                       \
    extern "C" __device__ float __nv_##fn##f(float);                                      \
    static __device__ __inline__ double fn(double x) { return __nv_##fn(x); }             \
    static __device__ __inline__ float fn##f(float x) { return __nv_##fn##f(x); }         \
    static __device__ __inline__ float fn(float x) { return __nv_##fn##f(x); }
#define STC_SHIM_MATH2(fn)                                                                \
    extern "C" __device__ double __nv_##fn(double, double);                               \
    extern "C" __device__ float __nv_##fn##f(float, float);                               \
    static __device__ __inline__ double fn(double x, double y) { return __nv_##fn(x, y); } \
    static __device__ __inline__ float fn##f(float x, float y) { return __nv_##fn##f(x, y); } \
    static __device__ __inline__ float fn(float x, float y) { return __nv_##fn##f(x, y); }
STC_SHIM_MATH1(sqrt) STC_SHIM_MATH1(rsqrt) STC_SHIM_MATH1(cbrt) STC_SHIM_MATH1(exp)
STC_SHIM_MATH1(exp2) STC_SHIM_MATH1(expm1) STC_SHIM_MATH1(log) STC_SHIM_MATH1(log2)
STC_SHIM_MATH1(log10) STC_SHIM_MATH1(log1p) STC_SHIM_MATH1(sin) STC_SHIM_MATH1(cos)
STC_SHIM_MATH1(tan) STC_SHIM_MATH1(asin) STC_SHIM_MATH1(acos) STC_SHIM_MATH1(atan)
STC_SHIM_MATH1(sinh) STC_SHIM_MATH1(cosh) STC_SHIM_MATH1(tanh) STC_SHIM_MATH1(fabs)
STC_SHIM_MATH1(floor) STC_SHIM_MATH1(ceil) STC_SHIM_MATH1(round) STC_SHIM_MATH1(trunc)
STC_SHIM_MATH1(rint)
STC_SHIM_MATH2(pow) STC_SHIM_MATH2(fmin) STC_SHIM_MATH2(fmax) STC_SHIM_MATH2(fmod)
STC_SHIM_MATH2(atan2) STC_SHIM_MATH2(hypot) STC_SHIM_MATH2(copysign)
#undef STC_SHIM_MATH1
#undef STC_SHIM_MATH2
extern "C" __device__ double __nv_fma(double, double, double);
extern "C" __device__ float __nv_fmaf(float, float, float);
/* The reductions' infinities (codegen/emit_reduce.c). */
extern "C" __device__ double __nv_longlong_as_double(long long);
static __device__ __inline__ double __longlong_as_double(long long x) { return __nv_longlong_as_double(x); }
static __device__ __inline__ double fma(double x, double y, double z) { return __nv_fma(x, y, z); }
static __device__ __inline__ float fmaf(float x, float y, float z) { return __nv_fmaf(x, y, z); }
static __device__ __inline__ float fma(float x, float y, float z) { return __nv_fmaf(x, y, z); }
static __device__ __inline__ int abs(int x) { return x < 0 ? -x : x; }
static __device__ __inline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __inline__ int max(int a, int b) { return a > b ? a : b; }
static __device__ __inline__ long long min(long long a, long long b) { return a < b ? a : b; }
static __device__ __inline__ long long max(long long a, long long b) { return a > b ? a : b; }
static __device__ __inline__ float min(float a, float b) { return fminf(a, b); }
static __device__ __inline__ float max(float a, float b) { return fmaxf(a, b); }
static __device__ __inline__ double min(double a, double b) { return fmin(a, b); }
static __device__ __inline__ double max(double a, double b) { return fmax(a, b); }

/* The runtime API. */
typedef enum cudaError {
    cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3, cudaErrorInvalidConfiguration = 9,
    cudaErrorLaunchFailure = 719, cudaErrorUnknown = 999
} cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4
};
enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9
};
enum cudaFuncCache {
    cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3
};
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventDisableTiming 0x02

extern "C" {
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t);
const char *cudaGetErrorName(cudaError_t);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetDevice(int *);
cudaError_t cudaSetDevice(int);
cudaError_t cudaMalloc(void **, size_t);
cudaError_t cudaMallocHost(void **, size_t);
cudaError_t cudaMallocAsync(void **, size_t, cudaStream_t);
cudaError_t cudaFree(void *);
cudaError_t cudaFreeHost(void *);
cudaError_t cudaFreeAsync(void *, cudaStream_t);
cudaError_t cudaMemcpy(void *, const void *, size_t, enum cudaMemcpyKind);
cudaError_t cudaMemcpyAsync(void *, const void *, size_t, enum cudaMemcpyKind,
                            cudaStream_t = 0);
cudaError_t cudaMemset(void *, int, size_t);
cudaError_t cudaMemsetAsync(void *, int, size_t, cudaStream_t = 0);
cudaError_t cudaStreamCreate(cudaStream_t *);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *, unsigned int);
cudaError_t cudaStreamDestroy(cudaStream_t);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaEventCreate(cudaEvent_t *);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *, unsigned int);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
cudaError_t cudaEventDestroy(cudaEvent_t);
cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **, size_t, cudaStream_t);
cudaError_t cudaFuncSetAttribute(const void *, enum cudaFuncAttribute, int);
cudaError_t cudaFuncSetCacheConfig(const void *, enum cudaFuncCache);
cudaError_t cudaMemcpyToSymbol(const void *, const void *, size_t, size_t = 0,
                               enum cudaMemcpyKind = cudaMemcpyHostToDevice);
cudaError_t cudaMemcpyToSymbolAsync(const void *, const void *, size_t, size_t,
                                    enum cudaMemcpyKind, cudaStream_t = 0);
/* What clang lowers <<<...>>> to. */
int cudaConfigureCall(dim3, dim3, size_t = 0, cudaStream_t = 0);
unsigned __cudaPushCallConfiguration(dim3, dim3, size_t = 0, cudaStream_t = 0);
}

/* The C++ conveniences of cuda_runtime.h. */
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t n)
{ return cudaMalloc((void **)(void *)p, n); }
template <class T> static inline cudaError_t cudaMallocHost(T **p, size_t n)
{ return cudaMallocHost((void **)(void *)p, n); }
template <class T> static inline cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t s)
{ return cudaMallocAsync((void **)(void *)p, n, s); }
template <class T>
static inline cudaError_t cudaLaunchKernel(const T *f, dim3 g, dim3 b, void **args,
                                           size_t smem = 0, cudaStream_t s = 0)
{ return cudaLaunchKernel((const void *)f, g, b, args, smem, s); }
template <class T>
static inline cudaError_t cudaFuncSetAttribute(T *f, enum cudaFuncAttribute a, int v)
{ return cudaFuncSetAttribute((const void *)f, a, v); }
template <class T>
static inline cudaError_t cudaFuncSetCacheConfig(T *f, enum cudaFuncCache c)
{ return cudaFuncSetCacheConfig((const void *)f, c); }
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T &sym, const void *src, size_t n,
                                             size_t off = 0,
                                             enum cudaMemcpyKind k = cudaMemcpyHostToDevice)
{ return cudaMemcpyToSymbol((const void *)&sym, src, n, off, k); }
template <class T>
static inline cudaError_t cudaMemcpyToSymbolAsync(const T &sym, const void *src, size_t n,
                                                  size_t off = 0,
                                                  enum cudaMemcpyKind k = cudaMemcpyHostToDevice,
                                                  cudaStream_t s = 0)
{ return cudaMemcpyToSymbolAsync((const void *)&sym, src, n, off, k, s); }
