#!/usr/bin/env bash
# The distributed API (stencilc --distributed) of the programs the GPU tests run, with the
# configurations they use, compiled by nvcc with warnings as errors against a test-only
# declaration of the NCCL calls (tests/dist/nccl_stub: CI has no NCCL). One translation unit
# includes them all (their prefixes differ). Exits 77 without nvcc.
#   test_compile.sh STENCILC SOURCE_ROOT
set -euo pipefail
stencilc=$1 root=$2
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc

# --procs: tuning and bench measure one rank's part, or say why the split cannot be
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
part=$("$stencilc" "$root/examples/bench/star3d1r.st" --distributed --procs 1x1x4 --depth 2 --grid 512x512x2048 \
  --config tb=32x4x2 -o "$dir/part.cu" 2>&1 | grep "one rank's part")
[ "$part" = "stencilc: one rank's part of 512x512x2048 over 1x1x4 (depth 2): 512x512x514" ] \
  || { echo "FAIL: --procs part: '$part'"; exit 1; }
if "$stencilc" "$root/examples/bench/star3d1r.st" --distributed --procs 1x1x4 --depth 8 --grid 37x33x29 \
     --config tb=32x4x2 -o "$dir/thin.cu" 2>"$dir/procs.err"; then echo "FAIL: a thin part accepted"; exit 1; fi
grep -q "thinner than the 8 layers" "$dir/procs.err" || { echo "FAIL: no reason for the thin part"; exit 1; }
rc=0; "$stencilc" "$root/examples/heat.st" --procs 1x1x2 -o "$dir/x.cu" 2>/dev/null || rc=$?; [ $rc -eq 2 ] \
  || { echo "FAIL: --procs without --distributed is not a usage error"; exit 1; }
echo "--procs: the part and its refusals"

# --procs without --depth: the exchange-cost model chooses the depth and overlap, says so on
# stderr and writes them in the header (star3d1r 512^3 slabs: overlap at depth 1, which hides the
# exchange on NVLink and between nodes; pencils too, the blocks way)
choose() { # OUT PROCS GRID LINK-ARGS...: the stderr line of the choice
  local out=$1 procs=$2 grid=$3; shift 3
  "$stencilc" "$root/examples/bench/star3d1r.st" --distributed --procs "$procs" --grid "$grid" \
    --config tb=32x4x2 -o "$dir/$out.cu" "$@" 2>&1 | grep "exchange:"
}
line=$(choose nv 1x1x4 512x512x2048)
case $line in "stencilc: exchange: chose depth 1 with overlap over 1x1x4 on nvlink: "*"; against depth 1 93.2%"*) ;;
  *) echo "FAIL: the choice on NVLink: '$line'"; exit 1 ;; esac
grep -q "^#define STAR3D1R_DIST_DEPTH 1$" "$dir/nv.h" && grep -q "^#define STAR3D1R_DIST_OVERLAP 1$" "$dir/nv.h" \
  && grep -q "^ \*   depth 1 with overlap .*<- chosen$" "$dir/nv.h" || { echo "FAIL: the header's constants (NVLink)"; exit 1; }
# the overlapped step: the sent slabs and the exchange on the exchange's stream, of the highest
# priority, the interior on the caller's beside them (docs/distributed.md, "Overlap")
grep -q "cudaStreamCreateWithPriority(&d->xstream_, cudaStreamNonBlocking, high)" "$dir/nv.cu" \
  && grep -q "err = star3d1r_dsent_(b, p, n, xs_, dd);" "$dir/nv.cu" && grep -q "err = star3d1r_drest_(b, p, n, stream, dd);" "$dir/nv.cu" \
  && grep -q "star3d1r_drange_(b, p, n, stream, hi, end - hi)" "$dir/nv.cu" \
  && grep -q "star3d1r_drange_(b, p, n, stream, lo, hi - lo)" "$dir/nv.cu" && grep -q "lo = t, hi = len - t, end = len;" "$dir/nv.cu" \
  || { echo "FAIL: the overlapped step's streams"; exit 1; }
# pencils and blocks overlap the blocks way: per exchanged axis, outermost first, its edges
grep -q "err = star3d1r_dedges_(b, p, n, stream, dd, a, lo, hi, end);" "$dir/nv.cu" \
  && grep -q "const int in = o > a && star3d1r_dist_exchanges_(dd, o);" "$dir/nv.cu" \
  && grep -q "(blockIdx.y + stc_boffy_)" "$dir/nv.cu" || { echo "FAIL: the blocks way"; exit 1; }
# pencils on NVLink: the split in five launches (22 us) loses to depth 4 by a little (4 H200s
# measured the overlap at 93.5%); between nodes at 50 GB/s it wins
line=$(choose pencils 1x2x2 512x1024x1024)
case $line in "stencilc: exchange: chose depth 4 over 1x2x2 on nvlink: "*"; against depth 1 86.3%"*"depth 1 with overlap 93.4%"*) ;;
  *) echo "FAIL: the choice for pencils: '$line'"; exit 1 ;; esac
line=$(choose pencils 1x2x2 512x1024x1024 --link 50)
case $line in "stencilc: exchange: chose depth 1 with overlap over 1x2x2 on 50 GB/s: "*) ;;
  *) echo "FAIL: the choice for pencils at 50 GB/s: '$line'"; exit 1 ;; esac
grep -q "^#define STAR3D1R_DIST_DEPTH 1$" "$dir/pencils.h" && grep -q "^#define STAR3D1R_DIST_OVERLAP 1$" "$dir/pencils.h" \
  || { echo "FAIL: the header's constants (pencils)"; exit 1; }
line=$(choose ib 1x1x4 512x512x2048 --link 25)
case $line in "stencilc: exchange: chose depth 1 with overlap over 1x1x4 on 25 GB/s: "*) ;;
  *) echo "FAIL: the choice at 25 GB/s: '$line'"; exit 1 ;; esac
grep -q "^#define STAR3D1R_DIST_OVERLAP 1$" "$dir/ib.h" || { echo "FAIL: no overlap at 25 GB/s"; exit 1; }
line=$(choose given 1x1x4 512x512x2048 --depth 2)
case $line in "stencilc: exchange: given depth 2 over 1x1x4 on nvlink: "*) ;;
  *) echo "FAIL: the given depth: '$line'"; exit 1 ;; esac
grep -q "^#define STAR3D1R_DIST_DEPTH 2$" "$dir/given.h" || { echo "FAIL: the given depth's constant"; exit 1; }
rc=0; "$stencilc" "$root/examples/heat.st" --distributed --link 25 -o "$dir/x.cu" 2>/dev/null || rc=$?; [ $rc -eq 2 ] \
  || { echo "FAIL: --link without --procs is not a usage error"; exit 1; }
rc=0; "$stencilc" "$root/examples/heat.st" --distributed --procs 1x1x2 --link fast -o "$dir/x.cu" 2>/dev/null \
  || rc=$?; [ $rc -eq 2 ] || { echo "FAIL: --link fast accepted"; exit 1; }
rc=0; "$stencilc" bench "$root/examples/heat.st" --distributed --procs 1x1x2 --link 25 2>/dev/null || rc=$?
[ $rc -eq 2 ] || { echo "FAIL: bench took --link"; exit 1; }
echo "--procs: the exchange depth and overlap chosen"

# the tuning database keeps a distributed tuning under its depth, or says the depth is chosen after
key() { # DB-DIR [--depth K]: the generator line of the tuning stored there
  "$stencilc" "$root/examples/bench/star3d1r.st" --distributed --procs 1x1x2 --steps 1 --autotune --budget 1s \
    --replay "$root/tests/data/replay_star3d1r_h100.tsv" --tune-db "$dir/$1" -q -o "$dir/$1.cu" "${@:2}" 2>/dev/null
  grep -h "^generator=" "$dir/$1"/*.best
}
case $(key db0) in *"; distributed 1x1x2 depth chosen") ;; *) echo "FAIL: key without --depth"; exit 1 ;; esac
case $(key db2 --depth 2) in *"; distributed 1x1x2 depth 2") ;; *) echo "FAIL: key with --depth 2"; exit 1 ;; esac
echo "--procs: the tuning key names the depth"

# fused steps of a periodic program: a rank's part runs the kernel of the same program with fixed
# faces (its periodic faces hold exchanged layers, Plan.held), NAME_run the wrapping one; fused
# clamp or mirror faces are refused with the reason
gst="tb=32x1x1,stream=y,sb=16,tblock=4"
"$stencilc" "$root/examples/reaction_diffusion.st" --stencil gray_scott --distributed --config "$gst" -o "$dir/gst.cu"
sed 's/boundary periodic/boundary fixed/' "$root/examples/reaction_diffusion.st" >"$dir/gsf.st"
"$stencilc" "$dir/gsf.st" --stencil gray_scott --config "$gst" -o "$dir/gsf.cu"
kernel() { awk -v k="$2(" 'index($0, k) == 1 {p = 1} p {print} p && /^}/ {exit}' "$1"; }
[ -n "$(kernel "$dir/gsf.cu" gray_scott_step)" ] \
  && [ "$(kernel "$dir/gst.cu" gray_scott_step_held | sed 's/_step_held(/_step(/')" = "$(kernel "$dir/gsf.cu" gray_scott_step)" ] \
  || { echo "FAIL: the part's fused kernel is not the fixed program's"; exit 1; }
grep -q "^    gray_scott_step<<<" "$dir/gst.cu" && grep -q "^    gray_scott_step_held<<<" "$dir/gst.cu" \
  && [ "$(grep -c "^    gray_scott_step_held<<<" "$dir/gst.cu")" = 1 ] \
  && grep -q "gray_scott_step_held_off_<<<" "$dir/gst.cu" || { echo "FAIL: the launches of the held kernel"; exit 1; }
# clamp and mirror: where the step is symmetric along every axis (gaussian3x3) the part's fused
# kernel is the fixed program's too, and the global faces are reflected by a copy (clamp: about
# the edge's middle); star2d1r's asymmetric weights under clamp are refused, with the reason
gau="tb=64x1,stream=y,sb=64,tblock=4"
"$stencilc" "$root/examples/image.st" --stencil gaussian3x3 --distributed --config "$gau" -o "$dir/gau.cu"
sed 's/boundary clamp/boundary fixed/' "$root/examples/image.st" >"$dir/gauf.st"
"$stencilc" "$dir/gauf.st" --stencil gaussian3x3 --config "$gau" -o "$dir/gauf.cu"
[ -n "$(kernel "$dir/gauf.cu" gaussian3x3_step)" ] \
  && [ "$(kernel "$dir/gau.cu" gaussian3x3_step_held | sed 's/_step_held(/_step(/')" = "$(kernel "$dir/gauf.cu" gaussian3x3_step)" ] \
  && grep -q "^#define gaussian3x3_DIST_REFLECT_ 2$" "$dir/gau.cu" \
  && grep -q "err = gaussian3x3_dist_reflect_all_(dd, xs, nall, stream);" "$dir/gau.cu" \
  && grep -q "^    err = gaussian3x3_dreflect_(b, dd, stream);" "$dir/gau.cu" \
  || { echo "FAIL: the reflecting part's fused kernel, or its reflection"; exit 1; }
sed 's/boundary fixed/boundary clamp/' "$root/examples/bench/star2d1r.st" >"$dir/s2c.st"
if "$stencilc" "$dir/s2c.st" --distributed --config "tb=64x1,stream=y,sb=64,tblock=4" \
     -o "$dir/clamp.cu" 2>"$dir/clamp.err"; then echo "FAIL: fused asymmetric clamp faces accepted in a distributed run"; exit 1; fi
grep -q "boundary clamp: in a distributed run .* clamp and mirror where the step is symmetric" "$dir/clamp.err" \
  || { echo "FAIL: no reason for fused clamp faces: $(cat "$dir/clamp.err")"; exit 1; }
echo "--distributed: fused periodic steps hold their faces, symmetric clamp reflects, the rest refused"
# hwrap=on: the part's held kernels wrap its interior, which holds every layer received: a periodic
# program's part launches its own fused kernel (no _step_held), a reflecting one's the periodic
# program's kernel; the ring of received layers is empty
"$stencilc" "$root/examples/reaction_diffusion.st" --stencil gray_scott --distributed --config "$gst,hwrap=on" \
  -o "$dir/gsw.cu"
! grep -q "gray_scott_step_held" "$dir/gsw.cu" && grep -q "^    gray_scott_step<<<" "$dir/gsw.cu" \
  && grep -q "gray_scott_DIST_RING_\[3\] = {0, 0, 0};" "$dir/gsw.cu" \
  && grep -q "gray_scott_DIST_RING_\[3\] = {1, 1, 0};" "$dir/gst.cu" || { echo "FAIL: hwrap=on's periodic part"; exit 1; }
"$stencilc" "$root/examples/image.st" --stencil gaussian3x3 --distributed --config "$gau,hwrap=on" -o "$dir/gauw.cu"
sed 's/boundary clamp/boundary periodic/' "$root/examples/image.st" >"$dir/gaup.st"
"$stencilc" "$dir/gaup.st" --stencil gaussian3x3 --config "$gau" -o "$dir/gaup.cu"
[ -n "$(kernel "$dir/gaup.cu" gaussian3x3_step)" ] \
  && [ "$(kernel "$dir/gauw.cu" gaussian3x3_step_held | sed 's/_step_held(/_step(/')" = "$(kernel "$dir/gaup.cu" gaussian3x3_step)" ] \
  || { echo "FAIL: hwrap=on's reflecting part does not run the periodic program's kernel"; exit 1; }
echo "--distributed: hwrap=on's parts wrap their interior"

[ -x "$nvcc" ] || { echo "no nvcc: skipped"; exit 77; }
n=0
emit() { # FILE STENCIL CONFIG
  local out="$dir/p$n.cu"
  local args=("$root/$1" --stencil "$2" --distributed -o "$out")
  [ -n "$3" ] && args+=(--config "$3")
  "$stencilc" "${args[@]}"
  # each program under its own prefix, so that one file can hold them all
  sed -i "s/\b$2_/p${n}_/g; s/\b$(echo "$2" | tr a-z A-Z)_/P${n}_/g; s/STENCILC_PAIR_/STENCILC_PAIR_P${n}_/g" \
    "$out" "${out%.cu}.h"
  grep -q "p${n}_dist_run" "$out" || { echo "FAIL: no p${n}_dist_run in $1"; exit 1; }
  grep -q "#include <nccl.h>" "${out%.cu}.h" || { echo "FAIL: the header does not include nccl.h"; exit 1; }
  echo "#include \"p$n.cu\"" >>"$dir/all.cu"
  n=$((n + 1))
}
emit examples/heat.st heat ""
emit examples/heat.st heat "tb=32x32x1,stream=z,sb=128,tblock=3"
emit examples/bench/star3d1r.st star3d1r "tb=32x8x1,cmem=on,uf=8x1x1,cm=8x1x4,maxreg=128,hcol=on"
emit examples/bench/box3d1r.st box3d1r "tb=32x16x1,stream=z,sb=128,tblock=2,retime=on"
emit examples/bench/box3d1r.st box3d1r "tb=256x1x1,stream=z,sb=64,bm=1x4x1,retime=on,prefetch=on"
emit examples/wave2d.st wave2d ""
emit examples/reaction_diffusion.st gray_scott ""
emit examples/flux_divergence.st flux_divergence ""
emit tests/dist/allbc.st allbc ""
emit tests/dist/faces.st faces ""
emit tests/dist/faces.st faces "tb=64x1,stream=y,sb=64"
emit tests/dist/faces.st facesmix ""
emit examples/heat1d.st heat1d ""
emit examples/advdiff_source.st advdiff_source ""
emit examples/advdiff_source.st heat_source3d "tb=32x32x1,stream=z,sb=128,tblock=3"
# reductions (NAME_dist_reduce): reads at offsets, an older level, a coef, periodic faces,
# global coordinates
emit examples/wave3d_energy.st wave3d_energy ""
emit examples/wave3d_energy.st wave3d_energy "tb=32x4x1,stream=z,sb=64"
emit examples/jacobi_residual.st jacobi ""
emit tests/dist/dred.st dred ""
grep -q "p$((n - 1))_dist_run_reduce" "$dir/p$((n - 1)).h" || { echo "FAIL: no dist_run_reduce in dred.st"; exit 1; }
emit examples/reaction_diffusion.st gray_scott "$gst"
# fused steps that reflect clamp and mirror faces (with a coef; the retimed kernel)
emit tests/programs/reflect.st mirrorsym2d "tb=32x1x1,stream=y,sb=16,tblock=4,bm=2x1x1"
emit examples/image.st gaussian3x3 "tb=32x1x1,stream=y,sb=16,retime=on,tblock=3"
# held steps that wrap the part's interior (hwrap=on): periodic, reflected mirror
emit examples/reaction_diffusion.st gray_scott "$gst,hwrap=on"
emit tests/programs/reflect.st mirrorsym2d "tb=32x1x1,stream=y,sb=16,tblock=4,bm=2x1x1,hwrap=on"
# fused steps of three time levels (a fourth buffer in the workspace, handed back at the end)
emit examples/wave2d.st wave2d "tb=32x1x1,stream=y,sb=16,tblock=4"
grep -q "p$((n - 1))_unring_(b.u, " "$dir/p$((n - 1)).cu" && grep -q "p$((n - 1))_step_held<<<" "$dir/p$((n - 1)).cu" \
  || { echo "FAIL: three levels fused in a distributed run"; exit 1; }
# the fused kernels overlap by ranges of their blocks along the outermost axis (a copy of the
# kernel with offset block numbers); the one-step ones by planes, two-stage steps not at all
grep -q "p1_dedges_(b, p, n, stream, dd, a, lo, hi, end)" "$dir/p1.cu" && grep -q "(blockIdx.z + stc_boffz_)" "$dir/p1.cu" \
  && grep -q "#define p3_DIST_OVERLAP_ 2$" "$dir/p3.cu" && grep -q "#define p2_DIST_OVERLAP_ 1$" "$dir/p2.cu" \
  && grep -q "#define p7_DIST_OVERLAP_ 0$" "$dir/p7.cu" || { echo "FAIL: the overlap kinds"; exit 1; }
"$nvcc" -arch=sm_90 -I"$root/tests/dist/nccl_stub" -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings \
  -c "$dir/all.cu" -o "$dir/all.o"
echo "compiled the distributed API of $n programs"
# depth 0 (the recommended depth and overlap), as a caller writes it
cat >"$dir/depth0.cu" <<EOF
#include "ib.cu"
static_assert(STAR3D1R_DIST_DEPTH == 1 && STAR3D1R_DIST_OVERLAP == 1, "the recommendation");
int start(star3d1r_dist *d, ncclComm_t comm)
{
    const int global[3] = {512, 512, 2048}, procs[3] = {1, 1, 4}, coords[3] = {0, 0, 0};
    return star3d1r_dist_init(d, global, procs, coords, 0, comm, 0);
}
EOF
"$nvcc" -arch=sm_90 -I"$dir" -I"$root/tests/dist/nccl_stub" -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings \
  -c "$dir/depth0.cu" -o "$dir/depth0.o"
echo "compiled a caller of depth 0"
# the GPU tests' harness too, where MPI's headers are installed (libopenmpi-dev): a program
# without reductions and one with them (the harness checks NAME_dist_reduce then)
mpi_inc=${MPI_INC:-/usr/lib/x86_64-linux-gnu/openmpi/include}
if [ -f "$mpi_inc/mpi.h" ]; then
  harness() { # FILE STENCIL
    "$stencilc" "$root/$1" --stencil "$2" --distributed -o "$dir/$2.cu"
    local red=()
    grep -q "_dist_reduce(" "$dir/$2.h" && red=(-DSTC_REDUCE)
    "$nvcc" -arch=sm_90 -std=c++17 -DSTC_P="$2" -DSTC_U="${2^^}" -DSTC_HEADER="$2.h" "${red[@]}" -DOMPI_SKIP_MPICXX=1 \
      -I"$dir" -I"$root/tests/dist/nccl_stub" -I"$mpi_inc" -Xcompiler -Wall,-Wextra,-Werror \
      -c "$root/tests/dist/dist_check.cu" -o "$dir/check_$2.o"
  }
  harness examples/wave2d.st wave2d
  harness examples/wave3d_energy.st wave3d_energy
  harness tests/dist/dred.st dred
  # and the NCCL test double that lets it run its ranks on one GPU
  "$nvcc" -arch=sm_90 -std=c++17 -DOMPI_SKIP_MPICXX=1 -I"$root/tests/dist/nccl_stub" -I"$mpi_inc" \
    -Xcompiler -Wall,-Wextra,-Werror -c "$root/tests/dist/nccl_mpi.cc" -o "$dir/nccl_mpi.o"
  echo "compiled the harness of tests/dist/run_gpu.sh and tests/dist/nccl_mpi.cc"
fi
