// How to run (on a GPU machine): nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/zreg bench/experiments/star3d1r_zreg.cu && /tmp/zreg
// Results on the H100: docs/performance.md.
// Experiment: star3d1r, one step, 512^3, stencilc's layout (x pitch n+2, interior at offset 1).
// A z-streaming kernel that keeps z in registers and merges BM rows along y per thread, so that
// L2 sees about (BM+2)/BM reads per point instead of the tile kernel's three planes; the z loop
// is unrolled U times so that a thread has U planes' loads in flight; x neighbours from L1
// (XS=0) or from warp shuffles (XS=1, the warp's edge lanes load theirs).
#include "harness.cuh"

__global__ void simple(float *__restrict__ out, const float *__restrict__ in, int n, long P, long PP)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y, k = blockIdx.z;
    if (i >= n || j >= n) return;
    long c = (long)(k + 1) * PP + (long)(j + 1) * P + 1 + i;
    out[c] = star_point(in, c, P, PP);
}

template <int MY>
__global__ void __launch_bounds__(512) tile(float *__restrict__ out, const float *__restrict__ in, int n, long P, long PP)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * MY;
    int k = blockIdx.z;
    if (i >= n) return;
    const float *c = in + (long)(k + 1) * PP + (long)(j0 + 1) * P + 1 + i;
    float col[MY + 2];
#pragma unroll
    for (int m = 0; m < MY + 2; m++) col[m] = __ldg(c + (m - 1) * P);
#pragma unroll
    for (int m = 0; m < MY; m++) {
        const float *p = c + m * P;
        out[p - in] = W_C * col[m + 1] + W_ZM * __ldg(p - PP) + W_ZP * __ldg(p + PP) + W_YM * col[m] + W_YP * col[m + 2]
                      + W_XM * __ldg(p - 1) + W_XP * __ldg(p + 1);
    }
}

// Block BX x BY threads; a thread owns x = i, rows j0 .. j0+BM-1, planes k0 .. k0+SB-1.
template <int BM, int U, int XS>
__global__ void __launch_bounds__(256) zy(float *__restrict__ out, const float *__restrict__ in, int n, long P, long PP, int SB)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * BM;
    const int k0 = blockIdx.z * SB;
    const int lane = threadIdx.x & 31;
    const float *c = in + (long)(k0 + 1) * PP + (long)(j0 + 1) * P + 1 + i;
    float *o = out + (c - in);
    float zm[BM], z0[BM + 2];
#pragma unroll
    for (int m = 0; m < BM; m++) zm[m] = __ldg(c - PP + m * P);
#pragma unroll
    for (int m = 0; m < BM + 2; m++) z0[m] = __ldg(c + (m - 1) * P);
    for (int k = 0; k < SB; k += U) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            float zp[BM + 2], xl[BM], xr[BM];
#pragma unroll
            for (int m = 0; m < BM + 2; m++) zp[m] = __ldg(c + PP + (m - 1) * P);
#pragma unroll
            for (int m = 0; m < BM; m++) {
                if (XS) {
                    xl[m] = __shfl_up_sync(0xffffffffu, z0[m + 1], 1);
                    xr[m] = __shfl_down_sync(0xffffffffu, z0[m + 1], 1);
                    if (lane == 0) xl[m] = __ldg(c + m * P - 1);
                    if (lane == 31) xr[m] = __ldg(c + m * P + 1);
                } else {
                    xl[m] = __ldg(c + m * P - 1);
                    xr[m] = __ldg(c + m * P + 1);
                }
            }
#pragma unroll
            for (int m = 0; m < BM; m++)
                o[m * P] = W_C * z0[m + 1] + W_ZM * zm[m] + W_ZP * zp[m + 1] + W_YM * z0[m] + W_YP * z0[m + 2] + W_XM * xl[m] + W_XP * xr[m];
#pragma unroll
            for (int m = 0; m < BM; m++) zm[m] = z0[m + 1];
#pragma unroll
            for (int m = 0; m < BM + 2; m++) z0[m] = zp[m];
            c += PP;
            o += PP;
        }
    }
}

// The same with an explicit prefetch distance of two planes: plane k+2's loads are issued before
// plane k is computed.
template <int BM, int XS>
__global__ void __launch_bounds__(256) zy2(float *__restrict__ out, const float *__restrict__ in, int n, long P, long PP, int SB)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * BM;
    const int k0 = blockIdx.z * SB;
    const int lane = threadIdx.x & 31;
    const float *c = in + (long)(k0 + 1) * PP + (long)(j0 + 1) * P + 1 + i;
    float *o = out + (c - in);
    float zm[BM], z0[BM + 2], zp[BM + 2];
#pragma unroll
    for (int m = 0; m < BM; m++) zm[m] = __ldg(c - PP + m * P);
#pragma unroll
    for (int m = 0; m < BM + 2; m++) { z0[m] = __ldg(c + (m - 1) * P); zp[m] = __ldg(c + PP + (m - 1) * P); }
    for (int k = 0; k < SB; k++) {
        float zq[BM + 2], xl[BM], xr[BM];
        if (k + 1 < SB) {
#pragma unroll
            for (int m = 0; m < BM + 2; m++) zq[m] = __ldg(c + 2 * PP + (m - 1) * P);
        } else {
#pragma unroll
            for (int m = 0; m < BM + 2; m++) zq[m] = 0.f;
        }
#pragma unroll
        for (int m = 0; m < BM; m++) {
            if (XS) {
                xl[m] = __shfl_up_sync(0xffffffffu, z0[m + 1], 1);
                xr[m] = __shfl_down_sync(0xffffffffu, z0[m + 1], 1);
                if (lane == 0) xl[m] = __ldg(c + m * P - 1);
                if (lane == 31) xr[m] = __ldg(c + m * P + 1);
            } else {
                xl[m] = __ldg(c + m * P - 1);
                xr[m] = __ldg(c + m * P + 1);
            }
        }
#pragma unroll
        for (int m = 0; m < BM; m++)
            o[m * P] = W_C * z0[m + 1] + W_ZM * zm[m] + W_ZP * zp[m + 1] + W_YM * z0[m] + W_YP * z0[m + 2] + W_XM * xl[m] + W_XP * xr[m];
#pragma unroll
        for (int m = 0; m < BM; m++) zm[m] = z0[m + 1];
#pragma unroll
        for (int m = 0; m < BM + 2; m++) { z0[m] = zp[m]; zp[m] = zq[m]; }
        c += PP;
        o += PP;
    }
}

__global__ void copyk(float *__restrict__ o, const float *__restrict__ i, long n)
{
    long t = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (t < n) o[t] = i[t];
}

static const int n = 512;
static long P, PP, tot;
static float *x, *y, *ref;

template <class F> static double timeit(F launch) { return median_ms(launch, 5, 10); }

static unsigned *dmax;
static float maxdiff() { return max_abs_diff(y, ref, tot, dmax); }

template <class F> static void run(const char *name, F launch)
{
    CK(cudaMemset(y, 0, tot * 4));
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float d = maxdiff();
    double ms = timeit(launch);
    printf("%-34s %.4f ms %6.1f GStencil/s  maxdiff %.2g%s\n", name, ms, (double)n * n * n / ms / 1e6, d, d > 1e-5f ? "  WRONG" : "");
    fflush(stdout);
}

template <int BM, int U, int XS> static void sweep_zy()
{
    const int blocks[][2] = {{128, 1}, {256, 1}, {32, 8}, {64, 4}, {32, 4}};
    for (auto &b : blocks)
        for (int SB : {32, 64, 128, 512}) {
            if (SB % U) continue;
            char nm[80];
            snprintf(nm, sizeof nm, "zy bm%d u%d xs%d %dx%d sb%d", BM, U, XS, b[0], b[1], SB);
            dim3 g(n / b[0], n / (b[1] * BM), n / SB);
            run(nm, [&] { zy<BM, U, XS><<<g, dim3(b[0], b[1])>>>(y, x, n, P, PP, SB); });
        }
}
template <int BM, int XS> static void sweep_zy2()
{
    const int blocks[][2] = {{128, 1}, {256, 1}, {32, 8}, {64, 4}};
    for (auto &b : blocks)
        for (int SB : {32, 64, 128, 512}) {
            char nm[80];
            snprintf(nm, sizeof nm, "zy2 bm%d xs%d %dx%d sb%d", BM, XS, b[0], b[1], SB);
            dim3 g(n / b[0], n / (b[1] * BM), n / SB);
            run(nm, [&] { zy2<BM, XS><<<g, dim3(b[0], b[1])>>>(y, x, n, P, PP, SB); });
        }
}

int main(int argc, char **argv)
{
    P = n + 2;
    PP = P * (n + 2);
    tot = PP * (n + 2);
    CK(cudaMalloc(&x, tot * 4));
    CK(cudaMalloc(&y, tot * 4));
    CK(cudaMalloc(&ref, tot * 4));
    CK(cudaMalloc(&dmax, 4));
    initk<<<(tot + 255) / 256, 256>>>(x, tot);
    CK(cudaMemset(ref, 0, tot * 4));
    simple<<<dim3(n / 32, n / 8, n), dim3(32, 8)>>>(ref, x, n, P, PP);
    CK(cudaDeviceSynchronize());
    double cms = timeit([&] { copyk<<<(tot + 255) / 256, 256>>>(y, x, tot); });
    double bw = 2.0 * tot * 4 / cms / 1e6;
    double mms = timeit([&] { cudaMemcpyAsync(y, x, tot * 4, cudaMemcpyDeviceToDevice); });
    printf("copy kernel %.1f GB/s (roofline %.1f GStencil/s); cudaMemcpy %.1f GB/s (roofline %.1f)\n", bw, bw / 8,
           2.0 * tot * 4 / mms / 1e6, 2.0 * tot * 4 / mms / 1e6 / 8);
    run("simple 32x8", [&] { simple<<<dim3(n / 32, n / 8, n), dim3(32, 8)>>>(y, x, n, P, PP); });
    run("tile 512x1 my4", [&] { tile<4><<<dim3(1, n / 4, n), dim3(512, 1)>>>(y, x, n, P, PP); });
    run("tile 256x1 my4", [&] { tile<4><<<dim3(2, n / 4, n), dim3(256, 1)>>>(y, x, n, P, PP); });
    const char *only = argc > 1 ? argv[1] : "";
    if (!*only || *only == '1') {
        sweep_zy<2, 1, 0>(); sweep_zy<4, 1, 0>(); sweep_zy<8, 1, 0>();
        sweep_zy<2, 1, 1>(); sweep_zy<4, 1, 1>(); sweep_zy<8, 1, 1>();
    }
    if (!*only || *only == '2') {
        sweep_zy<2, 4, 0>(); sweep_zy<4, 2, 0>(); sweep_zy<4, 4, 0>(); sweep_zy<8, 2, 0>();
        sweep_zy<2, 4, 1>(); sweep_zy<4, 2, 1>(); sweep_zy<4, 4, 1>(); sweep_zy<8, 2, 1>();
        sweep_zy<1, 4, 0>(); sweep_zy<1, 8, 1>();
    }
    if (!*only || *only == '3') {
        sweep_zy2<2, 0>(); sweep_zy2<4, 0>(); sweep_zy2<8, 0>();
        sweep_zy2<2, 1>(); sweep_zy2<4, 1>(); sweep_zy2<8, 1>();
    }
    double again = timeit([&] { copyk<<<(tot + 255) / 256, 256>>>(y, x, tot); });
    printf("copy kernel again %.1f GB/s\n", 2.0 * tot * 4 / again / 1e6);
    return 0;
}
