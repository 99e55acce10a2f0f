#!/bin/sh
# l_fill (tuner/features.c): the share of the main launch's covered points inside the grid. A
# vector kernel whose halo x is not a multiple of vec starts its tiles halo x mod vec points
# before the grid, so star3d1r's float2 cyclic merging (tiles 256 wide on a 512 row) launches
# three tiles a row where two would do: 2/3. Radius 2 (no shift) and the scalar kernel fill 1.
set -eu
stencilc=$1 src=$2
fill() {
    "$stencilc" model features "$src/examples/bench/$1.st" --config "$2" | awk '$1 == "l_fill" { print $2 }'
}
check() {
    got=$(fill "$1" "$2")
    [ "$got" = "$3" ] || { echo "FAIL: $1 $2: l_fill '$got', want $3" >&2; exit 1; }
}
vec2=tb=32x8x1,uf=8x1x1,cm=4x1x2,bm=2x1x1,vec=2,maxreg=128
check star3d1r "$vec2" 0.666667
check star3d2r "$vec2" 1
check star3d1r tb=32x8x1,cmem=on,uf=8x1x1,cm=8x1x4,hcol=on,maxreg=128 1
check j2d5pt tb=128x2x1,uf=2x4x1,bm=2x4x1,vec=2,hcol=on 0.969697
echo "l_fill ok"
