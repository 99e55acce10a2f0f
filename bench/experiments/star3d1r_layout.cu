// How to run (on a GPU machine): nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/layout bench/experiments/star3d1r_layout.cu && /tmp/layout
// Results on the H100 (2026-11-22): docs/performance.md.
// Experiment: does row alignment of the padded layout matter for star3d1r one step on the H100?
// Layout: x pitch P, interior x=0 at column OX (OX=1: today's n+2 layout; OX=32: aligned).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
template <int MY>
__global__ void __launch_bounds__(512) tile(float *__restrict__ out, const float *__restrict__ in, int n, long P, long PP, int OX)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * MY;
    int k = blockIdx.z;
    if (i >= n) return;
    const float *c = in + (long)(k + 1) * PP + (long)(j0 + 1) * P + OX + i;
    float col[MY + 2];
#pragma unroll
    for (int m = 0; m < MY + 2; m++) col[m] = __ldg(c + (m - 1) * P);
#pragma unroll
    for (int m = 0; m < MY; m++) {
        if (j0 + m >= n) break;
        const float *p = c + m * P;
        float r = 0.25f * col[m + 1] + 0.1248f * col[m] + 0.1249f * col[m + 2] + 0.125f * __ldg(p - PP) + 0.1251f * __ldg(p + PP)
                  + 0.1252f * __ldg(p - 1) + 0.1253f * __ldg(p + 1);
        out[(p - in)] = r;
    }
}
// z streaming: registers for z, x/y neighbours from global (L1)
__global__ void __launch_bounds__(512) zstream(float *__restrict__ out, const float *__restrict__ in, int n, long P, long PP, int OX, int SB)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k0 = blockIdx.z * SB;
    if (i >= n || j >= n) return;
    const float *c = in + (long)(k0 + 1) * PP + (long)(j + 1) * P + OX + i;
    float zm = __ldg(c - PP), z0 = __ldg(c);
    for (int k = 0; k < SB; k++) {
        float zp = __ldg(c + PP);
        float r = 0.25f * z0 + 0.1248f * __ldg(c - P) + 0.1249f * __ldg(c + P) + 0.125f * zm + 0.1251f * zp + 0.1252f * __ldg(c - 1) + 0.1253f * __ldg(c + 1);
        out[c - in] = r;
        zm = z0; z0 = zp; c += PP;
    }
}
__global__ void copyk(float *__restrict__ o, const float *__restrict__ i, long n) { long t = blockIdx.x * (long)blockDim.x + threadIdx.x; if (t < n) o[t] = i[t]; }

int main()
{
    const int n = 512;
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int OX : {1, 32}) {
        long P = OX == 1 ? n + 2 : ((OX + n + 1 + 31) / 32) * 32;
        long PP = P * (n + 2), tot = PP * (n + 2);
        float *x, *y; CK(cudaMalloc(&x, tot * 4)); CK(cudaMalloc(&y, tot * 4));
        cudaMemset(x, 0, tot * 4); cudaMemset(y, 0, tot * 4);
        auto timeit = [&](const char *name, auto launch) {
            for (int w = 0; w < 3; w++) launch();
            cudaEventRecord(a);
            for (int r = 0; r < 20; r++) launch();
            cudaEventRecord(b); cudaEventSynchronize(b);
            float ms; cudaEventElapsedTime(&ms, a, b); ms /= 20;
            printf("OX=%2d P=%ld %-28s %.4f ms %.1f GStencil/s  err=%s\n", OX, P, name, ms, (double)n * n * n / ms / 1e6, cudaGetErrorString(cudaGetLastError()));
        };
        timeit("copy", [&] { copyk<<<(tot + 255) / 256, 256>>>(y, x, tot); });
        timeit("tile 512x1 my4", [&] { tile<4><<<dim3(1, n / 4, n), dim3(512, 1)>>>(y, x, n, P, PP, OX); });
        timeit("tile 128x1 my4", [&] { tile<4><<<dim3(4, n / 4, n), dim3(128, 1)>>>(y, x, n, P, PP, OX); });
        timeit("tile 256x1 my2", [&] { tile<2><<<dim3(2, n / 2, n), dim3(256, 1)>>>(y, x, n, P, PP, OX); });
        timeit("tile 32x8 my1", [&] { tile<1><<<dim3(16, n / 8, n), dim3(32, 8)>>>(y, x, n, P, PP, OX); });
        timeit("tile 32x4 my4", [&] { tile<4><<<dim3(16, n / 16, n), dim3(32, 4)>>>(y, x, n, P, PP, OX); });
        for (int SB : {32, 64, 128})
            for (int by : {4, 8, 16}) {
                char nm[64]; snprintf(nm, sizeof nm, "zstream 32x%d sb%d", by, SB);
                timeit(nm, [&] { zstream<<<dim3(16, n / by, n / SB), dim3(32, by)>>>(y, x, n, P, PP, OX, SB); });
            }
        for (int SB : {32, 64}) {
            char nm[64]; snprintf(nm, sizeof nm, "zstream 64x4 sb%d", SB);
            timeit(nm, [&] { zstream<<<dim3(8, n / 4, n / SB), dim3(64, 4)>>>(y, x, n, P, PP, OX, SB); });
            snprintf(nm, sizeof nm, "zstream 128x2 sb%d", SB);
            timeit(nm, [&] { zstream<<<dim3(4, n / 2, n / SB), dim3(128, 2)>>>(y, x, n, P, PP, OX, SB); });
        }
        cudaFree(x); cudaFree(y);
    }
    return 0;
}
