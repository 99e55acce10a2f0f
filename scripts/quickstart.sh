#!/usr/bin/env bash
# The two commands of the README:
#   scripts/quickstart.sh run    install what is missing, build, compile examples/heat.st
#   scripts/quickstart.sh test   install what is missing, build with sanitizers, run every test
# Idempotent: packages already present are not reinstalled; build folders are reused.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}
CUDA=${CUDA_HOME:-/usr/local/cuda}

say() { printf '== %s\n' "$*" >&2; }

# --- 1. packages (Debian/Ubuntu) -------------------------------------------------------------
need=(meson ninja-build re2c bison gcc pkg-config python3)
[ "$mode" = test ] && need+=(clang libclang-rt-dev cmake libopenmpi-dev)  # cmake: install_cmake; MPI: the distributed harness compiles
# libclang for --validate: any of 19 (preferred) is fine; it is loaded at run time. Its builtin
# headers (stddef.h, which glibc's string.h needs) come with libclang-common-19-dev.
want_optional=(libclang1-19 libclang-common-19-dev)
missing=()
for p in "${need[@]}" "${want_optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  say "installing: ${missing[*]}"
  if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
    # No network (e.g. a GPU machine): go on with what is there; the build says what it lacks.
    say "warning: could not install ${missing[*]}; continuing with what is installed"
  fi
fi
if [ ! -x "$CUDA/bin/nvcc" ]; then
  say "note: no CUDA toolkit at $CUDA (set CUDA_HOME); stencilc builds, but nothing can be compiled for a GPU"
fi
export PATH="$CUDA/bin:$PATH"

has_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }

# --- 2. build and run ------------------------------------------------------------------------
case "$mode" in
run)
  [ -f build/build.ninja ] || meson setup build -Dbuildtype=release >/dev/null
  ninja -C build >/dev/null
  args=(examples/heat.st -o heat.cu)
  if has_gpu; then args+=(--autotune --budget 60s); fi
  say "build/driver/stencilc ${args[*]}"
  build/driver/stencilc "${args[@]}"
  say "wrote heat.cu and heat.h"
  ;;
test)
  [ -f build-test/build.ninja ] || meson setup build-test -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
  ninja -C build-test >/dev/null
  set +e
  meson test -C build-test --print-errorlogs --num-processes 2 >build-test/meson-test.out 2>&1
  set -e
  tail -n 40 build-test/meson-test.out
  fuzz_ok=1
  if [ "${STC_FUZZ_SECONDS:-60}" != 0 ] && [ -x tests/fuzz/run_fuzz.sh ]; then
    say "fuzzing the compiler (tests/fuzz: parser, IR, interpreter, code generator; the command line; model and replay files) for ${STC_FUZZ_SECONDS:-60} s"
    if tests/fuzz/run_fuzz.sh "${STC_FUZZ_SECONDS:-60}" >build-test/fuzz.out 2>&1; then fuzz_ok=1; else fuzz_ok=0; tail -n 30 build-test/fuzz.out; fi
  fi
  python3 scripts/test_summary.py build-test/meson-logs/testlog.json "$fuzz_ok"
  ;;
*)
  echo "usage: $0 run|test" >&2; exit 2 ;;
esac
