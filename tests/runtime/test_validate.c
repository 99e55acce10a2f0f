/* --validate without a GPU: a clean CUDA file in the shape stencilc emits passes, a file with a
 * planted error is reported with its line. Exits 77 when libclang is missing. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rt.h"

static const char *clean =
    "#include <cuda_runtime.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <math.h>\n"
    "#include <stdint.h>\n"
    "#define IDX(i, j) ((j) * P0 + (i))\n"
    "__constant__ float coef_c[4];\n"
    "extern \"C\" __global__ void __launch_bounds__(256)\n"
    "heat_step(const float *__restrict__ in, float *__restrict__ out, float alpha, int nx, int ny)\n"
    "{\n"
    "    __shared__ float tile[10][34];\n"
    "    extern __shared__ double dyn[];\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    int P0 = nx + 2;\n"
    "    tile[threadIdx.y][threadIdx.x] = __ldg(&in[IDX(i, j)]);\n"
    "    __syncthreads();\n"
    "    if (i >= nx || j >= ny) return;\n"
    "    float v = in[IDX(i + 1, j + 1)] + alpha * (sqrtf(in[IDX(i, j + 1)]) + expf(1.0f)\n"
    "              + fabsf(-2.0f) + powf(in[IDX(i + 2, j + 1)], 2.0f) + fminf(1.0f, 2.0f) + coef_c[0]\n"
    "              + sin(1.0f) + floor(0.5f) + rsqrtf(4.0f) + max(1.0f, 2.0f) + tile[0][0]);\n"
    "    out[IDX(i + 1, j + 1)] = v + (float)dyn[0] + (float)exp(1.0) + fmaf(1.0f, 2.0f, 3.0f);\n"
    "}\n"
    "extern \"C\" int heat_run(float *u0, float *u1, int nx, int ny, long steps, cudaStream_t s)\n"
    "{\n"
    "    dim3 block(32, 8, 1), grid((nx + 31) / 32, (ny + 7) / 8, 1);\n"
    "    float alpha = 0.1f;\n"
    "    float *tmp = NULL;\n"
    "    float host_c[4] = {1, 2, 3, 4};\n"
    "    if (cudaMemcpyToSymbolAsync(coef_c, host_c, sizeof host_c, 0, cudaMemcpyHostToDevice, s) != cudaSuccess) return -1;\n"
    "    if (cudaMallocAsync(&tmp, sizeof(float) * 4, s) != cudaSuccess) return -1;\n"
    "    cudaFuncSetAttribute(heat_step, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);\n"
    "    for (long t = 0; t < steps; t++) {\n"
    "        heat_step<<<grid, block, 0, s>>>(u0, u1, alpha, nx, ny);\n"
    "        void *args[] = { &u1, &u0, &alpha, &nx, &ny };\n"
    "        cudaLaunchKernel((const void *)heat_step, grid, block, args, 0, s);\n"
    "        float *swap = u0; u0 = u1; u1 = swap;\n"
    "    }\n"
    "    cudaFreeAsync(tmp, s);\n"
    "    cudaError_t e = cudaGetLastError();\n"
    "    if (e != cudaSuccess) { fprintf(stderr, \"%s\\n\", cudaGetErrorString(e)); return -1; }\n"
    "    return cudaStreamSynchronize(s) == cudaSuccess ? 0 : -1;\n"
    "}\n";

static const char *broken =
    "extern \"C\" __global__ void k(float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = undeclared_thing * 2.0f;\n"
    "}\n";

static int validate(const char *name, const char *text, char *buf, size_t len)
{
    memset(buf, 0, len);
    FILE *f = fmemopen(buf, len, "w");
    assert(f);
    int n = rt_validate_source(name, text, f);
    fclose(f);
    printf("--- %s: %d\n%s", name, n, buf);
    return n;
}

int main(void)
{
    char why[512];
    if (!rt_validate_available(why, (int)sizeof why)) {
        printf("skipped: %s\n", why);
        return 77;
    }
    static char out[1 << 16];
    assert(validate("clean.cu", clean, out, sizeof out) == 0);
    assert(out[0] == 0);

    int n = validate("broken.cu", broken, out, sizeof out);
    assert(n >= 1);
    assert(strstr(out, "broken.cu:4:"));
    assert(strstr(out, "undeclared_thing"));
    assert(strstr(out, "[STC-500]"));
    assert(strstr(out, "error"));

    /* A warning counts too, and says it is one. */
    n = validate("warn.cu", "__global__ void k(int *p) { int unused_var; p[0] = 1; }\n", out,
                 sizeof out);
    assert(n == 1 && strstr(out, "warning") && strstr(out, "[STC-501]"));

    /* A file read from disk, and one that does not exist. */
    const char *path = "stc_validate_test.cu";
    FILE *f = fopen(path, "w");
    assert(f);
    fputs(clean, f);
    fclose(f);
    assert(validate(path, NULL, out, sizeof out) == 0);
    remove(path);
    assert(validate("no/such/file.cu", NULL, out, sizeof out) == -1);
    assert(strstr(out, "cannot read"));
    return 0;
}
