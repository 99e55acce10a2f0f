#!/bin/sh
# run_fuzz.sh [SECONDS] : fuzzes the front end for SECONDS (default 60) with libFuzzer.
# Builds build-fuzz with clang if needed, seeds the corpus from examples/ and tests/err/, and
# exits non-zero when the fuzzer finds a crash (the input is left as build-fuzz/crash-*).
set -eu
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build-fuzz"
if [ ! -f "$build/build.ninja" ]; then
    rm -rf "$build" # a setup that failed half way
    CC=clang meson setup "$build" "$root" -Dfuzz=true -Dbuildtype=debugoptimized
fi
ninja -C "$build" tests/frontend/fuzz_parse
corpus="$build/fuzz-corpus"
mkdir -p "$corpus"
for f in "$root"/examples/*.st "$root"/examples/*/*.st "$root"/tests/err/*.st; do
    [ -f "$f" ] && cp "$f" "$corpus/" 2>/dev/null || true
done
cd "$build"
./tests/frontend/fuzz_parse -max_total_time="$seconds" -max_len=65536 -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -dict="$root/tests/fuzz/stencil.dict" \
    -artifact_prefix="$build/" "$corpus"
