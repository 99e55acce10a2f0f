#!/bin/sh
# Records what the learned model trains on (docs/model.md), on the GPU at hand: for each program,
# one step at its file's grid and type, a random sample of its space (--strategy random,
# RANDOM_BUDGET) joined with a short GeST run (GEST_BUDGET, so that the prior configurations are
# in), every variant verified against the interpreter before it is timed, as
# bench/record_replay.sh does for the replay tests. Writes OUTDIR/replay_NAME_TAG.tsv per program
# (TAG names the GPU: h100, h200, ...) and prints a line each; a program whose recording fails is
# named and skipped, and the script exits 1 at the end.
#
#   sh bench/record_model.sh STENCILC OUTDIR TAG RANDOM_BUDGET GEST_BUDGET [NAME...]
#   e.g. sh bench/record_model.sh build/driver/stencilc $OUT/model h200 20s 8s
#
# NAME: a benchmark (examples/bench/NAME.st) or FILE:STENCIL under examples/; without names, the
# 21 benchmarks and the other examples (heat, wave2d, flux_divergence, gray_scott, the four image
# filters). About 40 s per program (the budgets plus compiling), 20 minutes for all 29.
set -u
if [ $# -lt 5 ]; then
    sed -n '2,17p' "$0" >&2
    exit 2
fi
stencilc=$1 out=$2 tag=$3 random_budget=$4 gest_budget=$5
shift 5
if [ $# -eq 0 ]; then
    set -- box2d1r box2d2r box2d3r box2d4r box3d1r box3d2r box3d3r box3d4r gradient2d j2d5pt \
        j2d9pt-gol j2d9pt j3d27pt star2d1r star2d2r star2d3r star2d4r star3d1r star3d2r star3d3r \
        star3d4r heat.st:heat wave2d.st:wave2d flux_divergence.st:flux_divergence \
        reaction_diffusion.st:gray_scott image.st:gaussian3x3 image.st:box5x5 image.st:unsharp \
        image.st:sobel
fi
mkdir -p "$out"
status=0
for item in "$@"; do
    case $item in
    *:*) src=examples/${item%%:*} name=${item#*:} pick="--stencil $name" ;;
    *) src=examples/bench/$item.st name=$item pick= ;;
    esac
    part=$out/.$name
    ok=1
    for strategy in random gest; do
        budget=$random_budget
        [ $strategy = gest ] && budget=$gest_budget
        # shellcheck disable=SC2086
        if ! "$stencilc" "$src" $pick --steps 1 --autotune --strategy $strategy --budget "$budget" -q \
                --tune-db "$part.db" --tune-record "$part.$strategy.tsv" -o "$part.cu"; then
            echo "$name: the $strategy recording failed" >&2
            ok=0
        fi
    done
    if [ $ok = 0 ]; then
        status=1
        continue
    fi
    {
        head -n 1 "$part.random.tsv"
        echo "# stencilc --tune-record, union of a random sample (--strategy random, $random_budget)" \
             "and a GeST run (--strategy gest, $gest_budget, so the prior configurations are in):" \
             "CONFIG<TAB>ms per step, or fail<TAB>reason; cost = compile s / compile threads + GPU s"
        awk -F '\t' 'FNR > 2 && !seen[$1]++' "$part.random.tsv" "$part.gest.tsv"
    } > "$out/replay_${name}_$tag.tsv"
    rm -rf "$part.db" "$part.cu" "$part.h" "$part.random.tsv" "$part.gest.tsv"
    echo "$name: $(($(wc -l < "$out/replay_${name}_$tag.tsv") - 2)) configurations" \
         "($(grep -c "$(printf '\tfail\t')" "$out/replay_${name}_$tag.tsv") failed)"
done
exit $status
