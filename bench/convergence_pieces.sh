#!/bin/sh
# convergence_pieces.sh OUT TAG MINUTES STRATEGIES NAMES [TAG MINUTES STRATEGIES NAMES ...]
#
# A 10-seed convergence comparison in pieces that each fit a time limit (a device call has 10
# minutes): every piece runs bench/suite.py --convergence NAMES --strategies STRATEGIES with 10
# seeds and --max-minutes MINUTES into OUT/TAG, keeps its tune logs and standard output, and
# packs it as OUT/TAG.tgz (one file: a device call brings back only a few). Join the pieces with
# bench/merge_convergence.py. Settings from the environment: STENCILC (build-dev/driver/stencilc),
# PEERS (.shared/peers), BUDGET (4s), SEEDS (10).
#
#   sh bench/convergence_pieces.sh "$OUT" a 1.6 genetic star2d2r  b 7.6 gest,random,genetic box3d1r,j3d27pt
set -u
if [ $# -lt 5 ]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
while [ $# -ge 4 ]; do
    tag=$1 minutes=$2 strategies=$3 names=$4
    shift 4
    python3 "$here/suite.py" --stencilc "${STENCILC:-build-dev/driver/stencilc}" --peers "${PEERS:-.shared/peers}" \
        --budget "${BUDGET:-4s}" --out "$out/$tag" --max-minutes "$minutes" --skip-stencils --no-multistep \
        --peer-set none --convergence "$names" --strategies "$strategies" --convergence-seeds "${SEEDS:-10}" \
        --convergence-budget "${BUDGET:-4s}" > "$out/$tag.log" 2>&1
    tail -3 "$out/$tag.log"
    mkdir -p "$out/$tag/logs"
    cp "$out/$tag"/work/conv/*.jsonl "$out/$tag/logs/" 2>/dev/null
    rm -rf "$out/$tag/work"
    mv "$out/$tag.log" "$out/$tag/$tag.log"
    (cd "$out" && tar czf "$tag.tgz" "$tag" && rm -rf "$tag")
done
if [ $# -ne 0 ]; then
    echo "convergence_pieces.sh: $# arguments left over (pieces take 4: TAG MINUTES STRATEGIES NAMES)" >&2
    exit 2
fi
