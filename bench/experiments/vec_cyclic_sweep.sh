#!/bin/sh
# Vector units with cyclic merging (vec=2, bm x = 2, cm x > 1) against the best kernels before
# them, timed in one run with `stencilc bench` (verified against the interpreter and against the
# plain kernel on the full grid first). On the GPU machine, from the repository root:
#   [ROUNDS=2] sh bench/experiments/vec_cyclic_sweep.sh [STENCILC] > log
# Two rounds, so that the spread between rounds shows the noise.
set -u
sc=${1:-build-dev/driver/stencilc}
b=examples/bench
run() { # FILE GRID CONFIG
    printf '%s %s %s: ' "$1" "$2" "$3"
    "$sc" bench "$b/$1.st" --type float --steps 1 --grid "$2" --config "$3" 2>&1 | grep -E 'GStencil|error' | tr '\n' ' '
    echo
}
for round in $(seq 1 "${ROUNDS:-2}"); do
    echo "# round $round"
    for g in 512x512x512 510x512x512; do
        run star3d1r $g 'tb=32x8x1,uf=8x1x1,cm=8x1x4,maxreg=128'
        run star3d1r $g 'tb=64x2x1,uf=2x2x1,bm=2x2x1,vec=2,maxreg=128'
        run star3d1r $g 'tb=32x8x1,uf=8x1x1,bm=2x1x1,cm=4x1x4,vec=2,maxreg=128'
        run star3d1r $g 'tb=32x8x1,uf=4x1x1,bm=2x1x1,cm=2x1x4,vec=2,maxreg=128'
    done
    for c in 'tb=32x8x1,uf=16x1x1,bm=2x1x1,cm=8x1x4,vec=2,maxreg=128' \
             'tb=32x4x1,uf=8x1x1,bm=2x1x1,cm=4x1x8,vec=2,maxreg=128' \
             'tb=32x8x1,uf=8x1x1,bm=2x1x1,cm=4x1x2,vec=2,maxreg=128' \
             'tb=32x16x1,uf=8x1x1,bm=2x1x1,cm=4x1x4,vec=2,maxreg=128' \
             'tb=64x4x1,uf=4x1x1,bm=2x1x1,cm=2x1x4,vec=2,maxreg=128' \
             'tb=32x8x1,uf=8x1x1,bm=2x1x1,cm=4x1x4,vec=2,maxreg=64' \
             'tb=32x8x1,uf=8x1x2,bm=2x1x1,cm=4x1x2,vec=2,maxreg=128' \
             'tb=32x8x1,uf=8x2x1,bm=2x1x1,cm=4x2x2,vec=2,maxreg=128'; do
        run star3d1r 512x512x512 "$c"
    done
    run star3d2r 512x512x512 'tb=32x4x1,uf=8x1x1,cm=8x1x4,maxreg=128'
    run star3d2r 512x512x512 'tb=32x4x1,uf=8x1x1,bm=2x1x1,cm=4x1x4,vec=2,maxreg=128'
    run star3d2r 512x512x512 'tb=32x8x1,uf=8x1x1,bm=2x1x1,cm=4x1x4,vec=2,maxreg=128'
    for s in star2d1r j2d5pt; do
        run $s 8192x8192 'tb=256x1x1,uf=2x4x1,bm=2x4x1,vec=2,maxreg=128'
        run $s 8192x8192 'tb=32x4x1,uf=8x4x1,bm=2x1x1,cm=4x4x1,vec=2,maxreg=128'
        run $s 8192x8192 'tb=64x2x1,uf=8x8x1,bm=2x1x1,cm=4x8x1,vec=2,maxreg=128'
        run $s 8192x8192 'tb=128x1x1,uf=4x8x1,bm=2x1x1,cm=2x8x1,vec=2,maxreg=128'
    done
done
