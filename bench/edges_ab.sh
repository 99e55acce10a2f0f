#!/bin/bash
# Fused steps under fixed, clamp and mirror boundaries, two stencilc binaries side by side (the
# A/B of docs/performance.md, "Fused steps under every boundary condition"): star2d1r's weights,
# one configuration, each binary's emitted code built with nvcc around the harness below and
# timed through NAME_run, alternating, twice. Needs a GPU.
#   bench/edges_ab.sh OLD_STENCILC NEW_STENCILC [CONFIG] [GRID NX NY] [STEPS]
set -eu
cd "$(dirname "$0")/.."
old=$1 new=$2
cfg=${3:-tb=256x1x1,stream=y,sb=256,tblock=12}
nx=${4:-8192} ny=${5:-8192} steps=${6:-1008}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the timing harness (no .cu in bench/: tests/check_tree.py keeps experiment kernels out)
cat > "$work/time_run.cu" <<'HARNESS'
// Times NAME_run of an emitted stencil with one two-level state field `u` (the clamp and mirror
// A/B of docs/performance.md): time_run NX NY NZ STEPS REPS prints the best of REPS runs.
// Built below: nvcc -DSTC_P=PREFIX -DSTC_NAME=\"LABEL\" -DSTC_HEADER=\"PREFIX.h\" -I. ...
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
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sed 's/^/# GPU: /'
for v in old new; do
  eval "bin=\$$v"
  mkdir -p "$work/$v"
  for bc in fixed clamp mirror; do
    sed "s/boundary fixed/boundary $bc/; s/stencil star2d1r/stencil star_$bc/" examples/bench/star2d1r.st > "$work/star_$bc.st"
    "$bin" "$work/star_$bc.st" --config "$cfg" -o "$work/$v/star_$bc.cu"
    ( cd "$work/$v" && nvcc -O3 -arch=sm_90 -std=c++17 -I. -DSTC_P="star_$bc" -DSTC_NAME="\"$v-$bc\"" \
        -DSTC_HEADER="\"star_$bc.h\"" -o "time_$bc" "$work/time_run.cu" "star_$bc.cu" ) &
  done
done
wait
for round in 1 2; do
  for v in old new; do
    for bc in fixed clamp mirror; do "$work/$v/time_$bc" "$nx" "$ny" 1 "$steps" 5; done
  done
done
