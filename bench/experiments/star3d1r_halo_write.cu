// Experiment for the star3d1r one-step target (90% of the roofline, docs/performance.md): do the
// sectors that a step writes only in part cost DRAM bandwidth?
//
// How to run (on a GPU machine):
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/hw bench/experiments/star3d1r_halo_write.cu && /tmp/hw
// Result on the H100 (2026-11-25, bench/logs/star3d1r-halo-write-h100-2026-11-25.txt.gz): every
// kernel faster with HW = 1, in all three rounds: simple 257.5 -> 259.2, the cyclic kernels +1%
// to +11% (64x4 cx4: 266.8 -> 296.3). The generator's hcol parameter (codegen/opt_tile.c) came
// of it: star3d1r's cyclic kernel 327.7 -> 341.3 (docs/config.md, docs/performance.md).
//
// In stencilc's layout a row is n + 2 floats (2056 bytes at n = 512, not a multiple of the
// 32-byte sector) and a step writes its interior only, so the sectors holding a row's halo
// columns 0 and n + 1 are written in part: about 2 of every 64 sectors of a plane. A copy writes
// every byte. If the memory system reads a sector back to merge a partial write, that is ~3% more
// traffic, about the gap between the kernels (88%) and the target (90%). The halo of the output
// buffer already holds the boundary values (both buffers start as copies, and a fixed boundary
// never changes), so a kernel may store them again: HW = 1 makes the threads at the ends of each
// row store the input's halo column into the output's, which fills those sectors whole.
//
// Kernels: the simple one (one point per thread) and a hand-written copy of the generator's
// cyclic kernel (`tb=32x8x1,uf=8x1x1,cm=8x1x4`: a warp covers 32 adjacent x points, a thread 8 of
// them 32 apart and 4 adjacent z planes, the z neighbours kept in registers), each with HW = 0
// and 1, timed alternately over several rounds in one process.
#include "harness.cuh"


constexpr int N = 512;
constexpr long P = N + 2, PP = P * (N + 2);

template <int HW>
__global__ void simple(float *__restrict__ out, const float *__restrict__ in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y, k = blockIdx.z;
    if (i >= N || j >= N) return;
    long c = (long)(k + 1) * PP + (long)(j + 1) * P + 1 + i;
    out[c] = star_point(in, c, P, PP);
    if (HW && i == 0) out[c - 1] = in[c - 1];
    if (HW && i == N - 1) out[c + 1] = in[c + 1];
}

// TX x TY threads; a thread: CX x points TX apart, CZ adjacent planes
template <int HW, int TX, int TY, int CX, int CZ>
__global__ void __launch_bounds__(TX *TY) cyc(float *__restrict__ out, const float *__restrict__ in)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x0 = blockIdx.x * TX * CX + tx, y = blockIdx.y * TY + ty, z0 = blockIdx.z * CZ;
    const float *c = in + (long)(z0 + 1) * PP + (long)(y + 1) * P + 1 + x0;
    float zm[CX], zc[CX], zp[CX];
#pragma unroll
    for (int q = 0; q < CX; q++) {
        zm[q] = __ldg(c - PP + TX * q);
        zc[q] = __ldg(c + TX * q);
    }
#pragma unroll
    for (int k = 0; k < CZ; k++) {
        const float *p = c + k * PP;
#pragma unroll
        for (int q = 0; q < CX; q++) zp[q] = __ldg(p + PP + TX * q);
#pragma unroll
        for (int q = 0; q < CX; q++) {
            const float *s = p + TX * q;
            out[s - in] = W_C * zc[q] + W_ZM * zm[q] + W_ZP * zp[q] + W_YM * __ldg(s - P) + W_YP * __ldg(s + P) +
                          W_XM * __ldg(s - 1) + W_XP * __ldg(s + 1);
            zm[q] = zc[q];
            zc[q] = zp[q];
        }
        if (HW && x0 == 0) out[p - 1 - in] = __ldg(p - 1);
        if (HW && x0 + TX * (CX - 1) == N - 1) out[p + TX * (CX - 1) + 1 - in] = __ldg(p + TX * (CX - 1) + 1);
    }
}


static const long tot = PP * (N + 2);
static float *x, *y, *ref;
static unsigned *dmax;

template <class F> static double timeit(F launch) { return median_ms(launch, 9, 20); }
static float maxdiff() { return max_abs_diff(y, ref, tot, dmax); }
static double roof;
template <class F> static void run(const char *name, F launch)
{
    CK(cudaMemcpy(y, x, tot * 4, cudaMemcpyDeviceToDevice));
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float d = maxdiff(); // the whole buffer, halo included
    double ms = timeit(launch), g = (double)N * N * N / ms / 1e6;
    printf("%-36s %.4f ms %6.1f GStencil/s %5.1f%%  maxdiff %.2g%s\n", name, ms, g, 100 * g / roof, d,
           d > 1e-5f ? "  WRONG" : "");
    fflush(stdout);
}

template <int TX, int TY, int CX, int CZ> static void cyc_pair()
{
    char nm[96];
    dim3 grid(N / (TX * CX), N / TY, N / CZ), block(TX, TY);
    snprintf(nm, sizeof nm, "cyc %dx%d cx%d cz%d", TX, TY, CX, CZ);
    run(nm, [&] { cyc<0, TX, TY, CX, CZ><<<grid, block>>>(y, x); });
    snprintf(nm, sizeof nm, "cyc %dx%d cx%d cz%d +halo", TX, TY, CX, CZ);
    run(nm, [&] { cyc<1, TX, TY, CX, CZ><<<grid, block>>>(y, x); });
}

int main()
{
    CK(cudaMalloc(&dmax, 4));
    CK(cudaMalloc(&x, tot * 4));
    CK(cudaMalloc(&y, tot * 4));
    CK(cudaMalloc(&ref, tot * 4));
    initk<<<(tot + 255) / 256, 256>>>(x, tot);
    CK(cudaMemcpy(ref, x, tot * 4, cudaMemcpyDeviceToDevice));
    simple<0><<<dim3(N / 32, N / 8, N), dim3(32, 8)>>>(ref, x);
    CK(cudaDeviceSynchronize());
    double ms = timeit([&] { cudaMemcpyAsync(y, x, tot * 4, cudaMemcpyDeviceToDevice); });
    double gbs = 2.0 * tot * 4 / ms / 1e6;
    roof = gbs / 8;
    printf("cudaMemcpy %.1f GB/s: roofline %.1f GStencil/s, 90%% = %.1f\n", gbs, roof, 0.9 * roof);
    for (int round = 1; round <= 3; round++) {
        printf("# round %d\n", round);
        run("simple 32x8", [&] { simple<0><<<dim3(N / 32, N / 8, N), dim3(32, 8)>>>(y, x); });
        run("simple 32x8 +halo", [&] { simple<1><<<dim3(N / 32, N / 8, N), dim3(32, 8)>>>(y, x); });
        cyc_pair<32, 8, 8, 4>();
        cyc_pair<32, 8, 8, 8>();
        cyc_pair<32, 4, 8, 4>();
        cyc_pair<32, 8, 16, 4>();
        cyc_pair<64, 4, 4, 4>();
    }
    return 0;
}
