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
. bench/time_run.sh
time_run_begin
for v in old new; do
  eval "bin=\$$v"
  mkdir -p "$work/$v"
  for bc in fixed clamp mirror; do
    sed "s/boundary fixed/boundary $bc/; s/stencil star2d1r/stencil star_$bc/" examples/bench/star2d1r.st > "$work/star_$bc.st"
    "$bin" "$work/star_$bc.st" --config "$cfg" -o "$work/$v/star_$bc.cu"
    time_run_build "$work/$v" "star_$bc" "$v-$bc" "$work/time_run.cu" &
  done
done
wait
for round in 1 2; do
  for v in old new; do
    for bc in fixed clamp mirror; do "$work/$v/time_star_$bc" "$nx" "$ny" 1 "$steps" 5; done
  done
done
