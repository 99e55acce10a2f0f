// Experiment for the star3d1r one-step target (90% of the roofline, docs/performance.md): a 2.5D
// streaming kernel whose planes arrive by the Hopper copy engine (TMA), one `cp.async.bulk`
// instruction per plane, several planes ahead, completion signalled on an mbarrier.
//
// How to run (on a GPU machine):
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/bulk bench/experiments/star3d1r_bulk.cu && /tmp/bulk
// Result on the H100 (2026-11-24, docs/performance.md): all 192 variants exact; the best 322.4
// GStencil/s (86% of the roofline; H 16, 512 threads, 4-5 slots), below the generator's scalar
// cyclic kernel timed in the same call (328.0).
// It prints, per variant, ms per step, GStencil/s, the share of the roofline (cudaMemcpy's
// bandwidth over 8 bytes per point, measured in the same run) and the largest difference from a
// simple kernel.
//
// Why a whole-width strip: the bulk copy needs a 16-byte aligned source and a size that is a
// multiple of 16 bytes, and stencilc's layout (pitch n + 2, interior at column 1) aligns no row.
// Its planes are aligned, though (PP * 4 = 514 * 514 * 4 is a multiple of 16), and a block that
// owns every x of H rows reads rows j0 .. j0 + H + 1 of a plane: one contiguous range, which is
// widened to 16-byte bounds (at most 3 floats each side) and copied whole. So the layout and the
// C API stay as they are.
//
// Block: T threads own the H x 512 outputs of a plane (TX threads across x, TY across rows, each
// thread n / TX x points, TX apart, and H / TY rows, TY apart), walking SB planes along z. Each
// thread keeps the centre values of planes k-1, k, k+1 of its points in registers; the x and y
// neighbours of plane k come from shared memory. A ring of NS slots holds the strips of planes
// k, k+1 and NS - 2 planes in flight. After plane k: one barrier, then thread 0 issues the strip
// of plane k + NS + 1 into the slot of plane k + 1, which no thread reads again.
#include "harness.cuh"
#include <cstdint>


constexpr int N = 512;
constexpr long P = N + 2, PP = P * (N + 2);

__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_g2s(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(smem_addr(bar))
                 : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    asm volatile("{\n .reg .pred p;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}" ::"r"(
                     smem_addr(bar)),
                 "r"(parity)
                 : "memory");
}

// floats of one ring slot: the strip, up to 3 floats of alignment before it and 3 after
template <int H> __host__ __device__ constexpr int slot_floats() { return (int)(((H + 2) * P + 8 + 3) / 4 * 4); }

template <int H, int TX, int TY, int NS>
__global__ void __launch_bounds__(TX *TY) bulk(float *__restrict__ out, const float *__restrict__ in, int sb)
{
    constexpr int Q = N / TX, M = H / TY, SLOT = slot_floats<H>();
    static_assert(N % TX == 0 && H % TY == 0 && NS >= 3, "shape");
    extern __shared__ __align__(16) float ring[];
    __shared__ uint64_t full[NS];
    const int t = threadIdx.x, tx = t % TX, ty = t / TX;
    const int j0 = blockIdx.x * H;  // first padded row of the strip (interior rows j0 .. j0 + H - 1)
    const int z0 = blockIdx.y * sb; // first padded plane needed (interior planes z0 .. z0 + sb - 1)
    const int nload = sb + 2;       // planes z0 .. z0 + sb + 1
    // the strip of plane L: floats [start, start + (H + 2) P), copied from the 16-byte bound below
    const long start0 = (long)z0 * PP + (long)j0 * P;
    const int shift = (int)(start0 & 3); // the same for every plane: PP is a multiple of 4
    const unsigned bytes = (unsigned)((((H + 2) * P + shift) * 4 + 15) / 16 * 16);
    auto issue = [&](int L) {
        float *dst = ring + (L % NS) * SLOT;
        const float *src = in + start0 + (long)L * PP - shift;
        mbar_expect_tx(&full[L % NS], bytes);
        bulk_g2s(dst, src, bytes, &full[L % NS]);
    };
    if (t == 0) {
        for (int s = 0; s < NS; s++) mbar_init(&full[s], 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    int issued = 0;
    if (t == 0)
        for (; issued < NS && issued < nload; issued++) issue(issued);
    issued = min(NS, nload);

    float prv[M][Q], cur[M][Q], nxt[M][Q];
    auto centre = [&](int L, float (&v)[M][Q]) {
        mbar_wait(&full[L % NS], (L / NS) & 1);
        const float *s = ring + (L % NS) * SLOT + shift;
#pragma unroll
        for (int m = 0; m < M; m++)
#pragma unroll
            for (int q = 0; q < Q; q++) v[m][q] = s[(ty + TY * m + 1) * P + tx + TX * q + 1];
    };
    centre(0, prv);
    centre(1, cur);
    for (int i = 0; i < sb; i++) {
        centre(i + 2, nxt);
        const float *s = ring + ((i + 1) % NS) * SLOT + shift;
        float *o = out + (long)(z0 + 1 + i) * PP + (long)(j0 + 1) * P + 1;
#pragma unroll
        for (int m = 0; m < M; m++) {
            const int r = ty + TY * m;
#pragma unroll
            for (int q = 0; q < Q; q++) {
                const int x = tx + TX * q, c = (r + 1) * P + x + 1;
                o[r * P + x] = W_C * cur[m][q] + W_ZM * prv[m][q] + W_ZP * nxt[m][q] + W_YM * s[c - P] + W_YP * s[c + P] +
                               W_XM * s[c - 1] + W_XP * s[c + 1];
                prv[m][q] = cur[m][q];
                cur[m][q] = nxt[m][q];
            }
        }
        __syncthreads(); // planes <= i + 1 are read: their slots are free
        if (t == 0)
            for (int lim = i + 1 + NS; issued <= lim && issued < nload; issued++) issue(issued);
        issued = min(i + 2 + NS, nload);
    }
}

__global__ void simple(float *__restrict__ out, const float *__restrict__ in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y, k = blockIdx.z;
    if (i >= N || j >= N) return;
    long c = (long)(k + 1) * PP + (long)(j + 1) * P + 1 + i;
    out[c] = star_point(in, c, P, PP);
}

static const long tot = PP * (N + 2);
static float *x, *y, *ref;
static unsigned *dmax;
static double roof = 0;

template <class F> static double timeit(F launch) { return median_ms(launch, 7, 10); }
static float maxdiff() { return max_abs_diff(y, ref, tot, dmax); }
static double best = 0;
template <class F> static void run(const char *name, F launch)
{
    CK(cudaMemcpy(y, x, tot * 4, cudaMemcpyDeviceToDevice));
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float d = maxdiff();
    double ms = timeit(launch), g = (double)N * N * N / ms / 1e6;
    if (d <= 1e-5f && g > best) best = g;
    printf("%-34s %.4f ms %6.1f GStencil/s %5.1f%%  maxdiff %.2g%s\n", name, ms, g, 100 * g / roof, d,
           d > 1e-5f ? "  WRONG" : "");
    fflush(stdout);
}

template <int H, int TX, int TY, int NS> static void variant(int sb)
{
    if (N % sb) return;
    const int smem = NS * slot_floats<H>() * 4;
    if (smem > 227 * 1024) return;
    CK(cudaFuncSetAttribute(bulk<H, TX, TY, NS>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bulk<H, TX, TY, NS>, TX * TY, smem));
    char nm[96];
    snprintf(nm, sizeof nm, "bulk H%d %dx%d NS%d sb%d (%d/SM)", H, TX, TY, NS, sb, per_sm);
    if (per_sm == 0) { printf("%s: does not fit\n", nm); return; }
    run(nm, [&] { bulk<H, TX, TY, NS><<<dim3(N / H, N / sb), TX * TY, smem>>>(y, x, sb); });
}
template <int H, int TX, int TY> static void shapes()
{
    for (int sb : {16, 32, 64, 128}) {
        variant<H, TX, TY, 3>(sb);
        variant<H, TX, TY, 4>(sb);
        variant<H, TX, TY, 5>(sb);
        variant<H, TX, TY, 6>(sb);
    }
}

int main()
{
    CK(cudaMalloc(&dmax, 4));
    CK(cudaMalloc(&x, tot * 4 + 64));
    CK(cudaMalloc(&y, tot * 4 + 64));
    CK(cudaMalloc(&ref, tot * 4 + 64));
    initk<<<(tot + 255) / 256, 256>>>(x, tot);
    CK(cudaMemcpy(ref, x, tot * 4, cudaMemcpyDeviceToDevice));
    simple<<<dim3(N / 32, N / 8, N), dim3(32, 8)>>>(ref, x);
    CK(cudaDeviceSynchronize());
    double ms = timeit([&] { cudaMemcpyAsync(y, x, tot * 4, cudaMemcpyDeviceToDevice); });
    double gbs = 2.0 * tot * 4 / ms / 1e6;
    roof = gbs / 8;
    printf("cudaMemcpy %.1f GB/s: roofline %.1f GStencil/s, 90%% = %.1f\n", gbs, roof, 0.9 * roof);
    run("simple 32x8", [&] { simple<<<dim3(N / 32, N / 8, N), dim3(32, 8)>>>(y, x); });
    shapes<4, 128, 1>();
    shapes<4, 256, 1>();
    shapes<4, 128, 2>();
    shapes<8, 128, 2>();
    shapes<8, 256, 1>();
    shapes<8, 128, 4>();
    shapes<8, 256, 2>();
    shapes<16, 128, 4>();
    shapes<16, 256, 2>();
    shapes<16, 512, 1>();
    shapes<2, 256, 1>();
    shapes<2, 128, 2>();
    printf("best correct: %.1f GStencil/s (%.1f%% of the roofline)\n", best, 100 * best / roof);
    return 0;
}
