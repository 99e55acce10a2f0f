// What the hand-written star3d1r experiments share (bench/experiments/star3d1r_*.cu): the error
// check, the input's fill, the largest difference between two buffers, and the timing (CUDA
// events around groups of launches after a warm-up, the median group).
#ifndef STC_EXPERIMENTS_HARNESS_CUH
#define STC_EXPERIMENTS_HARNESS_CUH
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

// The 7-point star's weights: distinct, so that a neighbour read from the wrong side shows
#define W_C 0.25f
#define W_ZM 0.1248f
#define W_ZP 0.1249f
#define W_YM 0.125f
#define W_YP 0.1251f
#define W_XM 0.1252f
#define W_XP 0.1253f

// The reference point: the star at c of a padded layout (row pitch P, plane pitch PP), in the order
// every experiment's simple kernel and its checks assume.
__device__ __forceinline__ float star_point(const float *__restrict__ in, long c, long P, long PP)
{
    return W_C * in[c] + W_ZM * in[c - PP] + W_ZP * in[c + PP] + W_YM * in[c - P] + W_YP * in[c + P] +
           W_XM * in[c - 1] + W_XP * in[c + 1];
}

#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

// A fixed pseudo-random fill in [0, 1).
__global__ void initk(float *x, long n)
{
    long t = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (t < n) x[t] = (float)((t * 2654435761u) % 1000u) * 1e-3f;
}
__global__ void diffk(const float *__restrict__ a, const float *__restrict__ b, long n, unsigned *out)
{
    long t = blockIdx.x * (long)blockDim.x + threadIdx.x;
    float d = t < n ? fabsf(a[t] - b[t]) : 0.f;
    for (int s = 16; s; s >>= 1) d = fmaxf(d, __shfl_xor_sync(0xffffffffu, d, s));
    if ((threadIdx.x & 31) == 0 && d > 0.f) atomicMax(out, __float_as_uint(d));
}
// max |a - b| over n elements; dmax: one device word of scratch
static float max_abs_diff(const float *a, const float *b, long n, unsigned *dmax)
{
    CK(cudaMemset(dmax, 0, 4));
    diffk<<<(n + 255) / 256, 256>>>(a, b, n, dmax);
    unsigned u;
    CK(cudaMemcpy(&u, dmax, 4, cudaMemcpyDeviceToHost));
    float d;
    memcpy(&d, &u, 4);
    return d;
}
// ms per launch: 3 warm-up launches, then `groups` groups of `reps` launches; the median group
template <class F> static double median_ms(F launch, int groups, int reps)
{
    static cudaEvent_t ea, eb;
    if (!ea) {
        CK(cudaEventCreate(&ea));
        CK(cudaEventCreate(&eb));
    }
    for (int w = 0; w < 3; w++) launch();
    std::vector<float> v;
    for (int g = 0; g < groups; g++) {
        cudaEventRecord(ea);
        for (int r = 0; r < reps; r++) launch();
        cudaEventRecord(eb);
        cudaEventSynchronize(eb);
        float ms;
        cudaEventElapsedTime(&ms, ea, eb);
        v.push_back(ms / reps);
    }
    std::sort(v.begin(), v.end());
    return v[groups / 2];
}
#endif
