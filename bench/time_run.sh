# The harness that bench/edges_ab.sh and bench/api_calls.sh build around emitted code: it times
# NAME_run of a program with one two-level float state field `u`, the whole call as a user makes
# it. Sourced; time_run_harness FILE writes it (no .cu in bench/: tests/check_tree.py keeps
# experiment kernels out), time_run_build builds it around one emitted program.
time_run_harness() {
cat > "$1" <<'HARNESS'
// Times NAME_run of an emitted stencil with one two-level state field `u` (bench/edges_ab.sh,
// bench/api_calls.sh): time_run NX NY NZ STEPS REPS prints the best of REPS runs.
// Built by the scripts: nvcc -DSTC_P=PREFIX -DSTC_NAME=\"LABEL\" -DSTC_HEADER=\"PREFIX.h\" -I. ...
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include STC_HEADER
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define F(n) CAT(STC_P, n)
int main(int argc, char **argv)
{
    int nx = atoi(argv[1]), ny = atoi(argv[2]), nz = atoi(argv[3]), steps = atoi(argv[4]), reps = atoi(argv[5]);
    size_t n = F(_buffer_elems)(nx, ny, nz);
    F(_fields) f;
    for (int i = 0; i < 2; i++) { cudaMalloc((void **)&f.u[i], n * sizeof(float)); cudaMemset(f.u[i], 0, n * sizeof(float)); }
    F(_params) p = F(_params_defaults)();
    size_t ws = F(_workspace_bytes)(nx, ny, nz);
    void *w = NULL;
    if (ws) cudaMalloc(&w, ws);
    cudaError_t e = F(_run)(&f, &p, nx, ny, nz, steps, w, 0);
    cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("run: %s\n", cudaGetErrorString(e)); return 1; }
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    float best = 1e30f;
    for (int r = 0; r < reps; r++) {
        cudaEventRecord(a);
        F(_run)(&f, &p, nx, ny, nz, steps, w, 0);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b);
        if (ms < best) best = ms;
    }
    double pts = (double)nx * ny * nz * steps;
    printf("%s %dx%dx%d steps %d: best %.3f ms, %.1f GStencil/s\n", STC_NAME, nx, ny, nz, steps, best, pts / (best * 1e-3) / 1e9);
    return 0;
}
HARNESS
}

# time_run_begin: a scratch folder $work (removed on exit) holding the harness, time_run.cu, and
# the GPU's name printed as a '# GPU:' line; what every script of this harness starts with.
time_run_begin() {
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    time_run_harness "$work/time_run.cu"
    nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sed 's/^/# GPU: /'
}

# time_run_build DIR PREFIX LABEL HARNESS: DIR/time_PREFIX from DIR/PREFIX.cu and PREFIX.h
time_run_build() {
    ( cd "$1" && nvcc -O3 -arch=sm_90 -std=c++17 -I. -DSTC_P="$2" -DSTC_NAME="\"$3\"" \
        -DSTC_HEADER="\"$2.h\"" -o "time_$2" "$4" "$2.cu" )
}
