// Experiment for the star3d1r one-step target (90% of the roofline, docs/performance.md): does a
// 2.5D streaming kernel whose planes arrive by cp.async, several planes ahead, with one barrier
// per plane, get past the 83% that every kernel measured so far stops at?
//
// How to run (on a GPU machine):
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/cpasync bench/experiments/star3d1r_cpasync.cu && /tmp/cpasync
// Result on the H100 (2026-11-22, docs/performance.md): correct, but no variant passed 235
// GStencil/s (66% of the roofline), below the generator's tile kernel (303).
// It prints, per variant, ms per step, GStencil/s, the share of the roofline (copy bandwidth over
// 8 bytes per point, measured in the same run) and the largest difference from a simple kernel.
//
// The layout is stencilc's: 512^3 interior points in an (n+2)^3 array, interior at offset 1.
// Block: TX x TY threads, a TX x TY tile of the x-y plane, walking SB planes along z. A ring of
// NS = D + 3 shared-memory slots, each a plane of the tile with its x-y halo: planes k-1, k, k+1
// are read while planes k+2 .. k+1+D are in flight. Iteration k: wait until plane k+1 has landed
// (at most D-1 younger groups pending), barrier, issue plane k+D+1 into the slot of plane k-2
// (free since the barrier), compute plane k.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__device__ __forceinline__ void cp_async4(float *smem, const float *gmem)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

template <int TX, int TY, int D>
__global__ void __launch_bounds__(TX * TY) stream_cpasync(float *__restrict__ out, const float *__restrict__ in,
                                                           int n, int sb)
{
    constexpr int NS = D + 3, W = TX + 2, H = TY + 2, PL = W * H, T = TX * TY;
    extern __shared__ float ring[]; // NS planes of W x H
    const long P = n + 2, PP = P * (n + 2);
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY, z0 = blockIdx.z * sb;
    const int zend = min(z0 + sb, n);
    // Padded coordinates of the tile's corner (halo included): x0, y0 (interior x0 is padded x0+1).
    const float *corner = in + (long)y0 * P + x0;
    auto issue = [&](int z) { // interior plane z (-1..n), into its slot
        if (z <= zend) {
            float *dst = ring + ((z - z0 + 1 + NS) % NS) * PL;
            const float *src = corner + (long)(z + 1) * PP;
            for (int e = tid; e < PL; e += T) {
                int r = e / W, c = e - r * W;
                cp_async4(dst + e, src + (long)r * P + c);
            }
        }
        cp_commit(); // an empty group past the end keeps the counting uniform
    };
    // Planes z0-1, z0, then z0+1 .. z0+D in flight.
    for (int z = z0 - 1; z <= z0 + D; z++)
        issue(z);
    const long own = (long)(y0 + ty + 1) * P + (x0 + tx + 1);
    const int c = (ty + 1) * W + (tx + 1);
    for (int k = z0; k < zend; k++) {
        cp_wait<D - 1>(); // planes up to k+1 have landed; k+2 .. k+D may still be in flight
        __syncthreads();
        issue(k + D + 1); // into the slot of plane k-2, read last in the previous iteration
        const float *m = ring + ((k - 1 - z0 + 1 + NS) % NS) * PL;
        const float *s = ring + ((k - z0 + 1) % NS) * PL;
        const float *p = ring + ((k + 1 - z0 + 1) % NS) * PL;
        float r = 0.25f * s[c] + 0.1248f * s[c - W] + 0.1249f * s[c + W] + 0.125f * m[c] + 0.1251f * p[c]
                  + 0.1252f * s[c - 1] + 0.1253f * s[c + 1];
        out[(long)(k + 1) * PP + own] = r;
    }
}

// The reference: one point per thread, every read from global memory.
__global__ void simple(float *__restrict__ out, const float *__restrict__ in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y, k = blockIdx.z;
    if (i >= n) return;
    const long P = n + 2, PP = P * (n + 2);
    const float *q = in + (long)(k + 1) * PP + (long)(j + 1) * P + (i + 1);
    out[q - in] = 0.25f * q[0] + 0.1248f * q[-P] + 0.1249f * q[P] + 0.125f * q[-PP] + 0.1251f * q[PP]
                  + 0.1252f * q[-1] + 0.1253f * q[1];
}

__global__ void copy4(float4 *__restrict__ o, const float4 *__restrict__ i, long n4)
{
    for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < n4; t += (long)gridDim.x * blockDim.x)
        o[t] = i[t];
}

__global__ void init(float *a, long n)
{
    for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < n; t += (long)gridDim.x * blockDim.x)
        a[t] = 0.5f + (float)((t * 2654435761u) % 1000) * 1e-3f;
}

__global__ void maxdiff(const float *a, const float *b, long n, float *res)
{
    float m = 0;
    for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < n; t += (long)gridDim.x * blockDim.x)
        m = fmaxf(m, fabsf(a[t] - b[t]));
    atomicMax((int *)res, __float_as_int(m)); // non-negative floats order like ints
}

static float time_ms(cudaEvent_t a, cudaEvent_t b, void (*launch)(void *), void *ctx, int reps)
{
    for (int w = 0; w < 3; w++) launch(ctx);
    CK(cudaEventRecord(a));
    for (int r = 0; r < reps; r++) launch(ctx);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    CK(cudaGetLastError());
    return ms / reps;
}

struct Ctx { float *out, *in, *ref; int n, sb; long tot; };

template <int TX, int TY, int D> static void launch_stream(void *v)
{
    Ctx *c = (Ctx *)v;
    size_t smem = (size_t)(D + 3) * (TX + 2) * (TY + 2) * sizeof(float);
    stream_cpasync<TX, TY, D><<<dim3(c->n / TX, c->n / TY, (c->n + c->sb - 1) / c->sb), dim3(TX, TY), smem>>>(
        c->out, c->in, c->n, c->sb);
}
static void launch_simple(void *v)
{
    Ctx *c = (Ctx *)v;
    simple<<<dim3((c->n + 255) / 256, c->n, c->n), 256>>>(c->ref, c->in, c->n);
}
static void launch_copy(void *v)
{
    Ctx *c = (Ctx *)v;
    copy4<<<132 * 8, 512>>>((float4 *)c->out, (const float4 *)c->in, c->tot / 4);
}

template <int TX, int TY, int D>
static void variant(Ctx *c, cudaEvent_t a, cudaEvent_t b, double roof, float *dres)
{
    for (int sb : {32, 64, 128, 512}) {
        c->sb = sb;
        CK(cudaMemset(c->out, 0, c->tot * sizeof(float)));
        float ms = time_ms(a, b, launch_stream<TX, TY, D>, c, 20);
        CK(cudaMemset(dres, 0, sizeof(float)));
        maxdiff<<<264, 512>>>(c->out + (long)(c->n + 2) * (c->n + 2), c->ref + (long)(c->n + 2) * (c->n + 2),
                               (long)(c->n + 2) * (c->n + 2) * c->n, dres);
        float diff;
        CK(cudaMemcpy(&diff, dres, sizeof diff, cudaMemcpyDeviceToHost));
        double gst = (double)c->n * c->n * c->n / ms / 1e6;
        printf("cp.async tile %3dx%-2d D=%d sb=%3d  %.4f ms  %6.1f GStencil/s  %3.0f%% of roofline  max diff %.2g\n",
               TX, TY, D, sb, ms, gst, 100 * gst / roof, diff);
    }
}

int main()
{
    const int n = 512;
    Ctx c;
    c.n = n;
    c.tot = (long)(n + 2) * (n + 2) * (n + 2);
    c.tot = (c.tot + 3) / 4 * 4;
    CK(cudaMalloc(&c.in, c.tot * sizeof(float)));
    CK(cudaMalloc(&c.out, c.tot * sizeof(float)));
    CK(cudaMalloc(&c.ref, c.tot * sizeof(float)));
    float *dres;
    CK(cudaMalloc(&dres, sizeof(float)));
    init<<<1024, 256>>>(c.in, c.tot);
    CK(cudaMemset(c.ref, 0, c.tot * sizeof(float)));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    float copy_ms = time_ms(a, b, launch_copy, &c, 20);
    double gbs = 2.0 * c.tot * sizeof(float) / copy_ms / 1e6, roof = gbs / 8.0;
    printf("copy: %.1f GB/s, roofline %.1f GStencil/s\n", gbs, roof);
    float simple_ms = time_ms(a, b, launch_simple, &c, 20);
    printf("simple (one point per thread)  %.4f ms  %6.1f GStencil/s  %3.0f%% of roofline\n", simple_ms,
           (double)n * n * n / simple_ms / 1e6, 100 * ((double)n * n * n / simple_ms / 1e6) / roof);
    variant<32, 8, 1>(&c, a, b, roof, dres);
    variant<32, 8, 2>(&c, a, b, roof, dres);
    variant<32, 8, 4>(&c, a, b, roof, dres);
    variant<64, 8, 2>(&c, a, b, roof, dres);
    variant<64, 8, 4>(&c, a, b, roof, dres);
    variant<128, 4, 2>(&c, a, b, roof, dres);
    variant<32, 16, 2>(&c, a, b, roof, dres);
    variant<32, 32, 2>(&c, a, b, roof, dres);
    return 0;
}
