#!/usr/bin/env bash
# attn-unroll/run.sh — a one-off experiment (2026-12-05, H100): the corpus'
# attention_softmax rewritten by row-reduce threads=auto with 2, 4 (the rule's
# default for f32 rows) and 8 loads in flight a thread, each then given
# restrict-const as the loop gave it, reviewed with `kernelskill bench`.
# The candidates were made here (build/ from 2f9cfe5):
#   KS=build/bin/kernelskill IN=test/corpus/Inputs/trainer_backward.cu K=attention_softmax_kernel1
#   $KS rewrite $IN --kernel $K --rule row-reduce --param threads=auto -o exp-attn/a1.cu
#   $KS rewrite exp-attn/a1.cu --kernel $K --rule restrict-const -o exp-attn/a1r.cu
#   (the same with --param unroll=8 -> a8.cu, a8r.cu and --param unroll=2 -> a2.cu, a2r.cu)
# and this script ran on the device with `source .device/env.sh && bash exp-attn/run.sh`.
ROOT=$(pwd)
mkdir -p /tmp/ks-rel && ln -sfn "$ROOT/build-lean/lib" /tmp/ks-rel/lib
export LD_LIBRARY_PATH=$ROOT/build-lean/lib:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/o}; mkdir -p $OUT
for f in a1r a8r a2r; do
  timeout 80 build-lean/bin/kernelskill bench test/corpus/Inputs/attention_softmax.task.json --candidate exp-attn/$f.cu --runs 50 --no-metrics > $OUT/$f.txt 2>&1
  echo "$f rc=$?" >> $OUT/$f.txt
done
tail -n 30 $OUT/*.txt
