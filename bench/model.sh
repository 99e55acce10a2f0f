#!/bin/sh
# The learned model's leave-one-program-out figures (docs/model.md), no GPU: extracts the features
# of every recorded variant of the recordings given (replay_NAME_TAG.tsv, bench/record_model.sh)
# and, with --references, of the 20-minute reference searches (tests/data/reference_*_h100.tsv.xz),
# then for each program trains a model on the others and prints
#   1. its ranking of the program's recorded variants: the first's time against the best;
#   2. the zero-run prediction (`--autotune --target` without a GPU): the model's pick from the
#      menu (the priors table's rows, the other programs' fastest variants, the plain kernel), its
#      measured time where the data holds it.
#
#   sh bench/model.sh STENCILC WORKDIR [--references] [--train-gpu G] [TRAIN OPTIONS] RECORDING...
#   e.g. sh bench/model.sh build/driver/stencilc /tmp/model tests/data/replay_*_h100.tsv
#
# With recordings of several GPUs each program is left out of every GPU's data, and each GPU's
# rows get their own summary. --train-gpu G: the models learn from G's recordings only, and are judged
# on every GPU's (how a model of one GPU ranks for another).
# TRAIN OPTIONS (stencilc model train): the shipped model's unless given. Takes 2 to 10 minutes
# on one core for the 21 H100 recordings, about 15 with the references (265 386 variants).
set -eu
if [ $# -lt 3 ]; then
    sed -n '2,19p' "$0" >&2
    exit 2
fi
stencilc=$1 work=$2
shift 2
refs=0
opts="--clip 1 --min-leaf 5 --depth 6 --trees 200"
case ${1:-} in --references) refs=1; shift ;; esac
train_gpu=
case ${1:-} in --train-gpu) train_gpu=$2; shift 2 ;; esac
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
    [ "$opts" = "--clip 1 --min-leaf 5 --depth 6 --trees 200" ] && opts=
    opts="$opts $1 $2"
    shift 2
done
mkdir -p "$work"
data="$work/recordings.tsv"
"$stencilc" model extract -o "$data" "$@"
files=$data
if [ $refs = 1 ]; then
    for f in tests/data/reference_*_h100.tsv.xz; do
        xz -dc "$f" > "$work/$(basename "$f" .xz)"
    done
    "$stencilc" model extract -o "$work/references.tsv" "$work"/reference_*_h100.tsv
    files="$data $work/references.tsv"
fi
echo "# leave-one-program-out, $(date -u +%Y-%m-%d), $stencilc model train $opts${train_gpu:+ --train-gpu $train_gpu}"
echo
# shellcheck disable=SC2086
"$stencilc" model train --loo --pool replay $opts ${train_gpu:+--train-gpu "$train_gpu"} $files
echo
# shellcheck disable=SC2086
"$stencilc" model pick $opts ${train_gpu:+--train-gpu "$train_gpu"} $files
