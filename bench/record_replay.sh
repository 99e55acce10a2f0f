#!/bin/sh
# Records replay data (tests/data/replay_NAME_h100.tsv, docs/autotune.md "Replay") for the named
# benchmark stencils on the GPU at hand, one step, float, the benchmark's grid: a random sample
# of the space (`--strategy random`, RANDOM_BUDGET) joined with a short GeST run (GEST_BUDGET,
# so that the prior configurations are in). A configuration measured by both runs keeps the
# random run's line. Every variant is verified against the interpreter before it is timed, as in
# any tuning; one that fails is recorded with its reason.
#
#   sh bench/record_replay.sh STENCILC OUTDIR RANDOM_BUDGET GEST_BUDGET NAME...
#   e.g. sh bench/record_replay.sh build-dev/driver/stencilc $OUT/replay 20s 8s star2d1r j2d5pt
#
# Writes OUTDIR/replay_NAME_h100.tsv for each NAME and prints a line per stencil; a stencil
# whose recording fails is named and skipped, and the script exits 1 at the end.
set -u
if [ $# -lt 5 ]; then
    sed -n '2,13p' "$0" >&2
    exit 2
fi
stencilc=$1 out=$2 random_budget=$3 gest_budget=$4
shift 4
mkdir -p "$out"
status=0
for name in "$@"; do
    src=examples/bench/$name.st
    part=$out/.$name
    ok=1
    for strategy in random gest; do
        budget=$random_budget
        [ $strategy = gest ] && budget=$gest_budget
        if ! "$stencilc" "$src" --steps 1 --autotune --strategy $strategy --budget "$budget" -q \
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
    } > "$out/replay_${name}_h100.tsv"
    rm -rf "$part.db" "$part.cu" "$part.h" "$part.random.tsv" "$part.gest.tsv"
    echo "$name: $(($(wc -l < "$out/replay_${name}_h100.tsv") - 2)) configurations" \
         "($(grep -c "$(printf '\tfail\t')" "$out/replay_${name}_h100.tsv") failed)"
done
exit $status
