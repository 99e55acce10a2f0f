// How to run (on a GPU machine): nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/vec bench/experiments/star3d1r_vector.cu && /tmp/vec
// Results on the H100: docs/performance.md.
// Experiment: is star3d1r's one step (512^3, float) limited by 4-byte accesses? A copy kernel
// that moves one float per thread reached 2404 GB/s where cudaMemcpy moved 2992 (H100,
// 2026-11-24), and the generator's tile kernel moves 2416: the same as the scalar copy.
// Copies of 4, 8 and 16 bytes per access, then tile kernels whose threads own VX adjacent x
// points loaded as one vector (stencilc's layout: pitch n+2, interior at column 1, so float2
// pairs start at even padded columns; and an aligned layout for float4).
#include "harness.cuh"

// ---- copies ----
template <class T>
__global__ void copyv(T *__restrict__ o, const T *__restrict__ i, long n)
{
    long t = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (t < n) o[t] = i[t];
}
// K scalar elements per thread, strided by the block (ILP without vectors)
template <int K>
__global__ void copyk(float *__restrict__ o, const float *__restrict__ i, long n)
{
    long t = blockIdx.x * (long)blockDim.x * K + threadIdx.x;
    float v[K];
#pragma unroll
    for (int k = 0; k < K; k++) v[k] = t + k * blockDim.x < n ? i[t + k * blockDim.x] : 0.f;
#pragma unroll
    for (int k = 0; k < K; k++) if (t + k * blockDim.x < n) o[t + k * blockDim.x] = v[k];
}

// ---- stencils, padded layout: column OX holds interior x = 0, pitch P ----
__global__ void simple(float *__restrict__ out, const float *__restrict__ in, int n, long P, long PP, int OX)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y, k = blockIdx.z;
    if (i >= n || j >= n) return;
    long c = (long)(k + 1) * PP + (long)(j + 1) * P + OX + i;
    out[c] = star_point(in, c, P, PP);
}

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
        const float *p = c + m * P;
        out[p - in] = W_C * col[m + 1] + W_ZM * __ldg(p - PP) + W_ZP * __ldg(p + PP) + W_YM * col[m] + W_YP * col[m + 2]
                      + W_XM * __ldg(p - 1) + W_XP * __ldg(p + 1);
    }
}

// float2 pairs in stencilc's layout (OX = 1, P even): thread t owns padded columns 2t, 2t+1, i.e.
// interior x = 2t-1 and 2t. Neighbours in x from the next lanes' pairs (shuffles); the warp's
// edge lanes load theirs. The pair holding the halo column 0 or n+1 stores its interior point
// alone. Threads cover padded pairs 0 .. n/2 (n even): n/2 + 1 pairs a row.
template <int MY, int SH>
__global__ void __launch_bounds__(512) tile2(float *__restrict__ out, const float *__restrict__ in, int n, long P, long PP)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x; // pair index
    const int npairs = n / 2 + 1;
    const int lane = threadIdx.x & 31;
    int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * MY;
    int k = blockIdx.z;
    const bool live = t < npairs;
    const long base = (long)(k + 1) * PP + (long)(j0 + 1) * P + 2 * (live ? t : 0);
    const float2 *c = reinterpret_cast<const float2 *>(in + base);
    const long P2 = P / 2, PP2 = PP / 2;
    float2 col[MY + 2], zm[MY], zp[MY];
#pragma unroll
    for (int m = 0; m < MY + 2; m++) col[m] = __ldg(c + (m - 1) * P2);
#pragma unroll
    for (int m = 0; m < MY; m++) { zm[m] = __ldg(c + m * P2 - PP2); zp[m] = __ldg(c + m * P2 + PP2); }
#pragma unroll
    for (int m = 0; m < MY; m++) {
        const float2 v = col[m + 1];
        float left, right; // padded column 2t-1 and 2t+2
        if (SH) {
            left = __shfl_up_sync(0xffffffffu, v.y, 1);
            right = __shfl_down_sync(0xffffffffu, v.x, 1);
            const float *s = in + base + m * P;
            if (lane == 0 && t > 0) left = __ldg(s - 1);
            if (lane == 31 && t + 1 < npairs) right = __ldg(s + 2);
        } else {
            const float *s = in + base + m * P;
            left = t > 0 ? __ldg(s - 1) : 0.f;
            right = t + 1 < npairs ? __ldg(s + 2) : 0.f;
        }
        float2 r;
        r.x = W_C * v.x + W_ZM * zm[m].x + W_ZP * zp[m].x + W_YM * col[m].x + W_YP * col[m + 2].x + W_XM * left + W_XP * v.y;
        r.y = W_C * v.y + W_ZM * zm[m].y + W_ZP * zp[m].y + W_YM * col[m].y + W_YP * col[m + 2].y + W_XM * v.x + W_XP * right;
        if (!live) continue;
        float *o = out + base + m * P;
        if (t == 0) o[1] = r.y;
        else if (t == npairs - 1) o[0] = r.x;
        else *reinterpret_cast<float2 *>(o) = r;
    }
}

// float2 on the aligned layout (OX = 4): thread t owns interior x = 2t, 2t+1.
template <int MY>
__global__ void __launch_bounds__(512) tile2a(float *__restrict__ out, const float *__restrict__ in, int n, long P, long PP)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * MY;
    int k = blockIdx.z;
    if (2 * t >= n) return;
    const long base = (long)(k + 1) * PP + (long)(j0 + 1) * P + 4 + 2 * t;
    const float2 *c = reinterpret_cast<const float2 *>(in + base);
    const long P2 = P / 2, PP2 = PP / 2;
    float2 col[MY + 2], zm[MY], zp[MY];
#pragma unroll
    for (int m = 0; m < MY + 2; m++) col[m] = __ldg(c + (m - 1) * P2);
#pragma unroll
    for (int m = 0; m < MY; m++) { zm[m] = __ldg(c + m * P2 - PP2); zp[m] = __ldg(c + m * P2 + PP2); }
#pragma unroll
    for (int m = 0; m < MY; m++) {
        const float2 v = col[m + 1];
        float left = __shfl_up_sync(0xffffffffu, v.y, 1), right = __shfl_down_sync(0xffffffffu, v.x, 1);
        const float *s = in + base + m * P;
        if (lane == 0) left = __ldg(s - 1);
        if (lane == 31 || 2 * t + 2 >= n) right = __ldg(s + 2);
        float2 r;
        r.x = W_C * v.x + W_ZM * zm[m].x + W_ZP * zp[m].x + W_YM * col[m].x + W_YP * col[m + 2].x + W_XM * left + W_XP * v.y;
        r.y = W_C * v.y + W_ZM * zm[m].y + W_ZP * zp[m].y + W_YM * col[m].y + W_YP * col[m + 2].y + W_XM * v.x + W_XP * right;
        *reinterpret_cast<float2 *>(out + base + m * P) = r;
    }
}

// float4 on an aligned layout (OX = 4, P multiple of 4): thread t owns interior x = 4t .. 4t+3.
template <int MY>
__global__ void __launch_bounds__(512) tile4(float *__restrict__ out, const float *__restrict__ in, int n, long P, long PP)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * MY;
    int k = blockIdx.z;
    if (4 * t >= n) return;
    const long base = (long)(k + 1) * PP + (long)(j0 + 1) * P + 4 + 4 * t;
    const float4 *c = reinterpret_cast<const float4 *>(in + base);
    const long P4 = P / 4, PP4 = PP / 4;
    float4 col[MY + 2], zm[MY], zp[MY];
#pragma unroll
    for (int m = 0; m < MY + 2; m++) col[m] = __ldg(c + (m - 1) * P4);
#pragma unroll
    for (int m = 0; m < MY; m++) { zm[m] = __ldg(c + m * P4 - PP4); zp[m] = __ldg(c + m * P4 + PP4); }
#pragma unroll
    for (int m = 0; m < MY; m++) {
        const float4 v = col[m + 1];
        float left = __shfl_up_sync(0xffffffffu, v.w, 1), right = __shfl_down_sync(0xffffffffu, v.x, 1);
        const float *s = in + base + m * P;
        if (lane == 0) left = __ldg(s - 1);
        if (lane == 31 || 4 * t + 4 >= n) right = __ldg(s + 4);
        float4 r;
        r.x = W_C * v.x + W_ZM * zm[m].x + W_ZP * zp[m].x + W_YM * col[m].x + W_YP * col[m + 2].x + W_XM * left + W_XP * v.y;
        r.y = W_C * v.y + W_ZM * zm[m].y + W_ZP * zp[m].y + W_YM * col[m].y + W_YP * col[m + 2].y + W_XM * v.x + W_XP * v.z;
        r.z = W_C * v.z + W_ZM * zm[m].z + W_ZP * zp[m].z + W_YM * col[m].z + W_YP * col[m + 2].z + W_XM * v.y + W_XP * v.w;
        r.w = W_C * v.w + W_ZM * zm[m].w + W_ZP * zp[m].w + W_YM * col[m].w + W_YP * col[m + 2].w + W_XM * v.z + W_XP * right;
        *reinterpret_cast<float4 *>(out + base + m * P) = r;
    }
}

// scalar, but VX points a thread strided by the block in x (the ILP of tile2 without vectors)
template <int MY, int VX>
__global__ void __launch_bounds__(512) tilek(float *__restrict__ out, const float *__restrict__ in, int n, long P, long PP, int OX)
{
    int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * MY;
    int k = blockIdx.z;
#pragma unroll
    for (int v = 0; v < VX; v++) {
        int i = blockIdx.x * blockDim.x * VX + v * blockDim.x + threadIdx.x;
        if (i >= n) return;
        const float *c = in + (long)(k + 1) * PP + (long)(j0 + 1) * P + OX + i;
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
}


static const int n = 512;
static long P, PP, tot;
static float *x, *y, *ref;
static unsigned *dmax;

template <class F> static double timeit(F launch) { return median_ms(launch, 7, 10); }
static float maxdiff() { return max_abs_diff(y, ref, tot, dmax); }
// the output buffer starts as a copy of the input (halo included), as stencilc's prologue makes it
template <class F> static void run(const char *name, F launch)
{
    CK(cudaMemcpy(y, x, tot * 4, cudaMemcpyDeviceToDevice));
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float d = maxdiff();
    double ms = timeit(launch);
    printf("%-30s %.4f ms %6.1f GStencil/s  maxdiff %.2g%s\n", name, ms, (double)n * n * n / ms / 1e6, d, d > 1e-5f ? "  WRONG" : "");
    fflush(stdout);
}
template <class F> static void copyrun(const char *name, F launch)
{
    double ms = timeit(launch);
    printf("%-30s %.4f ms %7.1f GB/s\n", name, ms, 2.0 * tot * 4 / ms / 1e6);
    fflush(stdout);
}

static void layout(int OX, long pitch)
{
    P = pitch;
    PP = P * (n + 2);
    tot = PP * (n + 2);
    CK(cudaMalloc(&x, tot * 4));
    CK(cudaMalloc(&y, tot * 4));
    CK(cudaMalloc(&ref, tot * 4));
    initk<<<(tot + 255) / 256, 256>>>(x, tot);
    CK(cudaMemcpy(ref, x, tot * 4, cudaMemcpyDeviceToDevice));
    simple<<<dim3(n / 32, n / 8, n), dim3(32, 8)>>>(ref, x, n, P, PP, OX);
    CK(cudaDeviceSynchronize());
    printf("layout OX=%d pitch %ld\n", OX, P);
}
static void unlayout() { cudaFree(x); cudaFree(y); cudaFree(ref); }

int main()
{
    CK(cudaMalloc(&dmax, 4));
    layout(1, n + 2);
    copyrun("cudaMemcpy", [&] { cudaMemcpyAsync(y, x, tot * 4, cudaMemcpyDeviceToDevice); });
    copyrun("copy float", [&] { copyv<float><<<(tot + 255) / 256, 256>>>(y, x, tot); });
    copyrun("copy float2", [&] { copyv<float2><<<(tot / 2 + 255) / 256, 256>>>((float2 *)y, (const float2 *)x, tot / 2); });
    copyrun("copy float4", [&] { copyv<float4><<<(tot / 4 + 255) / 256, 256>>>((float4 *)y, (const float4 *)x, tot / 4); });
    copyrun("copy float x2 strided", [&] { copyk<2><<<(tot + 511) / 512, 256>>>(y, x, tot); });
    copyrun("copy float x4 strided", [&] { copyk<4><<<(tot + 1023) / 1024, 256>>>(y, x, tot); });
    copyrun("copy float x8 strided", [&] { copyk<8><<<(tot + 2047) / 2048, 256>>>(y, x, tot); });
    run("simple 32x8", [&] { simple<<<dim3(n / 32, n / 8, n), dim3(32, 8)>>>(y, x, n, P, PP, 1); });
    run("tile 512x1 my4", [&] { tile<4><<<dim3(1, n / 4, n), dim3(512, 1)>>>(y, x, n, P, PP, 1); });
    run("tilek 256x1 my4 vx2", [&] { tilek<4, 2><<<dim3(1, n / 4, n), dim3(256, 1)>>>(y, x, n, P, PP, 1); });
    run("tilek 128x1 my4 vx4", [&] { tilek<4, 4><<<dim3(1, n / 4, n), dim3(128, 1)>>>(y, x, n, P, PP, 1); });
    run("tilek 256x1 my2 vx2", [&] { tilek<2, 2><<<dim3(1, n / 2, n), dim3(256, 1)>>>(y, x, n, P, PP, 1); });
    const int np = n / 2 + 1;
    for (int bx : {96, 160, 288}) {
        char nm[64];
        int gx = (np + bx - 1) / bx;
        snprintf(nm, sizeof nm, "tile2 %dx1 my1 sh", bx); run(nm, [&] { tile2<1, 1><<<dim3(gx, n, n), dim3(bx, 1)>>>(y, x, n, P, PP); });
        snprintf(nm, sizeof nm, "tile2 %dx1 my2 sh", bx); run(nm, [&] { tile2<2, 1><<<dim3(gx, n / 2, n), dim3(bx, 1)>>>(y, x, n, P, PP); });
        snprintf(nm, sizeof nm, "tile2 %dx1 my4 sh", bx); run(nm, [&] { tile2<4, 1><<<dim3(gx, n / 4, n), dim3(bx, 1)>>>(y, x, n, P, PP); });
        snprintf(nm, sizeof nm, "tile2 %dx1 my4 l1", bx); run(nm, [&] { tile2<4, 0><<<dim3(gx, n / 4, n), dim3(bx, 1)>>>(y, x, n, P, PP); });
        if (bx * 2 <= 512) {
            snprintf(nm, sizeof nm, "tile2 %dx2 my2 sh", bx); run(nm, [&] { tile2<2, 1><<<dim3(gx, n / 4, n), dim3(bx, 2)>>>(y, x, n, P, PP); });
            snprintf(nm, sizeof nm, "tile2 %dx2 my2 l1", bx); run(nm, [&] { tile2<2, 0><<<dim3(gx, n / 4, n), dim3(bx, 2)>>>(y, x, n, P, PP); });
            snprintf(nm, sizeof nm, "tile2 %dx2 my1 sh", bx); run(nm, [&] { tile2<1, 1><<<dim3(gx, n / 2, n), dim3(bx, 2)>>>(y, x, n, P, PP); });
        }
        if (bx * 4 <= 512) {
            snprintf(nm, sizeof nm, "tile2 %dx4 my1 sh", bx); run(nm, [&] { tile2<1, 1><<<dim3(gx, n / 4, n), dim3(bx, 4)>>>(y, x, n, P, PP); });
            snprintf(nm, sizeof nm, "tile2 %dx4 my2 sh", bx); run(nm, [&] { tile2<2, 1><<<dim3(gx, n / 8, n), dim3(bx, 4)>>>(y, x, n, P, PP); });
        }
    }
    unlayout();
    layout(4, n + 8);
    copyrun("cudaMemcpy", [&] { cudaMemcpyAsync(y, x, tot * 4, cudaMemcpyDeviceToDevice); });
    run("simple 32x8", [&] { simple<<<dim3(n / 32, n / 8, n), dim3(32, 8)>>>(y, x, n, P, PP, 4); });
    run("tile 512x1 my4", [&] { tile<4><<<dim3(1, n / 4, n), dim3(512, 1)>>>(y, x, n, P, PP, 4); });
    for (int bx : {32, 64, 128}) {
        char nm[64];
        int gx = n / 4 / bx;
        snprintf(nm, sizeof nm, "tile4 %dx1 my1", bx); run(nm, [&] { tile4<1><<<dim3(gx, n, n), dim3(bx, 1)>>>(y, x, n, P, PP); });
        snprintf(nm, sizeof nm, "tile4 %dx1 my2", bx); run(nm, [&] { tile4<2><<<dim3(gx, n / 2, n), dim3(bx, 1)>>>(y, x, n, P, PP); });
        snprintf(nm, sizeof nm, "tile4 %dx1 my4", bx); run(nm, [&] { tile4<4><<<dim3(gx, n / 4, n), dim3(bx, 1)>>>(y, x, n, P, PP); });
        snprintf(nm, sizeof nm, "tile4 %dx4 my1", bx); run(nm, [&] { tile4<1><<<dim3(gx, n / 4, n), dim3(bx, 4)>>>(y, x, n, P, PP); });
        snprintf(nm, sizeof nm, "tile4 %dx2 my2", bx); run(nm, [&] { tile4<2><<<dim3(gx, n / 4, n), dim3(bx, 2)>>>(y, x, n, P, PP); });
        snprintf(nm, sizeof nm, "tile4 %dx4 my2", bx); run(nm, [&] { tile4<2><<<dim3(gx, n / 8, n), dim3(bx, 4)>>>(y, x, n, P, PP); });
        snprintf(nm, sizeof nm, "tile2 al %dx2 my2", 2 * bx); run(nm, [&] { tile2a<2><<<dim3(gx, n / 4, n), dim3(2 * bx, 2)>>>(y, x, n, P, PP); });
    }
    unlayout();
    return 0;
}
