#!/bin/sh
# One leg of a 20-minute reference search on the GPU machine (docs/benchmarks.md), from the
# repository root:   sh bench/longsearch-leg.sh NAME BUDGET [STENCILC]
# BUDGET `rest`: what is left of the search's $LS_TOTAL (default 1200s) after its legs so far.
# The search's work folder lives in $LS_TMP/NAME (default /tmp/ls), which a machine keeps only
# while it stays warm; when it is missing (a fresh machine), it is copied from $LS_STATE/NAME
# (default bench/work/ls, ignored by git): the last call's $OUT/ls.tgz unpacked here and carried.
# Without that copy the leg would start a new search from an empty database.
set -u
name=$1; budget=$2; stencilc=${3:-build-dev/driver/stencilc}
tmp=${LS_TMP:-/tmp/ls}; state=${LS_STATE:-bench/work/ls}
export STC_SOURCE_ROOT="${STC_SOURCE_ROOT:-$PWD}"
mkdir -p "$tmp"
if [ ! -d "$tmp/$name" ] && [ -d "$state/$name" ]; then
    cp -r "$state/$name" "$tmp/" && echo "state of $name from $state"
fi
if [ "$budget" = rest ]; then
    budget=$(python3 "$(dirname "$0")/longsearch.py" rest --work "$tmp/$name" --total "${LS_TOTAL:-1200s}") || exit 1
    echo "last leg of $name: $budget"
fi
rc=0
if [ "${budget%s}" -gt 0 ]; then
    timeout $(( ${budget%s} + 45 )) python3 "$(dirname "$0")/longsearch.py" leg --stencilc "$stencilc" \
        --name "$name" --work "$tmp/$name" --budget "$budget"
    rc=$?
else
    echo "no search time left for $name: no leg"  # a budget of 0 would mean stencilc's default
fi
if [ -n "${OUT:-}" ]; then tar czf "$OUT/ls.tgz" -C "$(dirname "$tmp")" "$(basename "$tmp")"; fi
exit $rc
