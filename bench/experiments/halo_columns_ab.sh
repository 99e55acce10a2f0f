#!/bin/sh
# How to run: on the GPU machine, from the repository root, with build-old built at the commit
# before the halo-column stores and build-dev after: sh bench/experiments/halo_columns_ab.sh > log
# A/B: build-old (before the halo-column stores) and build-dev (after), alternated.
# Result (H100, 2026-11-25, bench/logs/halo-columns-ab-h100-2026-11-25.txt.gz; build-dev then
# stored them always, as hcol=on now does): star3d1r cyclic 327.7 -> 341.3, its vector kernel
# 320.2 -> 319.5, star3d2r 325.5 -> 324.4, star3d3r 255.7 -> 250.8, star3d4r 267.0 -> 261.0,
# star2d1r 360.7 -> 362.5 GStencil/s (docs/config.md).
b=examples/bench
ab() { # FILE GRID CONFIG
  for v in old dev old dev; do
    printf '%s %s %s [%s]: ' "$1" "$2" "$3" "$v"
    build-$v/driver/stencilc bench "$b/$1.st" --type float --steps 1 --grid "$2" --config "$3" 2>&1 | grep -E 'GStencil|error' | sed 's/.*step), //' | tr '\n' ' '
    echo
  done
}
ab star3d1r 512x512x512 'tb=32x8x1,cmem=on,uf=8x1x1,cm=8x1x4,maxreg=128'
ab star3d2r 512x512x512 'tb=32x4x1,uf=8x1x1,cm=4x1x8,bm=2x1x1,vec=2,maxreg=128'
ab star3d4r 512x512x512 'tb=32x8x1,uf=8x1x1,cm=4x1x8,bm=2x1x1,vec=2,maxreg=128'
ab star3d3r 512x512x512 'tb=32x8x1,uf=8x1x1,cm=8x1x4,maxreg=128'
ab star3d1r 512x512x512 'tb=64x2x1,uf=2x2x1,bm=2x2x1,vec=2,maxreg=128'
ab star2d1r 8192x8192 'tb=256x1x1,uf=2x4x1,bm=2x4x1,vec=2,maxreg=128'
