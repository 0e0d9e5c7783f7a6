#!/usr/bin/env bash
# (Kept in bench/results/2026-12-05-run5/attn/; it ran from the repository root as exp-attn/run.sh, the candidates under exp-attn/, not kept: README.md says how they were made.)
# One-off (2026-12-05): attention_softmax hand-written resident forms (K=16, 32) vs the rule's memory path (a1r), side by side.
ROOT=$(pwd)
mkdir -p /tmp/ks-rel && ln -sfn "$ROOT/build-lean/lib" /tmp/ks-rel/lib
export LD_LIBRARY_PATH=$ROOT/build-lean/lib:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/o}; mkdir -p $OUT
nvidia-smi -L > $OUT/gpus.txt
for f in a1r h16r h32r; do
  timeout 100 build-lean/bin/kernelskill bench test/corpus/Inputs/attention_softmax.task.json --candidate exp-attn/$f.cu --runs 50 > $OUT/$f.txt 2>&1
  echo "$f rc=$?" >> $OUT/$f.txt
done
grep -h -E "rc=|candidate  |kernel attention" $OUT/*.txt
