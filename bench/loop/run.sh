#!/bin/bash
# run.sh — the GPU acceptance of `kernelskill optimize` (issue 6): the offline
# loop on 6 naive seeds of bench/suite (elementwise, softmax rows, layernorm,
# row sum, naive SGEMM, transpose). Checks each result correct (closing review
# against the seed) and faster than its seed, and that no candidate was
# evaluated twice; writes a markdown table. Then a kill-and-resume check on one
# task: kill -9 once the journal shows the first accepted round, --resume, and
# verify the run completes with no candidate hash evaluated twice. A task name is
# a folder of bench/suite/, else of bench/loop/tasks/ (row_sum: the issue's "row
# sum"; the suite's sum_dim reduces a middle dimension and its seed already runs
# at 85% of the DRAM bandwidth).
# Run from the repository root on the GPU machine (after `source .device/env.sh`):
#
#   bench/loop/run.sh RESULT.md [BUILD_DIR]          (BUILD_DIR default: build-loop)
#
# Budget knobs (defaults fit about 6 minutes of GPU for the six tasks):
#   ROUNDS=4 RUNS=50 TRIALS=5 SWEEP=2 TASKS="relu softmax_rows ..." KILL_TASK=softmax_rows
#   JOBS=7 (jobs at once, the background kill/resume check included: their compiles
#   overlap, while the Reviewer's GPU lock runs their GPU work one at a time)
# Exit status: 0 when every task passed and the resume check passed.
set -u
ROOT=$(pwd)
MD=${1:?usage: bench/loop/run.sh RESULT.md [BUILD_DIR]}
B=$ROOT/${2:-build-loop}
ROUNDS=${ROUNDS:-4}
RUNS=${RUNS:-50}
TRIALS=${TRIALS:-5}
SWEEP=${SWEEP:-2}
TASKS=${TASKS:-relu softmax_rows layernorm row_sum sgemm transpose}
KILL_TASK=${KILL_TASK:-softmax_rows}
JOBS=${JOBS:-7}
OUT=${OUT:-/tmp/ks-loop}
RUNDIR=$OUT/runs
export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/ks-cache}
KS=$B/bin/kernelskill
CHECK="python3 $ROOT/bench/loop/check.py"
mkdir -p "$OUT"
rm -rf "$RUNDIR"
FAILED=0
OPTS=(--rounds "$ROUNDS" --runs "$RUNS" --trials "$TRIALS" --sweep "$SWEEP")

{
  echo "# kernelskill optimize on naive seeds (offline rules)"
  echo
  echo "Command: \`bench/loop/run.sh $MD ${2:-build-loop}\` (ROUNDS=$ROUNDS RUNS=$RUNS TRIALS=$TRIALS SWEEP=$SWEEP), i.e."
  echo "\`kernelskill optimize TASK.json ${OPTS[*]} --out RUNDIR --json\` (TASK.json: bench/suite/TASK/ or bench/loop/tasks/TASK/)"
  echo
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo
  echo "| task | seed us | best us | speedup (closing review) | rounds | candidates | skills accepted | status |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$MD"

task_file() {
  if [ -f "bench/suite/$1/task.json" ]; then echo "bench/suite/$1/task.json"; else echo "bench/loop/tasks/$1/task.json"; fi
}
# Kill and resume, in the background while the tasks run (the GPU lock keeps
# their timings apart): start, kill -9 after the first accepted round is
# journaled, resume, then check the journal.
kill_resume() {
  K=$RUNDIR/kill-$KILL_TASK
  "$KS" optimize "$(task_file "$KILL_TASK")" "${OPTS[@]}" --out "$K" >"$OUT/kill.log" 2>&1 &
  PID=$!
  KILLED=no
  for _ in $(seq 1 600); do
    if grep -q '"event":"decision".*"verdict":"accepted"' "$K/journal.jsonl" 2>/dev/null; then
      kill -9 "$PID" 2>/dev/null && KILLED=yes
      break
    fi
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.5
  done
  wait "$PID" 2>/dev/null
  LINES_BEFORE=$(wc -l <"$K/journal.jsonl" 2>/dev/null || echo 0)
  "$KS" optimize "$(task_file "$KILL_TASK")" --resume --out "$K" --runs "$RUNS" --trials "$TRIALS" --sweep "$SWEEP" \
    --json >"$OUT/resume.json" 2>"$OUT/resume.log"
  RRC=$?
  JCHECK=$($CHECK journal "$K/journal.jsonl")
  JRC=$?
  STOPS=$(grep -c '"event":"stop"' "$K/journal.jsonl")
}
kill_resume_checked() {
  kill_resume
  {
    echo
    echo "## Kill and resume ($KILL_TASK)"
    echo
    echo "- killed with SIGKILL after the first accepted round: $KILLED (journal held $LINES_BEFORE records)"
    echo "- \`--resume\`: exit $RRC; $(grep -c 'not re-evaluated' "$OUT/resume.log") recorded candidates reused, not re-evaluated"
    echo "- journal: $JCHECK; stop records: $STOPS"
  } >"$OUT/resume.md"
  if [ "$KILLED" != yes ] || [ $RRC -ne 0 ] || [ $JRC -ne 0 ] || [ "$STOPS" != 1 ]; then
    echo "- **resume check FAILED**" >>"$OUT/resume.md"
    echo 1 >"$OUT/resume.rc"
  else
    echo 0 >"$OUT/resume.rc"
  fi
}
kill_resume_checked &
KRPID=$!

one_task() {
  local t=$1 T0 RC
  T0=$(date +%s)
  "$KS" optimize "$(task_file "$t")" "${OPTS[@]}" --out "$RUNDIR/$t" --json >"$OUT/$t.json" 2>"$OUT/$t.log"
  RC=$?
  echo "$RC" >"$OUT/$t.rc"
  echo "== $t: exit $RC in $(($(date +%s) - T0)) s" | tee -a "$OUT/summary.txt"
  tail -n 3 "$OUT/$t.log"
}
TASK_PIDS=()
for t in $TASKS; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.5; done
  one_task "$t" &
  TASK_PIDS+=($!)
done
for p in "${TASK_PIDS[@]}"; do wait "$p"; done
for t in $TASKS; do
  $CHECK row "$t" "$OUT/$t.json" "$RUNDIR/$t" >>"$MD" || FAILED=1
  [ "$(cat "$OUT/$t.rc" 2>/dev/null)" = 0 ] || FAILED=1
  cp "$RUNDIR/$t/report.md" "$OUT/$t.report.md" 2>/dev/null
done

# The resume check's verdict, read once the background check has finished.
wait "$KRPID"
cat "$OUT/resume.md" >>"$MD" 2>/dev/null || echo "- **resume check did not finish**" >>"$MD"
[ "$(cat "$OUT/resume.rc" 2>/dev/null)" = 0 ] || FAILED=1
cat "$MD"
exit $FAILED
