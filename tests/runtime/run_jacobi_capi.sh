#!/bin/sh
# run_jacobi_capi.sh STENCILC SOURCE_ROOT: emits examples/jacobi_residual.st, builds it with nvcc
# together with tests/runtime/jacobi_capi.c (a solver through the C API that stops on its
# residual) and runs it. Exits 77 without nvcc or a GPU.
set -u
stencilc=$1 root=$2
nvcc=/usr/local/cuda/bin/nvcc
[ -x "$nvcc" ] || nvcc=$(command -v nvcc) || { echo "no nvcc: skipped"; exit 77; }
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
"$stencilc" "$root/examples/jacobi_residual.st" -o "$work/jacobi.cu" || exit 1
"$nvcc" -O2 -I"$work" "$work/jacobi.cu" "$root/tests/runtime/jacobi_capi.c" -o "$work/jacobi_capi" || exit 1
"$work/jacobi_capi"
