#!/usr/bin/env bash
# (Kept in bench/results/2026-12-05-run5/k/; it ran from the repository root as exp-k/run3.sh on exp-k/<task>.r16r.cu / .r32r.cu (f16/bf16 tasks: .r16.cu / .r32.cu, restrict-const refused them), made here with the build of 158e033: kernelskill rewrite test/corpus/Inputs/SRC --kernel K --rule row-reduce --param threads=auto --param resident=16|32, then --rule restrict-const.)
# One-off (2026-12-05): row-reduce threads=auto with resident=16 against resident=32 on the corpus' multi-pass row tasks, kernelskill bench side by side.
ROOT=$(pwd)
mkdir -p /tmp/ks-rel && ln -sfn "$ROOT/build-lean/lib" /tmp/ks-rel/lib
export LD_LIBRARY_PATH=$ROOT/build-lean/lib:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/o}; mkdir -p $OUT/k
nvidia-smi -L > $OUT/gpus.txt; git log --oneline -1 >> $OUT/gpus.txt
for f in exp-k/*.cu; do
  b=$(basename $f .cu); t=${b%%.*}
  timeout 70 build-lean/bin/kernelskill bench test/corpus/Inputs/$t.task.json --candidate $f --runs 50 --no-metrics > $OUT/k/$b.txt 2>&1
  echo "$b rc=$? $(grep -E '^  candidate' $OUT/k/$b.txt)" | tee -a $OUT/summary.txt
done
tar czf $OUT/k.tgz -C $OUT k && rm -rf $OUT/k
