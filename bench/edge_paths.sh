#!/bin/sh
# Static counts of each path of the 2D streaming temporal kernel (no GPU: nvcc only), star2d1r's
# weights under fixed, clamp and mirror, as bench/temporal_edges.sh writes them:
#
#   sh bench/edge_paths.sh STENCILC [CONFIG] [GRID]
#
# (defaults: tb=256x1x1,stream=y,sb=256,tblock=12 and 8192x8192). A path is the kernel with its
# block-uniform choice made a constant, which nvcc then folds: "kernel" is the kernel as emitted
# (every path), "fast" the loop a chunk inside the grid along y runs (all_in), "inside" the loop
# of a clamp or mirror block that touches no face (opt_temporal_stream.c), "face" the loop that
# clamp and mirror blocks at a left or right face run (the one every block ran before "inside").
# Prints per path: registers (ptxas, sm_90), PTX instructions, shared loads and stores, integer
# arithmetic and branches of the step kernel, counted as tuner/features_ptx.c counts them.
set -eu
stencilc=$1
config=${2:-tb=256x1x1,stream=y,sb=256,tblock=12}
grid=${3:-8192x8192}
root=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

count() { # file.ptx kernel -> instructions, ld.shared, st.shared, integer, branches
    awk -v k="$2" '
        $0 ~ "\\.entry " k "\\(" { on = 1; next }
        on && /^}/ { exit }
        on {
            sub(/^[ \t]*/, ""); if ($0 ~ /^@/) { sub(/^@[^ \t]*[ \t]*/, "") }
            op = $1; sub(/;$/, "", op)
            if (op == "" || op ~ /^[.\/{}$]/ || op ~ /:$/ || op == "ret" || op == "exit") next
            n++
            if (op ~ /^ld\.shared/) ld++
            else if (op ~ /^st\.shared/) st++
            else if (op ~ /^(bra|brx)/) br++
            else if (op ~ /\.f(16|32|64)/) next
            else if (op ~ /^(add|sub|mul|mad|shl|shr|and|or|xor|div|rem|min|max|neg)/) ia++
        }
        END { printf "%5d %5d %5d %5d %5d", n, ld, st, ia, br }' "$1"
}

echo "# $config, grid $grid; registers, instructions, shared loads, shared stores, integer, branches"
for bc in fixed clamp mirror; do
    sed "s/boundary fixed/boundary $bc/; s/stencil star2d1r/stencil star_$bc/" \
        "$root/examples/bench/star2d1r.st" > "$work/$bc.st"
    "$stencilc" "$work/$bc.st" --grid "$grid" --config "$config" -o "$work/$bc.cu"
    paths="kernel fast"
    [ $bc = fixed ] || paths="kernel inside face"
    for path in $paths; do
        case $path in
            kernel) edit='' ;;
            fast) edit='s/const bool all_in = .*;/const bool all_in = true;/' ;;
            inside) edit='s/const bool inside = .*;/const bool inside = true;/' ;;
            face) edit='s/const bool inside = .*;/const bool inside = false;/; s/const bool all_in = .*;/const bool all_in = true;/' ;;
        esac
        sed "$edit" "$work/$bc.cu" > "$work/$bc-$path.cu"
        cp "$work/$bc.h" "$work/$bc-$path.h" 2>/dev/null || true
        sed -i "s/#include \"$bc.h\"/#include \"$bc-$path.h\"/" "$work/$bc-$path.cu"
        "$nvcc" -ptx -arch=sm_90 -o "$work/$path.ptx" "$work/$bc-$path.cu"
        regs=$("$nvcc" -cubin -arch=sm_90 -Xptxas -v -o "$work/$path.cubin" "$work/$bc-$path.cu" 2>&1 |
               grep -A3 "entry function 'star_${bc}_step'" | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' | head -1)
        printf '%-6s %-6s %4s %s\n' "$bc" "$path" "$regs" "$(count "$work/$path.ptx" "star_${bc}_step")"
    done
done
