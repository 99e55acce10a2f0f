#!/usr/bin/env bash
# The distributed tests on a machine with 2 or more GPUs, NCCL and MPI (the GPU machines):
# every program below, with process grids that split one, two and three axes (uneven splits
# among them), exchange depths 1 to 6 and the kernel families of the configurations, run with
# mpirun and compared with the one-GPU run (bit for bit) and the interpreter (tests/dist/
# dist_check.cu); then the bad-input cases. Cases with more ranks than GPUs are skipped. Ends
# with 'N passed, N failed, N skipped'. With one GPU (or STC_DIST_NCCL=mpi) every rank shares it
# through tests/dist/nccl_mpi.cc, a test double of NCCL over MPI staged through the host (NCCL
# refuses two ranks on one GPU): the same checks of the results, no figure of speed. Exits 77
# with no GPU. STC_DIST_ONLY="ID..." builds and runs only the programs of those IDs (the
# first argument of prog and run below), e.g. STC_DIST_ONLY="w3 w3s jac dred" for the reductions.
#   tests/dist/run_gpu.sh [BUILD_DIR] [LOG]
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
log=${2:-/dev/null}
export NCCL_NVLS_ENABLE=0 STC_DIST_OVERLAP=1
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$ngpu" -ge 1 ] || { echo "no GPU: skipped"; exit 77; }
nccl=(-lnccl) slots=$ngpu
if [ "$ngpu" -lt 2 ] || [ "${STC_DIST_NCCL:-}" = mpi ]; then
  nccl=("$PWD/tests/dist/nccl_mpi.cc" -I"$PWD/tests/dist/nccl_stub") slots=8
  echo "NCCL over MPI through the host (tests/dist/nccl_mpi.cc): $ngpu GPU(s) shared by the ranks"
fi
mpi_inc=${MPI_INC:-/usr/lib/x86_64-linux-gnu/openmpi/include}
mpi_lib=${MPI_LIB:-/usr/lib/x86_64-linux-gnu/openmpi/lib}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0 skipped=0

# prog ID FILE STENCIL TYPE CONFIG NX NY NZ STEPS [STENCILC-ARGS...]: generate, build and make
# the reference
# whether program ID is among STC_DIST_ONLY (all when it is empty)
wanted() { [ -z "${STC_DIST_ONLY:-}" ] || [[ " $STC_DIST_ONLY " == *" $1 "* ]]; }

prog() {
  local id=$1 file=$2 st=$3 type=$4 cfg=$5
  wanted "$id" || return 0
  local dir="$work/$id" args=("$file" --stencil "$st" --type "$type" --distributed -o "$work/$id/$st.cu")
  mkdir -p "$dir"
  [ -n "$cfg" ] && args+=(--config "$cfg")
  args+=("${@:10}")
  "$build/driver/stencilc" "${args[@]}" || return 1
  local pfx=${st//-/_} red=()
  grep -q "_dist_reduce(" "$dir/$st.h" && red=(-DSTC_REDUCE) # reductions: the harness checks them too
  ( cd "$dir" && nvcc -O3 -arch=sm_90 -std=c++17 -DSTC_P="$pfx" -DSTC_U="${pfx^^}" -DSTC_HEADER="$st.h" "${red[@]}" \
      -DOMPI_SKIP_MPICXX=1 \
      -I. -I"$mpi_inc" -o check "$OLDPWD/tests/dist/dist_check.cu" "$st.cu" "${nccl[@]}" -L"$mpi_lib" -lmpi ) || return 1
  "$build/tests/dist/dist_ref" "$file" "$st" "$type" "$6" "$7" "$8" "$9" "$dir/init.bin" "$dir/ref.bin"
}

# run ID NP PX PY PZ STEPS DEPTH [errors]; STC_DIST_OVERLAP=1 in the environment turns overlap on.
# STEPS: the prog line's, the steps of its interpreter reference
run() {
  local id=$1 np=$2
  local out
  wanted "$id" || return
  if [ "$np" -gt "$slots" ]; then skipped=$((skipped + 1)); return; fi
  out=$(timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$np" -x NCCL_NVLS_ENABLE=0 -x STC_DIST_OVERLAP -x STC_DIST_SAME_BITS \
        "$work/$id/check" "$work/$id/init.bin" "$work/$id/ref.bin" "$3" "$4" "$5" "$6" "$7" ${8:-} 2>&1)
  local rc=$?
  last_out=$out
  echo "$out" | grep -E "^(PASS|FAIL)|^  |dist_" | sed "s/^/[$id np=$np] /" | tee -a "$log"
  if [ $rc -eq 0 ] && echo "$out" | grep -q "^PASS"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAILED: $id np=$np $3x$4x$5 depth $7 ${8:-} (rc $rc)" | tee -a "$log"
    echo "$out" | tail -5; fi
}

# run_expect PATTERN WHY ID NP ...: as run, and a pass must print a line matching PATTERN
run_expect() {
  local pat=$1 why=$2 before=$pass
  shift 2
  last_out=
  run "$@"
  if [ "$pass" -gt "$before" ] && ! echo "$last_out" | grep -q "$pat"; then
    pass=$((pass - 1)) fail=$((fail + 1))
    echo "FAILED: $1 np=$2 depth $7: $why" | tee -a "$log"
  fi
}
# run_ov ID NP PX PY PZ STEPS DEPTH: as run, and every rank overlapped its exchanges
run_ov() { run_expect "^PASS.* overlapped:" "passed without overlap" "$@"; }
# run_part ...: as run, and some ranks overlapped, not all (the others made the same exchanges)
run_part() { run_expect "^PASS.* overlapped on [1-9][0-9]* of" "not a run where some ranks overlap" "$@"; }

s3=examples/bench/star3d1r.st
{
  prog s3 $s3 star3d1r float "" 37 33 29 7 &
  prog s3h $s3 star3d1r float "tb=32x8x1,cmem=on,uf=8x1x1,cm=8x1x4,maxreg=128,hcol=on" 37 33 29 7 &
  prog s3t $s3 star3d1r float "tb=32x32x1,stream=z,sb=128,tblock=3" 37 33 29 7 &
  prog b3 examples/bench/box3d1r.st box3d1r float "" 37 33 29 7 &
  prog b3t examples/bench/box3d1r.st box3d1r float "tb=32x16x1,stream=z,sb=128,tblock=2,retime=on" 37 33 29 8 &
  # several columns a thread in the fused-step kernels (the multi-step priors of star3d1r and box3d1r)
  prog s3tc4 $s3 star3d1r float "tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1" 37 33 29 7 &
  # the same with --same-bits (explicitly rounded sums, docs/config.md): the one-GPU bits, strictly
  prog s3tc4b $s3 star3d1r float "tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1" 37 33 29 7 --same-bits &
  # the same with the points selected, not branched around (select=on): the same bits
  prog s3tc4s $s3 star3d1r float "tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1,select=on" 37 33 29 7 --same-bits &
  prog b3tc2 examples/bench/box3d1r.st box3d1r float "tb=32x16x1,stream=z,sb=128,tblock=2,retime=on,bm=1x2x1" 37 33 29 8 &
  # several rows a thread in the retimed one-step kernel (box3d1r's one-step prior, smaller)
  prog b3r examples/bench/box3d1r.st box3d1r float "tb=32x2x1,stream=z,sb=16,retime=on,bm=1x4x1,prefetch=on" 37 33 29 7 &
  # the same with the planes copied asynchronously (async=on, box3d1r's one-step prior)
  prog b3ra examples/bench/box3d1r.st box3d1r float "tb=32x2x1,stream=z,sb=16,retime=on,bm=1x4x1,async=on" 37 33 29 7 &
  prog heat examples/heat.st heat float "" 37 33 29 6 &
  prog heatd examples/heat.st heat double "tb=32x32x1,stream=z,sb=128,tblock=3" 37 33 29 6 &
  prog wave examples/wave2d.st wave2d float "" 67 61 1 9 &
  prog gs examples/reaction_diffusion.st gray_scott float "" 67 61 1 9 &
  prog flux examples/flux_divergence.st flux_divergence double "" 67 61 1 6 &
  prog allbc tests/dist/allbc.st allbc float "" 67 61 1 5 &
  prog faces tests/dist/faces.st faces float "" 67 61 1 6 &
  prog facess tests/dist/faces.st faces double "tb=64x1,stream=y,sb=64" 67 61 1 6 &
  prog facesmix tests/dist/faces.st facesmix float "" 67 61 1 5 &
  prog h1 examples/heat1d.st heat1d float "" 1001 1 1 10 &
  prog s3v $s3 star3d1r float "tb=128x2x1,uf=2x2x1,bm=2x2x1,vec=2" 38 33 29 7 &
  prog adv examples/advdiff_source.st advdiff_source float "" 67 61 1 9 &
  prog advt examples/advdiff_source.st advdiff_source double "tb=32x16x1,tblock=3" 67 61 1 9 &
  prog hs3 examples/advdiff_source.st heat_source3d float "tb=32x32x1,stream=z,sb=128,tblock=3" 37 33 29 7 &
  # reductions (_dist_reduce, _dist_run_reduce): periodic 3D with an older level and a coef
  # (depth 1: the fixed coef beside the periodic u), fixed 2D faces, periodic x beside mirror and
  # clamp y faces with a diagonal read and the coordinates
  prog w3 examples/wave3d_energy.st wave3d_energy float "" 37 33 29 7 &
  prog w3s examples/wave3d_energy.st wave3d_energy double "tb=32x4x1,stream=z,sb=64" 37 33 29 7 &
  prog jac examples/jacobi_residual.st jacobi double "" 67 61 1 9 &
  prog dred tests/dist/dred.st dred float "" 67 61 1 6 &
  # depth 0: the depth the model chose for 256x256x512 over 1x1x2 (4; 12 with tblock=3)
  prog s3c $s3 star3d1r float "" 37 33 29 7 --procs 1x1x2 --grid 256x256x512 &
  prog s3tc $s3 star3d1r float "tb=32x32x1,stream=z,sb=128,tblock=3" 37 33 29 13 --procs 1x1x2 --grid 256x256x512 &
  # overlapped fused steps (ranges of the kernel's blocks along the outermost axis): chunks of 16
  # planes, so that a part has edge chunks and an interior; 3D tiles of 4 planes in double
  prog s3to $s3 star3d1r float "tb=32x16x1,stream=z,sb=16,tblock=3" 37 33 78 9 &
  # the same over 35 planes: on 2 ranks the first part (18 planes, no deep-halo layers below)
  # is too thin to overlap, the second (17 and 2 such layers) overlaps: both must still make
  # the same exchanges
  prog s3tom $s3 star3d1r float "tb=32x16x1,stream=z,sb=16,tblock=3" 37 33 35 9 &
  prog b3to examples/bench/box3d1r.st box3d1r float "tb=32x8x1,stream=z,sb=16,tblock=2,retime=on" 37 33 70 8 &
  prog s2to examples/bench/star2d1r.st star2d1r float "tb=64x1x1,stream=y,sb=16,tblock=4" 67 130 1 12 &
  prog s2tos examples/bench/star2d1r.st star2d1r float "tb=64x1x1,stream=y,sb=16,tblock=4,select=on" 67 130 1 12 &
  # two columns a thread along x (bm=2x1): the transposed ring under x and y splits, deep halos
  prog s2tc2 examples/bench/star2d1r.st star2d1r float "tb=32x1x1,stream=y,sb=16,tblock=4,bm=2x1x1,select=on" 67 130 1 12 &
  prog s22tc2 examples/bench/star2d2r.st star2d2r float "tb=32x1x1,stream=y,sb=16,tblock=2,bm=2x1x1" 67 130 1 8 &
  prog s3tto $s3 star3d1r double "tb=16x8x8,tblock=2" 37 33 70 8 &
  # fused steps of periodic programs: a rank's part holds its periodic faces (Plan.held) where
  # one GPU wraps them; streaming (one and two columns a thread), the tile, 3D streaming
  rd=examples/reaction_diffusion.st
  prog gst $rd gray_scott float "tb=32x1x1,stream=y,sb=16,tblock=4" 67 130 1 12 &
  prog gstc2 $rd gray_scott float "tb=32x1x1,stream=y,sb=16,tblock=4,bm=2x1x1,select=on" 67 130 1 12 &
  prog gstt $rd gray_scott double "tb=32x16x1,tblock=3" 67 61 1 9 &
  prog p3t tests/dist/periodic3d.st periodic3d float "tb=32x16x1,stream=z,sb=16,tblock=3" 37 33 70 9 &
  prog p3tc2 tests/dist/periodic3d.st periodic3d float "tb=32x16x1,stream=z,sb=16,tblock=3,bm=1x2x1,select=on" 37 33 70 9 &
  # fused steps of clamp and mirror programs whose step is symmetric along every axis: a rank's
  # part holds its faces, and those of the global grid are reflected by a copy at each exchange
  rf=tests/programs/reflect.st
  prog rc2t $rf clampsym2d float "tb=32x1x1,stream=y,sb=16,tblock=4" 67 130 1 12 &
  prog rm2tc2 $rf mirrorsym2d float "tb=32x1x1,stream=y,sb=16,tblock=4,bm=2x1x1" 67 130 1 12 &
  prog rm2tt $rf mirrorsym2d double "tb=32x16x1,tblock=3" 67 61 1 9 &
  prog rc3t $rf clampsym3d float "tb=32x16x1,stream=z,sb=16,tblock=3" 37 33 70 9 &
  prog rm3tc2 $rf mirrorsym3d double "tb=32x16x1,stream=z,sb=16,tblock=2,bm=1x2x1" 37 33 70 8 &
  prog gau examples/image.st gaussian3x3 double "tb=32x1x1,stream=y,sb=16,retime=on,tblock=3" 67 130 1 9 &
  prog box5 examples/image.st box5x5 float "tb=32x1x1,stream=y,sb=16,tblock=2" 67 130 1 8 &
  # fused steps of three time levels (both input levels kept on chip, a fourth buffer in the
  # workspace): reflected mirror faces (wave2d, streaming and the tile; a coef), periodic faces
  # (held, exchanged), fixed faces
  sed 's/boundary mirror/boundary fixed/' examples/wave2d.st >"$work/wave_fixed.st"
  sed 's/boundary mirror/boundary periodic/' examples/wave2d.st >"$work/wave_periodic.st"
  prog wvt examples/wave2d.st wave2d float "tb=32x1x1,stream=y,sb=16,tblock=4" 67 130 1 12 &
  prog wvtt examples/wave2d.st wave2d double "tb=32x16x1,tblock=3" 67 61 1 9 &
  prog mwvt $rf mirrorwave2d float "tb=32x1x1,stream=y,sb=16,tblock=4,bm=2x1x1" 67 130 1 12 &
  prog wvpt "$work/wave_periodic.st" wave2d float "tb=32x1x1,stream=y,sb=16,tblock=4,bm=2x1x1" 67 130 1 12 &
  prog wvft "$work/wave_fixed.st" wave2d float "tb=32x1x1,stream=y,sb=16,tblock=4" 67 130 1 12 &
  # hwrap=on: the part's held fused steps wrap the extended grid instead of holding its faces
  # (periodic 2D and 3D, reflecting clamp and mirror, the retimed kernel, three levels)
  prog gstw $rd gray_scott float "tb=32x1x1,stream=y,sb=16,tblock=4,bm=2x1x1,select=on,hwrap=on" 67 130 1 12 &
  prog p3tw tests/dist/periodic3d.st periodic3d float "tb=32x16x1,stream=z,sb=16,tblock=3,hwrap=on" 37 33 70 9 &
  prog rc3tw $rf clampsym3d float "tb=32x16x1,stream=z,sb=16,tblock=3,hwrap=on" 37 33 70 9 &
  prog rm3tc2w $rf mirrorsym3d double "tb=32x16x1,stream=z,sb=16,tblock=2,bm=1x2x1,hwrap=on" 37 33 70 8 &
  prog rm2ttw $rf mirrorsym2d double "tb=32x16x1,tblock=3,hwrap=on" 67 61 1 9 &
  prog gauw examples/image.st gaussian3x3 double "tb=32x1x1,stream=y,sb=16,retime=on,tblock=3,hwrap=on" 67 130 1 9 &
  prog mwvtw $rf mirrorwave2d float "tb=32x1x1,stream=y,sb=16,tblock=4,bm=2x1x1,hwrap=on" 67 130 1 12 &
  # an overlapped one-step kernel whose blocks stream 32 planes, the sent slabs whole chunks
  prog b3o examples/bench/box3d1r.st box3d1r float "tb=32x4x1,stream=z,sb=32,retime=on" 37 33 140 7 &
  wait
} 2>&1 | grep -v "^$" | tail -20

run s3 2 1 1 2 7 1; run s3 2 2 1 1 7 1; run s3 2 1 2 1 7 3
run s3 4 1 2 2 7 1; run s3 4 2 2 1 7 2; run s3 4 4 1 1 7 1; run s3 4 1 1 4 7 3; run s3 4 2 1 2 7 1
run s3 4 2 2 1 7 1 errors
run s3h 4 1 2 2 7 1; run s3h 2 1 1 2 7 2
run s3t 2 1 1 2 7 3; run s3t 4 2 2 1 7 3; run s3t 4 1 1 4 7 6
run b3 2 2 1 1 7 1; run b3 4 2 2 1 7 1; run b3 4 1 2 2 7 2; run b3 4 2 1 2 7 1
run b3t 4 2 2 1 8 2; run b3t 4 1 1 4 8 4
# Four columns a thread (bm=1x4x1): the gathered result is within the interpreter's tolerance
# (1.9e-7 against 1.4e-5, as one GPU) but not the one-GPU bits when y or z is split (2026-11-27,
# on H200s: 966 of 35 409 points at 1x1x2; an x split and two columns a thread give the same
# bits). The compiler contracts the points' sums into FMAs in different orders in different
# unrolled copies (docs/distributed.md, Correctness); until that is fixed these check the tolerance.
export STC_DIST_SAME_BITS=0
run s3tc4 2 1 1 2 7 3; run s3tc4 4 2 2 1 7 3; run s3tc4 4 1 2 2 7 6; run s3tc4 4 1 1 4 7 3
export STC_DIST_SAME_BITS=
# with --same-bits every unrolled copy rounds alike: bit for bit under every split (4 H200s,
# 2026-11-27: 0 points differ in all four)
run s3tc4b 2 1 1 2 7 3; run s3tc4b 4 2 2 1 7 3; run s3tc4b 4 1 2 2 7 6; run s3tc4b 4 1 1 4 7 3
run s3tc4s 2 1 1 2 7 3; run s3tc4s 4 2 2 1 7 3; run s3tc4s 4 1 2 2 7 6; run s3tc4s 4 1 1 4 7 3
run b3tc2 2 1 2 1 8 2; run b3tc2 4 2 2 1 8 2; run b3tc2 4 1 1 4 8 4
run b3r 2 1 2 1 7 1; run b3r 4 1 2 2 7 2; run b3r 4 2 2 1 7 1; run b3r 4 1 1 4 7 3
run b3ra 2 1 2 1 7 1; run b3ra 2 1 1 2 7 2; run b3ra 4 1 2 2 7 2; run b3ra 4 2 2 1 7 1; run b3ra 4 1 1 4 7 3
run heat 4 2 2 1 6 1; run heatd 4 1 2 2 6 3
run wave 2 2 1 1 9 1; run wave 2 1 2 1 9 2; run wave 4 2 2 1 9 1; run wave 4 4 1 1 9 3; run wave 4 1 4 1 9 2
run gs 2 2 1 1 9 1; run gs 2 1 2 1 9 3; run gs 4 2 2 1 9 1; run gs 4 2 2 1 9 3; run gs 4 4 1 1 9 2; run gs 4 1 4 1 9 1
run gs 4 2 2 1 9 1 errors; run gs 2 2 1 1 9 1 errors
run flux 2 2 1 1 6 1; run flux 2 1 2 1 6 2; run flux 4 2 2 1 6 1; run flux 4 2 2 1 6 2; run flux 4 4 1 1 6 1
run allbc 2 2 1 1 5 1; run allbc 4 2 2 1 5 1; run allbc 4 1 4 1 5 1
# a boundary per axis and per face: periodic x exchanged at the ends (deep halos), each y face filled
run faces 2 2 1 1 6 1; run faces 2 1 2 1 6 3; run faces 2 2 1 1 6 2; run faces 4 2 2 1 6 2; run faces 4 4 1 1 6 3
run faces 1 1 1 1 6 3; run facess 4 2 2 1 6 2; run facess 2 1 2 1 6 2; run facess 2 1 2 1 6 1
run facesmix 2 2 1 1 5 1; run facesmix 4 2 2 1 5 1; run facesmix 4 1 4 1 5 1
run h1 2 2 1 1 10 1; run h1 4 4 1 1 10 2
# the built-ins x, y, z, nx, ny, nz, step: global coordinates on every rank, deep halos included
run adv 2 2 1 1 9 1; run adv 4 2 2 1 9 2; run adv 4 1 4 1 9 3; run advt 4 2 2 1 9 3; run advt 2 1 2 1 9 6
run hs3 4 1 1 4 7 3; run hs3 4 2 2 1 7 2
# reductions over the global grid on every rank: slabs, pencils and blocks, uneven splits, deep
# halos, periodic, mirror, clamp and fixed faces, overlap where it applies; then their bad input
run w3 2 1 1 2 7 1; run w3 2 2 1 1 7 1; run w3 4 1 2 2 7 1; run w3 4 2 2 1 7 1; run w3 4 4 1 1 7 1
run w3 8 2 2 2 7 1; run w3s 4 1 1 4 7 1; run w3s 2 1 2 1 7 1
run jac 2 2 1 1 9 1; run jac 2 1 2 1 9 3; run jac 4 2 2 1 9 2; run jac 4 4 1 1 9 1; run jac 4 1 4 1 9 4
run dred 1 1 1 1 6 2; run dred 2 2 1 1 6 1; run dred 2 1 2 1 6 2; run dred 4 2 2 1 6 3; run dred 4 4 1 1 6 2
run dred 4 1 4 1 6 1
run dred 2 2 1 1 6 1 errors; run jac 4 2 2 1 9 1 errors
# overlap (slabs of the outermost axis, depth 1): on (as everywhere above, where it applies), and off
run s3h 4 1 1 4 7 1; run b3 4 1 1 4 7 1; run wave 4 1 4 1 9 1; run h1 4 4 1 1 10 1; run s3v 4 1 1 4 7 1
run s3v 2 1 1 2 7 1; run heat 2 1 1 2 6 1
# overlapped fused steps: whole groups (depth = T), a plain launch before the overlapped one
# (depth = 2T), a last group shorter than the depth, parts whose interior range is empty
run_ov s3to 2 1 1 2 9 3; run_ov s3to 2 1 1 2 9 6; run_ov s3to 4 1 1 4 9 3
run_ov b3to 2 1 1 2 8 2; run_ov b3to 2 1 1 2 8 4; run_ov b3to 4 1 1 4 8 2
run_ov s2to 2 1 2 1 12 4; run_ov s2to 2 1 2 1 12 8; run_ov s2tos 2 1 2 1 12 4
run_ov s2tc2 2 1 2 1 12 4; run s2tc2 2 2 1 1 12 4; run s2tc2 4 2 2 1 12 8
# radius 2 branched: an x split gives the one-GPU bits, a y split overlapped not (87 of 8710
# points at 1x2x1, 2 H200s, 2026-11-28; 2.3e-7 from the interpreter as on one GPU): the rounding
# of the unrolled copies, as for s3tc4 above, so these check the tolerance
export STC_DIST_SAME_BITS=0
run s22tc2 2 2 1 1 8 2; run_ov s22tc2 2 1 2 1 8 4; run s22tc2 4 2 2 1 8 2
export STC_DIST_SAME_BITS=
run_ov s3tto 2 1 1 2 8 2; run_ov s3tto 4 1 1 4 8 4
# periodic fused steps: every axis exchanged (with the rank itself where it is alone), deep halos
# of 1 and 2 groups, overlapped, uneven parts
run gst 2 1 2 1 12 4; run gst 2 2 1 1 12 8; run_ov gst 2 1 2 1 12 4; run gst 4 2 2 1 12 4; run gst 4 4 1 1 12 8
run gst 1 1 1 1 12 4; run gstc2 2 2 1 1 12 4; run_ov gstc2 2 1 2 1 12 8; run gstc2 4 2 2 1 12 4
run gstt 2 1 2 1 9 3; run gstt 2 2 1 1 9 6; run gstt 4 2 2 1 9 3
run p3t 2 1 1 2 9 3; run_ov p3t 2 1 1 2 9 3; run p3t 2 2 1 1 9 6; run p3t 4 1 2 2 9 3; run p3t 4 2 1 2 9 3
run p3tc2 2 1 1 2 9 3; run p3tc2 4 1 2 2 9 6; run_ov p3tc2 4 1 1 4 9 3
run_ov b3o 2 1 1 2 7 1; run_ov b3o 4 1 1 4 7 1
# reflected faces: one rank (every face global), slabs, pencils, uneven parts, deep halos of one
# and two groups, depths that are no multiple of the fused steps (never overlapped)
run rc2t 1 1 1 1 12 4; run rc2t 2 1 2 1 12 4; run rc2t 2 2 1 1 12 8; run rc2t 4 2 2 1 12 4
# depth 3 below the 4 steps fused: one step a launch, against one GPU's fused steps, whose layers
# beyond the faces sum their terms in the mirrored order: the tolerance (6 points differ in the
# last bit, 1 H200 through tests/dist/nccl_mpi.cc, 2026-11-29)
export STC_DIST_SAME_BITS=0
run rc2t 4 4 1 1 12 3
export STC_DIST_SAME_BITS=
run rm2tc2 1 1 1 1 12 4; run rm2tc2 2 2 1 1 12 4; run rm2tc2 4 2 2 1 12 8; run rm2tc2 2 1 2 1 12 4
run rm2tt 1 1 1 1 9 3; run rm2tt 2 1 2 1 9 3; run rm2tt 4 2 2 1 9 6
run rc3t 1 1 1 1 9 3; run rc3t 2 1 1 2 9 3; run rc3t 4 1 2 2 9 3; run rc3t 4 2 1 2 9 6
run rm3tc2 1 1 1 1 8 2; run rm3tc2 2 2 1 1 8 2; run rm3tc2 4 1 2 2 8 4; run rm3tc2 4 1 1 4 8 2
run gau 1 1 1 1 9 3; run gau 2 1 2 1 9 3; run gau 4 2 2 1 9 6; run box5 2 1 2 1 8 2; run box5 4 2 2 1 8 4
# three time levels fused: one rank, slabs, pencils, uneven parts, deep halos of one and two groups
run wvt 1 1 1 1 12 4; run wvt 2 1 2 1 12 4; run wvt 2 2 1 1 12 8; run wvt 4 2 2 1 12 4
run wvtt 1 1 1 1 9 3; run wvtt 2 1 2 1 9 3; run wvtt 4 2 2 1 9 6
run mwvt 1 1 1 1 12 4; run mwvt 2 2 1 1 12 4; run mwvt 4 2 2 1 12 8
run wvpt 1 1 1 1 12 4; run wvpt 2 1 2 1 12 4; run wvpt 2 2 1 1 12 8; run wvpt 4 2 2 1 12 4
run wvft 2 1 2 1 12 4; run wvft 2 2 1 1 12 8; run wvft 4 2 2 1 12 4; run wvft 4 4 1 1 12 4
run_part s3tom 2 1 1 2 9 3; run_part s3tom 2 1 1 2 9 6
run gstw 1 1 1 1 12 4; run gstw 2 1 2 1 12 8; run_ov gstw 2 1 2 1 12 4; run gstw 4 2 2 1 12 4
run p3tw 1 1 1 1 9 3; run p3tw 2 1 1 2 9 3; run_ov p3tw 2 1 1 2 9 3; run p3tw 4 1 2 2 9 6; run p3tw 4 1 1 4 9 3
run rc3tw 1 1 1 1 9 3; run rc3tw 2 1 1 2 9 3; run rc3tw 4 2 1 2 9 6
run rm3tc2w 1 1 1 1 8 2; run rm3tc2w 2 2 1 1 8 4; run rm3tc2w 4 1 1 4 8 2
run rm2ttw 2 1 2 1 9 3; run rm2ttw 4 2 2 1 9 6; run gauw 2 1 2 1 9 3; run gauw 4 2 2 1 9 6
run mwvtw 1 1 1 1 12 4; run mwvtw 2 2 1 1 12 4; run mwvtw 4 2 2 1 12 8
# the blocks way (any split): a middle axis, periodic axes exchanged with the rank itself beside
# a split one (two and three axes), pencils, a fused kernel split along y
run_ov s3 2 1 2 1 7 1; run_ov gs 2 1 2 1 9 1; run_ov gs 2 2 1 1 9 1; run_ov w3 2 1 1 2 7 1
run_ov s3to 2 1 2 1 9 3; run_ov s3 4 1 2 2 7 1; run_ov b3 4 1 2 2 7 1; run_ov w3 4 1 2 2 7 1
export STC_DIST_OVERLAP=0
run s3h 4 1 1 4 7 1; run b3 4 1 1 4 7 1; run wave 4 1 4 1 9 1; run s3v 4 1 1 4 7 1
export STC_DIST_OVERLAP=
run s3c 2 1 1 2 7 0; run s3tc 2 1 1 2 13 0
export STC_DIST_OVERLAP=1
echo "$pass passed, $fail failed, $skipped skipped (more ranks than the $slots slots)" | tee -a "$log"
[ "$fail" -eq 0 ]
