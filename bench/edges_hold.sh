#!/bin/bash
# Issue 33's "within 10% of the fixed boundary": a symmetric 5-point star under fixed, clamp,
# mirror and periodic boundaries, one stencilc binary, one fused configuration with and without
# hold=on (docs/config.md), each program's emitted code built with nvcc around bench/time_run.sh's
# harness and timed through NAME_run (the whole call, workspace passed), alternating, twice; then
# each line's share of the fixed boundary's figure of its round. Needs a GPU.
#   bench/edges_hold.sh [STENCILC] [CONFIG] [NX NY] [STEPS]
set -eu
cd "$(dirname "$0")/.."
bin=${1:-build/driver/stencilc}
cfg=${2:-tb=128x1x1,stream=y,sb=256,bm=2x1x1,tblock=16,select=on,maxreg=128}
nx=${3:-8192} ny=${4:-8192} steps=${5:-1008}
. bench/time_run.sh
time_run_begin
echo "# config $cfg, ${nx}x${ny}, $steps steps"
variants=""
for bc in fixed clamp mirror periodic; do
  cat > "$work/sym_$bc.st" <<ST
stencil sym_$bc {
  grid 2d;
  type float;
  state u boundary $bc;
  u = 0.25 * u + 0.1875 * (u[-1,0] + u[1,0] + u[0,-1] + u[0,1]);
}
ST
  for hold in off on; do
    [ $bc = fixed ] && [ $hold = on ] && continue # a fixed boundary holds its halo already
    v=${bc}_$hold
    mkdir -p "$work/$v"
    "$bin" "$work/sym_$bc.st" --config "$cfg,hold=$hold" --name "$v" -o "$work/$v/$v.cu"
    time_run_build "$work/$v" "$v" "$v" "$work/time_run.cu" &
    variants="$variants $v"
  done
done
wait
for round in 1 2; do
  for v in $variants; do "$work/$v/time_$v" "$nx" "$ny" 1 "$steps" 5; done
done | tee "$work/lines"
# the share of the fixed boundary's figure in the same round
awk '/^fixed_off/ { fixed = $NF == "GStencil/s" ? $(NF-1) : fixed }
     / GStencil\/s$/ { printf "%-12s %8.1f GStencil/s  %.3f of fixed\n", $1, $(NF-1), $(NF-1) / fixed }' "$work/lines"
