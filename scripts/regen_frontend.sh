#!/usr/bin/env bash
# Regenerates frontend/generated/ (the lexer and parser as re2c and Bison write them), the
# fallback that lets stencilc build on a machine without re2c or bison (a GPU machine with no
# network, say). Usage: scripts/regen_frontend.sh [OUTDIR]   (default: frontend/generated)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-frontend/generated}
mkdir -p "$out"
bison -Wall -Werror --no-lines --output="$out/parser.c" --header="$out/parser.h" frontend/parser.y
re2c -W --no-generation-date --no-debug-info -o "$out/lexer.c" frontend/lexer.re
# Path-independent output: Bison names its output file in a comment.
sed -i "s|$out/|frontend/generated/|g" "$out/parser.c" "$out/parser.h"
