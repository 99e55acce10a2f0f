#!/bin/sh
# run_golden.sh CHECKER SOURCE_ROOT NAME [ARGS...]
# Runs CHECKER (parse_check, or stencilc for errors found after parsing) on tests/err/NAME.st
# (path relative to the source root, as the .err files show it), then ARGS, and compares its
# stderr with tests/err/NAME.err; the exit status must be 1.
# Mistakes on the command line are tests/err/NAME.args instead: the expected exit status on its
# first line, then stencilc's arguments, one a line (lines starting with '#' are comments).
# Inputs that do not belong in git (binary junk, a directory, 100000 brackets, a 65 MiB file)
# are made by tests/err/NAME.gen, run in a scratch directory with the path to create.
set -u
check=$1 root=$2 name=$3
shift 3
case $check in /*) ;; *) check="$PWD/$check" ;; esac
expected="$root/tests/err/$name.err"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
if [ -f "$root/tests/err/$name.gen" ]; then
    mkdir -p "$scratch/tests/err"
    (cd "$scratch" && sh "$root/tests/err/$name.gen" "tests/err/$name.st") || {
        echo "FAIL $name: the generator failed"; exit 1; }
    cd "$scratch"
else
    cd "$root"
fi
want=1
if [ -f "$root/tests/err/$name.args" ]; then
    want=
    set --
    while IFS= read -r line; do
        case $line in '#'*) continue ;; esac
        if [ -z "$want" ]; then want=$line; else set -- "$@" "$line"; fi
    done <"$root/tests/err/$name.args"
else
    set -- "tests/err/$name.st" "$@"
fi
"$check" "$@" >/dev/null 2>"$scratch/actual.err"
rc=$?
if [ "$rc" -ne "$want" ]; then
    echo "FAIL $name: exit status $rc, expected $want"
    cat "$scratch/actual.err"
    exit 1
fi
if ! diff -u "$expected" "$scratch/actual.err"; then
    echo "FAIL $name: stderr differs from tests/err/$name.err (actual output above, after +)"
    exit 1
fi
echo "ok $name"
