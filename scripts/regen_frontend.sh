#!/usr/bin/env bash
# Regenerates frontend/generated/ (the lexer and parser as re2c and Bison write them), the
# fallback that lets stencilc build on a machine without re2c or bison (a GPU machine with no
# network, say). Usage: scripts/regen_frontend.sh [OUTDIR]   (default: frontend/generated)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/frontend/generated}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Run from a scratch folder with relative names, so the output names no path of this machine.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$root/frontend/parser.y" "$root/frontend/lexer.re" "$tmp/"
(cd "$tmp" && bison -Wall -Werror --no-lines --output=parser.c --header=parser.h parser.y \
   && re2c -W --no-generation-date --no-debug-info -o lexer.c lexer.re)
cp "$tmp/parser.c" "$tmp/parser.h" "$tmp/lexer.c" "$out/"
