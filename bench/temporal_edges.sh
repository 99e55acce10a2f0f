#!/bin/sh
# Fused steps under every boundary condition (issue 33), on a GPU: a 2D star (star2d1r's weights)
# with a fixed, periodic, clamp and mirror boundary, and the examples that gained fused steps,
# each tuned and timed by NEW and, for the one-step figure, by OLD (a stencilc that fuses steps
# under a fixed boundary only), in the same run:
#
#   sh bench/temporal_edges.sh NEW_STENCILC OLD_STENCILC [BUDGET] [GRID] [STEPS] [PROGRAMS...]
#
# (defaults: 15s, 8192x8192, 1000; programs: star-fixed star-periodic star-clamp star-mirror
# gray_scott). Prints one line per program and binary: name, binary, GStencil/s, configuration;
# then the ratios bench/RESULTS.md quotes. Each tuning starts from an empty database.
set -u
new=$1 old=$2
budget=${3:-15s} grid=${4:-8192x8192} steps=${5:-1000}
shift 2; [ $# -gt 0 ] && shift; [ $# -gt 0 ] && shift; [ $# -gt 0 ] && shift
programs=${*:-star-fixed star-periodic star-clamp star-mirror gray_scott}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source_of() {
    case $1 in
        star-*) sed "s/boundary fixed/boundary ${1#star-}/; s/stencil star2d1r/stencil star_${1#star-}/" \
                    "$root/examples/bench/star2d1r.st" > "$work/$1.st" ;;
        gray_scott) cp "$root/examples/reaction_diffusion.st" "$work/$1.st" ;;
        wave2d) cp "$root/examples/wave2d.st" "$work/$1.st" ;;
        *) cp "$root/examples/$1.st" "$work/$1.st" ;;
    esac
    echo "$work/$1.st"
}

figure() { # binary program -> "GStencil/s config"
    out=$("$1" bench "$2" --autotune --budget "$budget" -q --tune-db "$work/db-$3" --grid "$grid" \
          --steps "$steps" 2>&1)
    rate=$(printf '%s\n' "$out" | sed -n 's/.* \([0-9.]*\) GStencil\/s.*/\1/p' | head -1)
    config=$(printf '%s\n' "$out" | sed -n 's/.*config \(.*\)$/\1/p' | head -1)
    [ -n "$rate" ] || { printf '%s\n' "$out" | sed 's/^/#   /' >&2; rate=0; }
    echo "$rate $config"
}

nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sed 's/^/# GPU: /'
date -u '+# %Y-%m-%d %H:%M UTC'
echo "# budget $budget, grid $grid, $steps steps"
for p in $programs; do
    src=$(source_of "$p")
    set -- $(figure "$new" "$src" "new-$p"); n=$1; shift; nconf="$*"
    set -- $(figure "$old" "$src" "old-$p"); o=$1; shift; oconf="$*"
    echo "$p new $n $nconf"
    echo "$p old $o $oconf"
    eval "rate_$(echo "$p" | tr -c 'a-z0-9\n' _)=$n"
    awk -v p="$p" -v n="$n" -v o="$o" 'BEGIN { if (o > 0) printf "%s fused/one-step %.2f\n", p, n / o }'
done
for p in star-periodic star-clamp star-mirror; do
    eval "r=\${rate_$(echo "$p" | tr -c 'a-z0-9\n' _):-}"
    [ -n "$r" ] && [ -n "${rate_star_fixed:-}" ] &&
        awk -v p="$p" -v r="$r" -v f="$rate_star_fixed" 'BEGIN { printf "%s / star-fixed %.3f\n", p, r / f }'
done
