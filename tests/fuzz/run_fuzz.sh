#!/bin/sh
# run_fuzz.sh [SECONDS] : fuzzes stencilc for SECONDS in all (default 60) with libFuzzer: half on
# the language (fuzz_parse: the front end and the passes after it), a third on the command line
# (fuzz_cli: options and odd files through stencilc's main), a sixth on the other files it reads
# (fuzz_files: the model, the model's data TSV, replay recordings).
# Builds build-fuzz with clang if needed, seeds the corpora from examples/, tests/err/, a few
# command lines, data/model.txt and recordings of tests/data, and exits non-zero when a fuzzer
# finds a crash (the input is left as build-fuzz/crash-*, cli-crash-* or files-crash-*).
set -eu
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build-fuzz"
if [ ! -f "$build/build.ninja" ]; then
    rm -rf "$build" # a setup that failed half way
    CC=clang meson setup "$build" "$root" -Dfuzz=true -Dbuildtype=debugoptimized
fi
ninja -C "$build" tests/frontend/fuzz_parse tests/frontend/fuzz_cli tests/frontend/fuzz_files driver/stencilc
cli_seconds=$((seconds / 3))
[ "$cli_seconds" -ge 1 ] || cli_seconds=1
files_seconds=$((seconds / 6))
[ "$files_seconds" -ge 1 ] || files_seconds=1
parse_seconds=$((seconds - cli_seconds - files_seconds))
[ "$parse_seconds" -ge 1 ] || parse_seconds=1
corpus="$build/fuzz-corpus"
mkdir -p "$corpus"
for f in "$root"/examples/*.st "$root"/examples/*/*.st "$root"/tests/err/*.st; do
    [ -f "$f" ] && cp "$f" "$corpus/" 2>/dev/null || true
done
cd "$build"
./tests/frontend/fuzz_parse -max_total_time="$parse_seconds" -max_len=65536 -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -dict="$root/tests/fuzz/stencil.dict" \
    -artifact_prefix="$build/" "$corpus"

# The command line: argument lines, an empty line, then the input file's text.
cli_corpus="$build/fuzz-cli-corpus"
mkdir -p "$cli_corpus"
heat="$root/examples/heat.st"
seed_cli() { name=$1; shift; { printf '%s\n' "$@"; echo; cat "$heat"; } > "$cli_corpus/seed-$name"; }
seed_cli compile @IN -o out.cu
seed_cli check check @IN --steps 5
seed_cli space @IN --list-space --grid 64x64x64
seed_cli config @IN --config tb=64x4x2 -o @LONG
seed_cli over-input @IN -o @IN
seed_cli fifo-out @IN -o @FIFO
seed_cli fifo-in @FIFO
seed_cli sock-out @IN -o @SOCK
seed_cli dir @DIR
seed_cli conflict check @IN --autotune -o x.cu
seed_cli twice @IN --stencil heat --stencil heat
seed_cli budget @IN --budget nan
seed_cli command comp @IN
seed_cli dist @IN --distributed --procs 1x2x2 --grid 64x64x64 -o out.cu
seed_cli dist-fused @IN --distributed --procs 2x1x1 --config tb=32x32x1,stream=z,sb=16,tblock=3 -o out.cu
seed_cli dist-link @IN --distributed --procs 1x1x4 --grid 32x32x64 --link 25 --depth 2 -o out.cu
seed_cli target @IN --target H200 -o out.cu
./tests/frontend/fuzz_cli -max_total_time="$cli_seconds" -max_len=8192 -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -close_fd_mask=3 -dict="$root/tests/fuzz/cli.dict" \
    -artifact_prefix="$build/cli-" "$cli_corpus"

# The other files: the first byte picks the reader ('0' the model, '1' its data, '2' a replay
# recording), the rest is the file. Seeds: the shipped model cut to its first two trees, the
# head of a data TSV that stencilc extracts from a recording, heads of recordings.
files_corpus="$build/fuzz-files-corpus"
mkdir -p "$files_corpus"
{ printf 0; awk '/^trees /{print "trees 2"; next} /^tree /{if (++t > 2) exit} {print}' \
    "$root/data/model.txt"; } > "$files_corpus/seed-model"
"$build/driver/stencilc" model extract -o "$build/fuzz-files-data.tsv" --src "$root/examples/bench" \
    "$root/tests/data/replay_box2d1r_h100.tsv" 2>/dev/null
{ printf 1; head -n 40 "$build/fuzz-files-data.tsv"; } > "$files_corpus/seed-data"
for p in box2d1r star3d4r j2d5pt box3d2r; do
    { printf 2; head -n 200 "$root/tests/data/replay_${p}_h100.tsv"; } > "$files_corpus/seed-replay-$p"
done
printf '2#stencilc-replay\tprogram=p\tgrid=64x64\tgpu=g\ntb=32x8x1\tfail\tlaunch\tcost=2\ntb=64x4x1\t0.5\n' \
    > "$files_corpus/seed-replay-fail"
./tests/frontend/fuzz_files -max_total_time="$files_seconds" -max_len=65536 -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -dict="$root/tests/fuzz/files.dict" \
    -artifact_prefix="$build/files-" "$files_corpus"
