#!/usr/bin/env bash
# (Kept in bench/results/2026-12-05-run5/attn/; it ran from the repository root as exp-attn/run.sh, the candidates under exp-attn/, not kept: README.md says how they were made.)
# One-off (2026-12-05): the corpus attention_softmax rewritten by row-reduce
# threads=auto (memory path, a1r) and threads=auto with resident=16 / 32 (r16r,
# r32r; each with restrict-const), reviewed side by side with kernelskill bench;
# then the task through the loop (bench/corpus/gpu.sh, ROUNDS=2 SWEEP=3).
ROOT=$(pwd)
mkdir -p /tmp/ks-rel && ln -sfn "$ROOT/build-lean/lib" /tmp/ks-rel/lib
export LD_LIBRARY_PATH=$ROOT/build-lean/lib:${LD_LIBRARY_PATH:-}
OUT=${OUT:-/tmp/o}; mkdir -p $OUT
nvidia-smi -L > $OUT/gpus.txt; git log --oneline -1 >> $OUT/gpus.txt
for f in a1r r16r r32r; do
  timeout 100 build-lean/bin/kernelskill bench test/corpus/Inputs/attention_softmax.task.json --candidate exp-attn/$f.cu --runs 50 > $OUT/$f.txt 2>&1
  echo "$f rc=$?" >> $OUT/$f.txt
done
grep -h -E "rc=|candidate  |kernel attention" $OUT/*.txt
TASKS="attention_softmax" ROUNDS=2 SWEEP=3 JOBS=1 MAX_TASKS=0 TASK_TIMEOUT=240 START_BY=60 HARD_STOP=280 \
  bash bench/corpus/gpu.sh build-lean /tmp/corpus-out > $OUT/corpus.log 2>&1
echo "gpu.sh exit $?" >> $OUT/corpus.log
cp /tmp/corpus-out/corpus-gpu.md $OUT/ 2>/dev/null
tar czf $OUT/corpus-all.tgz -C /tmp corpus-out/results corpus-out/reports corpus-out/corpus-gpu.json corpus-out/ceilings.json 2>/dev/null
tail -5 $OUT/corpus.log; grep -i attention $OUT/corpus-gpu.md
