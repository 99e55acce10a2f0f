#!/bin/sh
# run_wave_capi.sh STENCILC SOURCE_ROOT: emits examples/wave3d_energy.st twice, fused two steps a
# launch (--name wfused, tblock=2) and step by step (--name wplain), builds both with nvcc together
# with tests/runtime/wave_capi.c and runs it: the three-level fused run through the C API (its
# workspace buffer, NAME_run_reduce) against the plain one. With --compile-only it stops after
# building (no GPU needed). Exits 77 without nvcc or, to run, without a GPU.
set -u
stencilc=$1 root=$2 mode=${3:-run}
nvcc=/usr/local/cuda/bin/nvcc
[ -x "$nvcc" ] || nvcc=$(command -v nvcc) || { echo "no nvcc: skipped"; exit 77; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
"$stencilc" "$root/examples/wave3d_energy.st" --name wfused --config tb=32x8x1,tblock=2 -o "$work/wfused.cu" || exit 1
"$stencilc" "$root/examples/wave3d_energy.st" --name wplain -o "$work/wplain.cu" || exit 1
"$nvcc" -O2 -Werror all-warnings -I"$work" "$work/wfused.cu" "$work/wplain.cu" "$root/tests/runtime/wave_capi.c" \
    -o "$work/wave_capi" || exit 1
[ "$mode" = --compile-only ] && { echo "wave_capi: built"; exit 0; }
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
"$work/wave_capi"
