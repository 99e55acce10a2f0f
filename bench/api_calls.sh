#!/bin/bash
# What a call of NAME_run costs beside its steps: the emitted code of each program built with
# nvcc and timed through NAME_run at 1, 4 and 100 steps a call (bench/time_run.sh's harness), the
# kernel alone beside it (`stencilc bench --steps 100`, which times launch groups of the steps).
# With OLD_STENCILC, that binary's emitted code too, in the same run. Needs a GPU;
# docs/performance.md ("A call's fixed cost") has the figures.
#   bench/api_calls.sh NEW_STENCILC [OLD_STENCILC]
set -eu
cd "$(dirname "$0")/.."
new=$1 old=${2:-}
. bench/time_run.sh
time_run_begin
progs=("star3d1r tb=32x8x1,cmem=on,uf=8x1x1,cm=8x1x4,hcol=on,maxreg=128"
       "box3d1r tb=128x2x1,stream=z,sb=64,bm=1x8x1,retime=on,prefetch=on"
       "star2d1r tb=256x1x1,stream=y,sb=256,tblock=12")
versions="new${old:+ old}"
for v in $versions; do
  eval "bin=\$$v"
  mkdir -p "$work/$v"
  for pc in "${progs[@]}"; do
    p=${pc%% *} c=${pc#* }
    "$bin" "examples/bench/$p.st" --config "$c" -o "$work/$v/$p.cu"
    time_run_build "$work/$v" "$p" "$v-$p" "$work/time_run.cu" &
  done
done
wait
for pc in "${progs[@]}"; do
  p=${pc%% *} c=${pc#* }
  size=$(sed -n 's/^ *size \(.*\);/\1/p' "examples/bench/$p.st" | tr -d ' ' | tr ',' ' ')
  set -- $size 1 1
  echo "# $p ($c), kernel alone: $("$new" bench "examples/bench/$p.st" --steps 100 --config "$c" 2>&1 | tail -1)"
  for steps in 1 4 100; do
    for v in $versions; do "$work/$v/time_$p" "$1" "$2" "$3" "$steps" 7; done
  done
done
