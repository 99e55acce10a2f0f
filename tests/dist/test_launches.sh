#!/usr/bin/env bash
# The distributed code's host side in CI (no GPU, no NCCL): each program's emitted code linked
# with tests/dist/fake_cuda.cc, a fake CUDA runtime and NCCL that record instead of run, and
# driven by tests/dist/launch_model.cu over every rank of a process grid in turn: the messages of
# each pair of ranks match (none left waiting), the overlapped step's block ranges cover the
# kernel's grid once a step, and its edges and exchange go on the exchange's stream, its interior
# on the caller's. Splits of one, two and three axes, uneven parts, parts that overlap on some
# ranks only, fused and one-step kernels, periodic axes, reductions, two stages; and the
# exchange-cost model's overlap-fit answer against the code's. Exits 77 without nvcc.
#   test_launches.sh STENCILC SOURCE_ROOT
set -euo pipefail
stencilc=$(realpath "$1") root=$(cd "$2" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc
[ -x "$nvcc" ] || { echo "no nvcc: skipped"; exit 77; }
cxx=${CXX:-c++}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
inc=(-I"$root/tests/dist" -I"$root/tests/dist/nccl_stub")
"$cxx" -std=c++17 -O1 -Wall -Wextra -Werror -c "$root/tests/dist/fake_cuda.cc" -I"$cuda/include" "${inc[@]}" \
  -o "$dir/fake.o"

# build ID FILE STENCIL CONFIG: the model over that program's code (the prefix p)
build() {
  mkdir -p "$dir/$1"
  "$stencilc" "$root/$2" --stencil "$3" --name p --distributed ${4:+--config "$4"} -o "$dir/$1/p.cu"
  ( cd "$dir/$1" && "$nvcc" -arch=sm_90 -std=c++17 -cudart none -I. "${inc[@]}" -o model \
      "$root/tests/dist/launch_model.cu" p.cu "$dir/fake.o" )
}
build fused examples/bench/star3d1r.st star3d1r "tb=32x16x1,stream=z,sb=16,tblock=3" &
build plain examples/bench/star3d1r.st star3d1r "" &
build gs examples/reaction_diffusion.st gray_scott "" &
build gst examples/reaction_diffusion.st gray_scott "tb=32x1x1,stream=y,sb=16,tblock=4" &
build heat examples/heat.st heat "tb=32x32x1,stream=z,sb=128,tblock=3" &
build w3 examples/wave3d_energy.st wave3d_energy "" &
build flux examples/flux_divergence.st flux_divergence "" &
build rc2t tests/programs/reflect.st clampsym2d "tb=32x1x1,stream=y,sb=16,tblock=4" &
build rm3t tests/programs/reflect.st mirrorsym3d "tb=32x16x1,stream=z,sb=16,tblock=2" &
build wvt examples/wave2d.st wave2d "tb=32x1x1,stream=y,sb=16,tblock=4" &
wait
for id in fused plain gs gst heat w3 flux rc2t rm3t wvt; do
  [ -x "$dir/$id/model" ] || { echo "FAIL: the model of $id did not build"; exit 1; }
done

pass=0 fail=0
# run ID EXPECT ARGS...: the model's line must start with ok and hold EXPECT
run() {
  local id=$1 want=$2 out
  shift 2
  out=$(cd "$dir/$id" && ./model "$@" 2>&1) || true
  if [[ $out == ok* && $out == *"$want"* ]]; then pass=$((pass + 1)); echo "$id: $out"
  else fail=$((fail + 1)); echo "FAIL $id $* (want '$want'): $out"; fi
}
# the fused kernel: parts that overlap on one rank of two (the case that hung), pencils and
# slabs with an interior range, depth 2T with a short last group, 8 ranks, overlap off
run fused "1 of 2 ranks overlapped" 37 33 35 1 1 2 3 9 1
run fused "4 of 4 ranks overlapped" 37 70 120 1 2 2 3 9 1
run fused "overlapped" 37 70 120 1 2 2 6 10 1
run fused "4 of 4 ranks overlapped" 37 70 120 1 1 4 3 9 1
run fused "ranks overlapped" 70 70 120 2 2 2 3 9 1
run fused "0 of 4 ranks overlapped" 37 70 120 1 2 2 3 9 0
# the one-step kernel: the blocks way (pencils, blocks), the planes way (slabs)
run plain "4 of 4 ranks overlapped" 37 33 29 1 2 2 1 7 1
run plain "8 of 8 ranks overlapped" 70 70 60 2 2 2 1 7 1
run plain "4 of 4 ranks overlapped" 37 33 29 1 1 4 1 7 1
run plain "0 of 4 ranks overlapped" 37 33 29 1 2 2 2 7 1
# periodic in x and y: axes a rank exchanges with itself beside a split one
run gs "2 of 2 ranks overlapped" 67 61 1 1 2 1 1 9 1
run gs "4 of 4 ranks overlapped" 67 61 1 2 2 1 1 9 1
run gs "ranks overlapped" 67 61 1 4 1 1 1 9 1
# fused steps of a periodic program (its part's kernel holds the periodic faces): slabs
# overlapped, blocks, an axis a rank exchanges with itself, depth 2T
run gst "2 of 2 ranks overlapped" 67 130 1 1 2 1 4 12 1
run gst "ranks overlapped" 67 130 1 2 2 1 8 12 1
run gst "0 of 4 ranks overlapped" 67 130 1 4 1 1 4 12 0
# fused steps that reflect clamp and mirror faces (every axis's global faces copied within the
# buffer, like an axis a rank exchanges with itself; never overlapped): one rank, slabs, blocks
run rc2t "0 of 1 ranks overlapped" 67 130 1 1 1 1 4 12 1
run rc2t "0 of 2 ranks overlapped" 67 130 1 1 2 1 4 12 1
run rc2t "0 of 4 ranks overlapped" 67 130 1 2 2 1 8 12 1
run rm3t "0 of 2 ranks overlapped" 37 33 70 1 1 2 2 8 1
run rm3t "0 of 4 ranks overlapped" 37 70 70 1 2 2 2 8 0
# fused steps of three time levels (two levels sent a group): a group of one launch and of two
run wvt "0 of 4 ranks overlapped" 67 130 1 2 2 1 4 12 1
run wvt "0 of 2 ranks overlapped" 67 130 1 1 2 1 8 12 1
# fused steps of another program (fixed faces), uneven slabs
run heat "3 of 3 ranks overlapped" 37 33 400 1 1 3 3 7 1
# periodic in three axes with reductions and an older level; two stages, a coef (no overlap)
run w3 "2 of 2 ranks overlapped" 37 33 29 1 1 2 1 7 1
run w3 "4 of 4 ranks overlapped" 70 70 120 1 2 2 1 8 1
run flux "0 of 4 ranks overlapped" 67 61 1 2 2 1 1 6 1
# The overlap-fit rule is written twice: the emitted code's (each rank, its own part) and the
# exchange-cost model's (codegen/dist_model.c: the header's recommendation, on an inner part).
# Where every part is alike (even splits) they must agree: the model lists an overlapped
# candidate exactly where every rank overlaps, and none where no rank does.
# agree ID FILE STENCIL CONFIG NX NY NZ PX PY PZ DEPTH STEPS (NZ and PZ 1 in 2D)
agree() {
  local id=$1 file=$2 st=$3 cfg=$4 grid=$5x$6 procs=$8x$9 line want
  [ "$7" = 1 ] && [ "${10}" = 1 ] || { grid=$grid"x$7"; procs=$procs"x${10}"; }
  line=$("$stencilc" "$root/$file" --stencil "$st" --distributed ${cfg:+--config "$cfg"} --grid "$grid" \
    --procs "$procs" -o "$dir/agree.cu" 2>&1 | grep "exchange:") || { fail=$((fail + 1)); echo "FAIL: no choice for $*"; return; }
  local n=$(($8 * $9 * ${10}))
  if [[ $line == *"with overlap"* ]]; then want="$n of $n ranks overlapped"; else want="0 of $n ranks overlapped"; fi
  run "$id" "$want" "$5" "$6" "$7" "$8" "$9" "${10}" "${11}" "${12}" 1
}
agree plain examples/bench/star3d1r.st star3d1r "" 37 64 64 1 2 2 1 3    # pencils with an interior
agree plain examples/bench/star3d1r.st star3d1r "" 37 8 8 1 2 2 1 3      # parts one tile thick
agree plain examples/bench/star3d1r.st star3d1r "" 64 64 64 2 2 2 1 3    # blocks
agree plain examples/bench/star3d1r.st star3d1r "" 64 32 64 1 1 4 1 3    # slabs (planes way)
agree plain examples/bench/star3d1r.st star3d1r "" 64 32 4 1 1 2 1 3     # slabs of two planes
agree plain examples/bench/star3d1r.st star3d1r "" 64 32 32 2 1 1 1 3    # x split, narrow parts
agree fused examples/bench/star3d1r.st star3d1r "tb=32x16x1,stream=z,sb=16,tblock=3" 37 70 128 1 1 4 3 9
agree fused examples/bench/star3d1r.st star3d1r "tb=32x16x1,stream=z,sb=16,tblock=3" 37 70 64 1 1 4 3 9
agree fused examples/bench/star3d1r.st star3d1r "tb=32x16x1,stream=z,sb=16,tblock=3" 64 128 64 1 2 1 3 9
agree gs examples/reaction_diffusion.st gray_scott "" 128 128 1 2 2 1 1 5
agree gs examples/reaction_diffusion.st gray_scott "" 16 16 1 2 2 1 1 5
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
