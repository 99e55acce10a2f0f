#!/usr/bin/env bash
# Weak and strong scaling of the distributed API against the hand-written MPI + NCCL Jacobi
# (../shared/peers/mgpu_jacobi.cu), in one run on one machine of 2 or 4 GPUs. Prints one line per
# measurement (BENCH ... for stencilc, 'ranks ...' for the peer); bench/RESULTS.md keeps the
# figures with the date and the GPU.
#   bench/dist_scaling.sh [BUILD_DIR] [PEERS_DIR] [STEPS]
# SECTIONS="weak split strong deep depth periodic reflect wave" (the default: all) picks the parts
# to run; reflect and wave run on one GPU too (one rank, the distributed API against NAME_run).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
peers=${2:-../shared/peers}
steps=${3:-100}
export NCCL_NVLS_ENABLE=0
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$ngpu" -ge 1 ] || { echo "no GPU"; exit 77; }
mpi_inc=${MPI_INC:-/usr/lib/x86_64-linux-gnu/openmpi/include}
mpi_lib=${MPI_LIB:-/usr/lib/x86_64-linux-gnu/openmpi/lib}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpi() { timeout 300 mpirun --allow-run-as-root -np "$1" -x NCCL_NVLS_ENABLE=0 -x STC_DIST_OVERLAP "${@:2}" 2>&1 | grep -E "^BENCH|^ranks|dist_|rror"; }
export STC_DIST_OVERLAP=1
sections=${SECTIONS:-weak split strong deep depth periodic reflect wave}
want() { [[ " $sections " == *" $1 "* ]]; }

# build ID FILE STENCIL CONFIG: the harness over the emitted code of one configuration
build() {
  mkdir -p "$work/$1"
  "$build/driver/stencilc" "$2" --stencil "$3" --distributed --config "$4" -o "$work/$1/$3.cu" || return 1
  ( cd "$work/$1" && nvcc -O3 -arch=sm_90 -std=c++17 -DSTC_P="$3" -DSTC_U="${3^^}" -DSTC_HEADER="$3.h" -DOMPI_SKIP_MPICXX=1 \
      -I. -I"$mpi_inc" -o run "$OLDPWD/tests/dist/dist_check.cu" "$3.cu" -L"$mpi_lib" -lmpi -lnccl )
}
build s3 examples/bench/star3d1r.st star3d1r "tb=32x8x1,cmem=on,uf=8x1x1,cm=8x1x4,hcol=on,maxreg=128" &
build b3 examples/bench/box3d1r.st box3d1r "tb=256x1x1,stream=z,sb=128,bm=1x8x1,retime=on,async=on" &
build b3t examples/bench/box3d1r.st box3d1r "tb=32x16x1,stream=z,sb=128,retime=on,tblock=2,bm=1x2x1" &
build s2 examples/bench/star2d1r.st star2d1r "tb=512x1x1,smem=on,stream=y,sb=8,uf=1x8x1,maxreg=32" &
build s2t examples/bench/star2d1r.st star2d1r "tb=256x1x1,stream=y,sb=256,tblock=12,maxreg=128" &
build s3t examples/bench/star3d1r.st star3d1r "tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1,select=on" &
build s2tc2 examples/bench/star2d1r.st star2d1r "tb=128x1x1,stream=y,sb=256,bm=2x1x1,tblock=16,select=on,maxreg=128" &
rd=examples/reaction_diffusion.st
build gs $rd gray_scott "tb=256x1x1,smem=on,stream=y,sb=8,uf=1x8x1,regq=2" &
build gst $rd gray_scott "tb=256x1x1,stream=y,sb=256,tblock=12,maxreg=128" &
build p3 tests/dist/periodic3d.st periodic3d "tb=32x8x1,cmem=on,uf=8x1x1,cm=8x1x4,maxreg=128" &
build p3t tests/dist/periodic3d.st periodic3d "tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1,select=on" &
build p3tw tests/dist/periodic3d.st periodic3d "tb=64x16x1,stream=z,sb=64,tblock=3,bm=1x4x1,select=on,hwrap=on" &
build gstw $rd gray_scott "tb=256x1x1,stream=y,sb=256,tblock=12,maxreg=128,hwrap=on" &
# a symmetric 5-point star under a fixed, clamp and mirror boundary: the fused steps of clamp and
# mirror reflect the grid (one GPU) and its global faces (a rank's part)
for bc in fixed clamp mirror; do
  want reflect || break
  cat >"$work/sym_$bc.st" <<EOF
stencil sym_$bc {
  grid 2d;
  type float;
  state u boundary $bc;
  u = 0.25 * u + 0.1875 * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1]);
}
EOF
  build "sym_$bc" "$work/sym_$bc.st" "sym_$bc" "tb=128x1x1,stream=y,sb=256,bm=2x1x1,tblock=16,select=on,maxreg=128" &
  [ $bc = fixed ] || build "sym_${bc}w" "$work/sym_$bc.st" "sym_$bc" "tb=128x1x1,stream=y,sb=256,bm=2x1x1,tblock=16,select=on,maxreg=128,hwrap=on" &
done
want wave && build wv examples/wave2d.st wave2d "tb=128x1x1,stream=y,sb=128,tblock=16,maxreg=128" &
want reflect && build gau examples/image.st gaussian3x3 "tb=128x1x1,stream=y,sb=256,retime=on,tblock=6" &
nvcc -O3 -arch=sm_90 -o "$work/peer" "$peers/mgpu_jacobi.cu" -I"$mpi_inc" -L"$mpi_lib" -lmpi -lnccl &
wait

want weak && echo "== weak scaling, $steps steps, float (stencilc: tuned one-step kernels; depth 1)"
for np in 1 2 4; do
  want weak || continue
  [ "$np" -le "$ngpu" ] || continue
  mpi $np "$work/s3/run" bench 512 512 $((512 * np)) 1 1 $np "$steps" 1
  STC_DIST_OVERLAP=0 mpi $np "$work/s3/run" bench 512 512 $((512 * np)) 1 1 $np "$steps" 1
  mpi $np "$work/b3/run" bench 512 512 $((512 * np)) 1 1 $np "$steps" 1
  STC_DIST_OVERLAP=0 mpi $np "$work/b3/run" bench 512 512 $((512 * np)) 1 1 $np "$steps" 1
  mpi $np "$work/s2/run" bench 16384 $((16384 * np)) 1 1 $np 1 "$steps" 1
  STC_DIST_OVERLAP=0 mpi $np "$work/s2/run" bench 16384 $((16384 * np)) 1 1 $np 1 "$steps" 1
  mpi $np "$work/peer" 512 512 512 "$steps" naive
  mpi $np "$work/peer" 512 512 512 "$steps" overlap
done
if [ "$ngpu" -ge 4 ] && want split; then
  echo "== pencils and blocks (4 GPUs), weak: overlap (the blocks way), then without"
  if ! want weak; then # the one-GPU figures the efficiencies divide by, in this run
    mpi 1 "$work/s3/run" bench 512 512 512 1 1 1 "$steps" 1
    mpi 1 "$work/b3/run" bench 512 512 512 1 1 1 "$steps" 1
  fi
  for ov in 1 0; do
    STC_DIST_OVERLAP=$ov mpi 4 "$work/s3/run" bench 512 1024 1024 1 2 2 "$steps" 1
    STC_DIST_OVERLAP=$ov mpi 4 "$work/s3/run" bench 1024 1024 512 2 2 1 "$steps" 1
    STC_DIST_OVERLAP=$ov mpi 4 "$work/b3/run" bench 512 1024 1024 1 2 2 "$steps" 1
  done
fi
if [ "$ngpu" -ge 2 ] && want strong; then
  np=$((ngpu >= 4 ? 4 : 2))
  echo "== strong scaling, star3d1r 1024^3 ($np GPUs)"
  mpi 1 "$work/s3/run" bench 1024 1024 1024 1 1 1 "$steps" 1
  mpi $np "$work/s3/run" bench 1024 1024 1024 1 1 $np "$steps" 1
  STC_DIST_OVERLAP=0 mpi $np "$work/s3/run" bench 1024 1024 1024 1 1 $np "$steps" 1
  mpi $np "$work/peer" 1024 1024 $((1024 / np)) "$steps" naive
  mpi $np "$work/peer" 1024 1024 $((1024 / np)) "$steps" overlap
  echo "== strong scaling, star3d1r 1024^3, the tuned multi-step kernel (tblock=3)"
  mpi 1 "$work/s3t/run" bench 1024 1024 1024 1 1 1 300 3
  STC_DIST_OVERLAP=0 mpi $np "$work/s3t/run" bench 1024 1024 1024 1 1 $np 300 3
  STC_DIST_OVERLAP=0 mpi $np "$work/s3t/run" bench 1024 1024 1024 1 1 $np 300 6
fi
if [ "$ngpu" -ge 2 ] && want deep; then
  np=$((ngpu >= 4 ? 4 : 2))
  echo "== deep halos ($np GPUs): multi-step kernels, depth = the fused steps"
  mpi 1 "$work/s2t/run" bench 16384 16384 1 1 1 1 1200 12
  STC_DIST_OVERLAP=0 mpi $np "$work/s2t/run" bench 16384 $((16384 * np)) 1 1 $np 1 1200 12
  STC_DIST_OVERLAP=0 mpi $np "$work/s2t/run" bench 16384 $((16384 * np)) 1 1 $np 1 1200 24
  mpi $np "$work/s2t/run" bench 16384 $((16384 * np)) 1 1 $np 1 1200 12
  mpi 1 "$work/s2tc2/run" bench 16384 16384 1 1 1 1 1600 16 # two columns a thread
  STC_DIST_OVERLAP=0 mpi $np "$work/s2tc2/run" bench 16384 $((16384 * np)) 1 1 $np 1 1600 16
  STC_DIST_OVERLAP=0 mpi $np "$work/s2tc2/run" bench 16384 $((16384 * np)) 1 1 $np 1 1600 32
  mpi 1 "$work/s3t/run" bench 512 512 512 1 1 1 300 3
  for depth in 3 6 9; do # 9: what codegen/dist_model.c chose on an H100
    STC_DIST_OVERLAP=0 mpi $np "$work/s3t/run" bench 512 512 $((512 * np)) 1 1 $np 300 $depth
  done
  mpi $np "$work/s3t/run" bench 512 512 $((512 * np)) 1 1 $np 300 3 # overlapped fused launches
  mpi 1 "$work/b3t/run" bench 512 512 512 1 1 1 300 2
  for depth in 2 4 6; do
    STC_DIST_OVERLAP=0 mpi $np "$work/b3t/run" bench 512 512 $((512 * np)) 1 1 $np 300 $depth
  done
  mpi $np "$work/b3t/run" bench 512 512 $((512 * np)) 1 1 $np 300 2
  mpi $np "$work/peer" 512 512 512 300 overlap
fi
if [ "$ngpu" -ge 2 ] && want depth; then
  np=$((ngpu >= 4 ? 4 : 2))
  echo "== exchange depth with one-step kernels ($np GPUs; the 1-GPU figure first)"
  mpi 1 "$work/s3/run" bench 512 512 512 1 1 1 "$steps" 1
  mpi 1 "$work/b3/run" bench 512 512 512 1 1 1 "$steps" 1
  for depth in 1 2 3 4; do
    STC_DIST_OVERLAP=0 mpi $np "$work/s3/run" bench 512 512 $((512 * np)) 1 1 $np "$steps" $depth
    STC_DIST_OVERLAP=0 mpi $np "$work/b3/run" bench 512 512 $((512 * np)) 1 1 $np "$steps" $depth
  done
  mpi $np "$work/s3/run" bench 512 512 $((512 * np)) 1 1 $np "$steps" 1
  mpi $np "$work/b3/run" bench 512 512 $((512 * np)) 1 1 $np "$steps" 1
  mpi 1 "$work/s3/run" bench 1024 1024 1024 1 1 1 "$steps" 1
  for depth in 1 2 4; do
    STC_DIST_OVERLAP=0 mpi $np "$work/s3/run" bench 1024 1024 1024 1 1 $np "$steps" $depth
  done
  mpi $np "$work/s3/run" bench 1024 1024 1024 1 1 $np "$steps" 1
  mpi $np "$work/peer" 1024 1024 $((1024 / np)) "$steps" overlap
fi
if [ "$ngpu" -ge 2 ] && want periodic; then
  np=$((ngpu >= 4 ? 4 : 2))
  echo "== periodic faces (gray_scott, two fields, 8192^2 a GPU, $np GPUs): one step, then fused (tblock=12)"
  mpi 1 "$work/gs/run" bench 8192 8192 1 1 1 1 1200 1
  mpi $np "$work/gs/run" bench 8192 $((8192 * np)) 1 1 $np 1 1200 1
  mpi 1 "$work/gst/run" bench 8192 8192 1 1 1 1 1200 12
  for depth in 12 24; do
    STC_DIST_OVERLAP=0 mpi $np "$work/gst/run" bench 8192 $((8192 * np)) 1 1 $np 1 1200 $depth
  done
  mpi $np "$work/gst/run" bench 8192 $((8192 * np)) 1 1 $np 1 1200 12
  STC_DIST_OVERLAP=0 mpi $np "$work/gst/run" bench 16384 $((4096 * np)) 1 2 $((np / 2)) 1 1200 12
  echo "== periodic faces in 3D (tests/dist/periodic3d.st, 512^3 a GPU, $np GPUs): one step, then fused (tblock=3)"
  mpi 1 "$work/p3/run" bench 512 512 512 1 1 1 300 1
  mpi $np "$work/p3/run" bench 512 512 $((512 * np)) 1 1 $np 300 1
  mpi 1 "$work/p3t/run" bench 512 512 512 1 1 1 300 3
  for depth in 3 6; do
    STC_DIST_OVERLAP=0 mpi $np "$work/p3t/run" bench 512 512 $((512 * np)) 1 1 $np 300 $depth
  done
  echo "== the same, hwrap=on: the part's fused steps wrap the extended grid (gray_scott: 1 GPU, then $np)"
  mpi 1 "$work/p3tw/run" bench 512 512 512 1 1 1 300 3
  for depth in 3 6; do
    STC_DIST_OVERLAP=0 mpi $np "$work/p3tw/run" bench 512 512 $((512 * np)) 1 1 $np 300 $depth
  done
  STC_DIST_OVERLAP=0 mpi $np "$work/p3tw/run" bench 512 512 $((512 * np)) 1 2 $((np / 2)) 300 6
  STC_DIST_OVERLAP=0 mpi $np "$work/p3t/run" bench 512 512 $((512 * np)) 1 2 $((np / 2)) 300 6
  mpi 1 "$work/gstw/run" bench 8192 8192 1 1 1 1 1200 12
  STC_DIST_OVERLAP=0 mpi $np "$work/gstw/run" bench 8192 $((8192 * np)) 1 1 $np 1 1200 24
fi
if want reflect; then
  np=$((ngpu >= 4 ? 4 : ngpu >= 2 ? 2 : 1))
  echo "== reflected faces (a symmetric 5-point star, 8192^2 a GPU, tblock=16, two columns; gaussian3x3"
  echo "   in double, clamp, the retimed fused kernel, tblock=6): one rank, then $np"
  for id in sym_fixed sym_clamp sym_mirror sym_clampw sym_mirrorw gau; do
    k=16; [ $id = gau ] && k=6
    mpi 1 "$work/$id/run" bench 8192 8192 1 1 1 1 1008 $k
    [ "$np" -gt 1 ] && mpi $np "$work/$id/run" bench 8192 $((8192 * np)) 1 1 $np 1 1008 $k
  done
fi
if want wave; then
  np=$((ngpu >= 4 ? 4 : ngpu >= 2 ? 2 : 1))
  echo "== three time levels (wave2d, mirror faces reflected, 8192^2 a GPU, tblock=16): one rank, then $np"
  mpi 1 "$work/wv/run" bench 8192 8192 1 1 1 1 1008 16
  if [ "$np" -gt 1 ]; then
    STC_DIST_OVERLAP=0 mpi $np "$work/wv/run" bench 8192 $((8192 * np)) 1 1 $np 1 1008 16
    STC_DIST_OVERLAP=0 mpi $np "$work/wv/run" bench 8192 $((8192 * np)) 1 1 $np 1 1008 32
    STC_DIST_OVERLAP=0 mpi $np "$work/wv/run" bench $((8192 * np)) 8192 1 $np 1 1 1008 16
  fi
fi
