#!/bin/sh
# How to run: on the GPU machine, from the repository root, with build-dev built at 9c965b9 and
# build-hc at the same commit with bench/experiments/hcol_first.patch applied (the stores first):
#   sh bench/experiments/hcol_placement_ab.sh > log
# A/B of where hcol=on's stores go: after the points (build-dev, the old place) or first
# (build-hc), alternated, two rounds each. GStencil/s of `stencilc bench`, one step, the
# benchmark's own grid (512^3, 8192^2). Result (H100, 2026-11-25, docs/performance.md, log
# bench/logs/hcol-placement-ab-h100-2026-11-25.txt.gz): mixed, -1.1% to +4.5%, and no stencil's
# best kernel gains, so the stores stay after the points.
b=examples/bench
ab() { # FILE CONFIG
  for v in dev hc dev hc; do
    printf '%s %s [%s]: ' "$1" "$2" "$v"
    build-$v/driver/stencilc bench "$b/$1.st" --type float --steps 1 --config "$2" 2>&1 |
        grep -E 'GStencil|error' | sed 's/.*step), //' | tr '\n' ' '
    echo
  done
}
ab star3d1r 'tb=32x8x1,uf=8x1x1,cm=8x1x4,maxreg=128,hcol=on'
ab star3d1r 'tb=32x8x1,cmem=on,uf=8x1x1,cm=8x1x4,maxreg=128,hcol=on'
ab star3d1r 'tb=64x2x1,uf=2x2x1,bm=2x2x1,vec=2,maxreg=128,hcol=on'
ab star3d2r 'tb=32x4x1,uf=8x1x1,cm=4x1x8,bm=2x1x1,vec=2,maxreg=128,hcol=on'
ab star3d3r 'tb=32x8x1,uf=8x1x1,cm=8x1x4,maxreg=128,hcol=on'
ab star3d4r 'tb=32x8x1,uf=8x1x1,cm=4x1x8,bm=2x1x1,vec=2,maxreg=128,hcol=on'
ab star2d1r 'tb=256x1x1,uf=2x4x1,bm=2x4x1,vec=2,maxreg=128,hcol=on'
