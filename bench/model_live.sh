#!/bin/sh
# The learned model on the GPU at hand, program by program (docs/model.md, "On a GPU"): a model
# trained on DATA without the program (stencilc model train --exclude NAME) makes
#   predicted  the zero-run prediction for GPU: `stencilc bench --autotune --target GPU`, which
#              tunes nothing and times the predicted kernel;
#   guided     a search of GUIDED_BUDGET (default 20s) with the model ranking (--guide);
#   tuned      a plain GeST search of BUDGET (default 60s), as `--autotune` runs today;
# each timed by `stencilc bench` (one step, the file's grid), which prints GStencil/s and the share
# of the copy bandwidth (the measured roofline). Prints a table row per program and the count of
# predictions within 15% of the tuned kernel, then of guided searches within 5%.
#
#   sh bench/model_live.sh STENCILC WORKDIR GPU DATA.tsv... [-- NAME...]
#   e.g. sh bench/model_live.sh build/driver/stencilc $OUT/live H200 $OUT/model/data_h100.tsv \
#            $OUT/model/data_h200.tsv -- star2d1r j2d5pt star3d1r box3d1r j3d27pt
#
# NAME as in bench/record_model.sh (a benchmark, or FILE:STENCIL under examples/); default: all 29.
# About 2 minutes per program (compiles, a 20 s and a 60 s search, three timings).
# GUIDED_BUDGET=0 skips the guided search, BUDGET=0 the plain one. BEST_OF=FILE (lines
# "NAME CONFIG", several per program: the 20-minute references' and the result tables' best
# configurations) times each listed configuration in the same run, and the tuned figure is the
# fastest of them and the search: a check of the prediction in seconds a program.
set -u
if [ $# -lt 4 ]; then
    sed -n '2,18p' "$0" >&2
    exit 2
fi
stencilc=$1 work=$2 gpu=$3
shift 3
data=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    data="$data $1"
    shift
done
[ $# -gt 0 ] && shift
if [ $# -eq 0 ]; then
    set -- box2d1r box2d2r box2d3r box2d4r box3d1r box3d2r box3d3r box3d4r gradient2d j2d5pt \
        j2d9pt-gol j2d9pt j3d27pt star2d1r star2d2r star2d3r star2d4r star3d1r star3d2r star3d3r \
        star3d4r heat.st:heat wave2d.st:wave2d flux_divergence.st:flux_divergence \
        reaction_diffusion.st:gray_scott image.st:gaussian3x3 image.st:box5x5 image.st:unsharp \
        image.st:sobel
fi
guided_budget=${GUIDED_BUDGET:-20s} budget=${BUDGET:-60s}
mkdir -p "$work"
# "0.1234 ms/step ... 312.5 GStencil/s ... 91% of copy bandwidth": ms, GStencil/s, share
timing() {
    sed -n 's/.*, \([0-9.]*\) ms\/step.*, \([0-9.]*\) GStencil\/s.*, \([0-9]*\)% of copy.*/\1 \2 \3/p' | tail -n 1
}
# faster TIMING... : the fastest of the "ms GStencil/s share" lines on stdin (none: nothing)
faster() {
    awk 'NF == 3 && $1 > 0 && (best == "" || $1 < b) { best = $0; b = $1 } END { if (best != "") print best }'
}
# tuned SRC PICK NAME: the plain search of $budget and the listed configurations of NAME, fastest
tuned_of() {
    {
        # shellcheck disable=SC2086
        [ "$budget" = 0 ] || "$stencilc" bench "$1" $2 --steps 1 --autotune --budget "$budget" -q \
            --tune-db "$work/db-plain" | timing
        [ -n "${BEST_OF:-}" ] && awk -v n="$3" '$1 == n { print $2 }' "$BEST_OF" | while read -r cfg; do
            # shellcheck disable=SC2086
            "$stencilc" bench "$1" $2 --steps 1 --config "$cfg" | timing
        done
    } | faster
}
echo "| program | predicted: ms, GStencil/s, roofline | guided $guided_budget | tuned $budget | predicted / tuned | guided / tuned |"
echo "|---|---|---|---|---:|---:|"
n=0 p15=0 g5=0
for item in "$@"; do
    case $item in
    *:*) src=examples/${item%%:*} name=${item#*:} pick="--stencil $name" ;;
    *) src=examples/bench/$item.st name=$item pick= ;;
    esac
    model=$work/model_$name.txt
    # shellcheck disable=SC2086
    "$stencilc" model train --clip 1 --min-leaf 5 --depth 6 --trees 200 --exclude "$name" -o "$model" $data \
        2>/dev/null || { echo "$name: training failed" >&2; continue; }
    # shellcheck disable=SC2086
    pred=$("$stencilc" bench "$src" $pick --steps 1 --autotune --target "$gpu" --model "$model" | timing)
    guided=
    # shellcheck disable=SC2086
    [ "$guided_budget" = 0 ] || guided=$("$stencilc" bench "$src" $pick --steps 1 --autotune --guide \
        --model "$model" --budget "$guided_budget" -q --tune-db "$work/db-guided" | timing)
    tuned=$(tuned_of "$src" "$pick" "$name")
    set -- $pred
    pms=${1:-0} pgs=${2:-0} proof=${3:-0}
    set -- $guided
    gms=${1:-0} ggs=${2:-0} groof=${3:-0}
    set -- $tuned
    tms=${1:-0} tgs=${2:-0} troof=${3:-0}
    rp=$(awk -v a="$pms" -v b="$tms" 'BEGIN { printf "%.3f", (b > 0 && a > 0 ? a / b : 0) }')
    rg=$(awk -v a="$gms" -v b="$tms" 'BEGIN { printf "%.3f", (b > 0 && a > 0 ? a / b : 0) }')
    echo "| $name | $pms, $pgs, $proof% | $gms, $ggs, $groof% | $tms, $tgs, $troof% | $rp | $rg |"
    n=$((n + 1))
    awk -v r="$rp" 'BEGIN { exit !(r > 0 && r <= 1.15) }' && p15=$((p15 + 1))
    awk -v r="$rg" 'BEGIN { exit !(r > 0 && r <= 1.05) }' && g5=$((g5 + 1))
done
echo
echo "predicted within 15% of the tuned (a $budget search${BEST_OF:+ and the listed configurations}): $p15 of $n;" \
    "guided $guided_budget within 5% of it: $g5 of $n ($gpu, $(date -u +%Y-%m-%d))"
