#!/bin/sh
# The tests that need a GPU, run for real on a machine that has one (CI has none, so there they
# exit 77). Run from the repository root with a build folder made by meson (e.g. carried to the
# GPU machine):
#
#   sh scripts/gpu_tests.sh [BUILD] [--random N --seed S] [--no-fixed] [--dist]
#
# Runs test_codegen_gpu, test_rt_handplan, test_rt_index64 (about 20 GB of GPU memory),
# test_gpu_eval, test_gpu_faults, test_rt_reduce, the C API Jacobi and three-level wave drivers, the
# examples against numpy (tests/numpy), then
# test_rt_examples
# on its fixed list (unless --no-fixed) and, with --random, on N random valid configurations per
# program; with --dist, tests/dist/run_gpu.sh too (the distributed API over 1 to 8 ranks: with
# one GPU its ranks share it through tests/dist/nccl_mpi.cc; needs MPI, about 5 minutes). Prints
# each test's output under a "## name" line and its exit status, and ends with
# "N passed, N failed, N skipped". A skip (77) on a machine meant to have a GPU is a failure of
# the set-up, not a pass: the script exits 1 if anything failed or was skipped.
set -u
build=build-dev
random=""
fixed=1
dist=0
while [ $# -gt 0 ]; do
    case "$1" in
        --random) random="--random $2"; shift 2 ;;
        --seed) random="$random --seed $2"; shift 2 ;;
        --no-fixed) fixed=0; shift ;;
        --dist) dist=1; shift ;;
        *) build="$1"; shift ;;
    esac
done
STC_SOURCE_ROOT=$(pwd)
export STC_SOURCE_ROOT
passed=0 failed=0 skipped=0

run() {
    name="$1"; shift
    echo "## $name $*"
    start=$(date +%s)
    "$@"
    rc=$?
    echo "rc=$rc ($(( $(date +%s) - start )) s)"
    case $rc in
        0) passed=$((passed + 1)) ;;
        77) skipped=$((skipped + 1)) ;;
        *) failed=$((failed + 1)) ;;
    esac
}

# (no commit line here: the GPU machine's copy of the tree may carry an older .git)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/# GPU: /'
date -u '+# %Y-%m-%d %H:%M UTC'
run test_codegen_gpu "$build/tests/codegen/test_codegen_gpu"
run test_rt_handplan "$build/tests/runtime/test_rt_handplan"
run test_rt_index64 "$build/tests/runtime/test_rt_index64"
run test_gpu_eval "$build/tests/driver/test_gpu_eval"
run test_gpu_faults "$build/tests/driver/test_gpu_faults"
run test_rt_reduce "$build/tests/runtime/test_rt_reduce"
run jacobi_capi sh tests/runtime/run_jacobi_capi.sh "$build/driver/stencilc" "$STC_SOURCE_ROOT"
run wave_capi sh tests/runtime/run_wave_capi.sh "$build/driver/stencilc" "$STC_SOURCE_ROOT"
run numpy_examples python3 tests/numpy/check_examples.py "$build/driver/stencilc" "$STC_SOURCE_ROOT" --gpu
if [ $fixed = 1 ]; then
    run test_rt_examples "$build/tests/runtime/test_rt_examples" .
fi
if [ -n "$random" ]; then
    # shellcheck disable=SC2086  # $random is the option words
    run test_rt_examples "$build/tests/runtime/test_rt_examples" . $random
fi
if [ $dist = 1 ]; then
    run dist_run_gpu bash tests/dist/run_gpu.sh "$build"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ] && [ $skipped = 0 ]
