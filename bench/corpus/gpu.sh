#!/usr/bin/env bash
# gpu.sh — the corpus tasks on the GPU (issue 14): for each task of
# test/corpus/Inputs/*.task.json, the offline loop (`kernelskill optimize
# TASK --json --llm off`, few rounds, a per-task timeout), then a table: task,
# class, correct?, baseline ms, best ms, speedup, achieved bandwidth (the
# task's cost.bytes / best time) and % of the DRAM peak measured in the same
# run (`ks-harness ceilings`: a 1 GiB device-to-device copy, read + write).
# Builds nothing: every binary comes from BUILD. Run from anywhere:
#
#   bash bench/corpus/gpu.sh BUILD OUT
#
# Writes OUT/corpus-gpu.md (the table), OUT/corpus-gpu.json, OUT/results/
# (each task's optimize JSON and log), OUT/reports/ (each run's report.md); the
# run folders go to RUNS_DIR (default /tmp/ks-corpus-runs), the build and
# ceilings cache to KS_CORPUS_CACHE (default /tmp/ks-corpus-cache). One task
# failing or timing out does not stop the others. Tasks are taken round-robin
# over the shape classes (tasks.py list), JOBS at a time (their compiles
# overlap; the Reviewer's GPU lock keeps the timed GPU work apart). Knobs
# (defaults aim at about 6 minutes on an H200; not measured yet):
#   ROUNDS=2 RUNS=50 TRIALS=5 SWEEP=3 JOBS=10
#                      (SWEEP=3 is the loop's own default; SWEEP=1 tries only a
#                      skill's first parameter value: f32 row reductions then
#                      missed their target on an H100, docs/corpus-gpu.md)
#   MAX_TASKS=30       the first 30 of the round-robin list (0: all of them)
#   TASK_TIMEOUT=240   seconds one task may take (then killed: "timeout")
#   START_BY=270       no task starts later than this many seconds into the run
#   HARD_STOP=380      every task is killed by then
#   TASKS="residual softmax_forward ..."  only these (names without .task.json)
#   GPUS=N             spread the tasks over the first N visible GPUs, round-robin
#                      (default: all of them); each task sees one GPU through
#                      CUDA_VISIBLE_DEVICES, so the Reviewer's lock is per GPU
# Exit: 0 every task that ran is correct; 1 a task failed; 2 no GPU / bad usage.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -ne 2 ]; then
  echo "usage: bash bench/corpus/gpu.sh BUILD OUT" >&2
  exit 2
fi
B=$(cd "$1" 2>/dev/null && pwd) || { echo "gpu.sh: no build folder '$1'" >&2; exit 2; }
mkdir -p "$2" || exit 2
OUT=$(cd "$2" && pwd)
KS=$B/bin/kernelskill
HARNESS=$B/bin/ks-harness
for x in "$KS" "$HARNESS"; do
  [ -x "$x" ] || { echo "gpu.sh: $x is missing: build first (nothing is built here)" >&2; exit 2; }
done
ROUNDS=${ROUNDS:-2}
RUNS=${RUNS:-50}
TRIALS=${TRIALS:-5}
SWEEP=${SWEEP:-3}
JOBS=${JOBS:-10}
MAX_TASKS=${MAX_TASKS:-30}
TASK_TIMEOUT=${TASK_TIMEOUT:-240}
START_BY=${START_BY:-270}
HARD_STOP=${HARD_STOP:-380}
INPUTS=$ROOT/test/corpus/Inputs
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
GPUS=${GPUS:-$NGPU}
[ "$GPUS" -ge 1 ] 2>/dev/null || GPUS=1

# Carried trees may lose symlinks: recreate the library's SONAME link.
if [ ! -e "$B/lib/libkernelskill.so.0" ] && ls "$B"/lib/libkernelskill.so.0.* >/dev/null 2>&1; then
  ln -sf "$(ls "$B"/lib/libkernelskill.so.0.* | head -1)" "$B/lib/libkernelskill.so.0"
fi
export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export PATH=$B/bin:$PATH
# Run folders (candidates, reference caches of gigabytes when a run is cut
# short) and the build cache stay out of OUT, which holds only small files.
# A fresh cache: the ceilings the reviews use are measured in this run.
RUNS_DIR=${RUNS_DIR:-/tmp/ks-corpus-runs}
export XDG_CACHE_HOME=${KS_CORPUS_CACHE:-/tmp/ks-corpus-cache}
rm -rf "$OUT/work" "$OUT/results" "$OUT/reports" "$RUNS_DIR" "$XDG_CACHE_HOME"
mkdir -p "$OUT/work" "$OUT/results" "$OUT/reports" "$RUNS_DIR" "$XDG_CACHE_HOME"
cp "$INPUTS"/*.cu "$INPUTS"/*.json "$INPUTS"/*.py "$OUT/work/" || exit 2
python3 "$OUT/work/tasks.py" list >"$OUT/tasks.txt" || { echo "gpu.sh: tasks.py list failed" >&2; exit 2; }
if [ -n "${TASKS:-}" ]; then
  : >"$OUT/tasks.sel"
  for t in $TASKS; do grep "^$t.task.json " "$OUT/tasks.txt" >>"$OUT/tasks.sel" || echo "gpu.sh: no task $t" >&2; done
  mv "$OUT/tasks.sel" "$OUT/tasks.txt"
elif [ "$MAX_TASKS" -gt 0 ]; then
  head -n "$MAX_TASKS" "$OUT/tasks.txt" >"$OUT/tasks.sel" && mv "$OUT/tasks.sel" "$OUT/tasks.txt"
fi

# No GPU: say so, check the tasks offline, and stop.
"$HARNESS" info >"$OUT/device.json" 2>&1
HRC=$?
if [ $HRC -ne 0 ]; then
  echo "gpu.sh: no usable CUDA device ($(cat "$OUT/device.json" | head -c 300)): nothing was optimized." >&2
  echo "gpu.sh: offline checks of the $(wc -l <"$OUT/tasks.txt") tasks instead:" >&2
  python3 "$OUT/work/tasks.py" check --kernelskill "$KS" >&2
  exit 2
fi

T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
{
  echo "# Corpus tasks on the GPU (issue 14)"
  echo
  echo "Command: \`bash bench/corpus/gpu.sh BUILD OUT\` (ROUNDS=$ROUNDS RUNS=$RUNS TRIALS=$TRIALS SWEEP=$SWEEP JOBS=$JOBS MAX_TASKS=$MAX_TASKS TASK_TIMEOUT=$TASK_TIMEOUT START_BY=$START_BY HARD_STOP=$HARD_STOP GPUS=$GPUS), i.e."
  echo "\`kernelskill optimize TASK.json --rounds $ROUNDS --runs $RUNS --trials $TRIALS --sweep $SWEEP --llm off --json --out RUN\` per task"
  echo
  echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1) ($GPUS used of $NGPU)"
  echo
} >"$OUT/header.md"

# The DRAM peak, measured before the tasks (the GPU is idle).
"$HARNESS" ceilings >"$OUT/ceilings.json" 2>"$OUT/ceilings.err"
PEAK=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['dram_gbps'] if d.get('ok') else 0)" "$OUT/ceilings.json" 2>/dev/null || echo 0)
echo "gpu.sh: DRAM peak $PEAK GB/s ($(elapsed) s)"

one_task() {
  local tf=$1 name=${1%.task.json} left lim rc
  [ "$GPUS" -gt 1 ] && export CUDA_VISIBLE_DEVICES=$2
  left=$((HARD_STOP - $(elapsed)))
  lim=$TASK_TIMEOUT
  [ "$left" -lt "$lim" ] && lim=$left
  if [ "$lim" -le 5 ]; then
    echo "$name skipped" >"$OUT/results/$name.status"
    return
  fi
  timeout -k 10 "$lim" "$KS" optimize "$OUT/work/$tf" --rounds "$ROUNDS" --runs "$RUNS" --trials "$TRIALS" \
    --sweep "$SWEEP" --llm off --json --out "$RUNS_DIR/$name" >"$OUT/results/$name.json" 2>"$OUT/results/$name.log"
  rc=$?
  cp "$RUNS_DIR/$name/report.md" "$OUT/reports/$name.md" 2>/dev/null
  [ -s "$OUT/results/$name.json" ] || rm -f "$OUT/results/$name.json"
  case $rc in
    124 | 137) echo "$name timeout" >"$OUT/results/$name.status" ;;
    *) echo "$name ran" >"$OUT/results/$name.status" ;;
  esac
  echo "gpu.sh: $name exit $rc at $(elapsed) s"
}

PIDS=()
IDX=0
while read -r tf cls kernel; do
  name=${tf%.task.json}
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.5; done
  if [ "$(elapsed)" -ge "$START_BY" ]; then
    echo "$name skipped" >"$OUT/results/$name.status"
    continue
  fi
  one_task "$tf" $((IDX % GPUS)) &
  PIDS+=($!)
  IDX=$((IDX + 1))
done <"$OUT/tasks.txt"
for p in "${PIDS[@]}"; do wait "$p"; done

: >"$OUT/tasks.status"
while read -r tf cls kernel; do
  name=${tf%.task.json}
  st=$(cut -d' ' -f2 "$OUT/results/$name.status" 2>/dev/null || echo skipped)
  echo "$tf $cls $kernel ${st:-skipped}" >>"$OUT/tasks.status"
done <"$OUT/tasks.txt"
python3 "$ROOT/bench/corpus/table.py" "$OUT" "$PEAK" "$OUT/tasks.status" >"$OUT/table.md"
RC=$?
cat "$OUT/header.md" "$OUT/table.md" >"$OUT/corpus-gpu.md"
echo "Wall time: $(elapsed) s" >>"$OUT/corpus-gpu.md"
cat "$OUT/corpus-gpu.md"
exit $RC
