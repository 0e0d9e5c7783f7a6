#!/bin/bash
# run.sh — GPU verification of the rewrite rules (issue 4): for every case in
# bench/rules/cases/*.json, apply its rule(s) to its seed with `kernelskill rewrite`,
# then let the Reviewer (`kernelskill bench --candidate`) check the rewritten kernel
# against the seed on random inputs and time both; print and write the table.
#
#   bench/rules/run.sh [--no-gpu] [--kernelskill PATH] [--out DIR] [--runs N]
#                      [--jobs N] [--arch SM] [--metrics] [CASE...]
#
# Run from the repository root. CASE: a case name (file stem under cases/) or a case
# file; default: all. Uses the prebuilt tree (default build/bin/kernelskill) and
# compiles none of our C code; nvcc compiles the kernels.
#
# Every case is first validated (the task checks, each rule applies and changes the
# file, seed and rewritten source compile with nvcc -c). Then, with a GPU, each valid
# case is benched in turn; one failing case does not stop the others. Output (DIR:
# --out, else $OUT, else /tmp/ks-rules): DIR/rules-gpu.md (the table), rules-gpu.json
# (one record per case), DIR/<case>/ (rewritten.cu, evidence.json, logs).
#
# Exit: 0 every case valid (and, with a GPU, every rewritten kernel correct); 1 a case
# is invalid, or a rewritten kernel is wrong or failed; 2 usage, or no CUDA device
# (after validating every case: "no CUDA device").
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=${PYTHON:-python3}
KS=build/bin/kernelskill
NVCC=${NVCC:-nvcc}
ARCH=sm_90
OUTDIR=${OUT:-/tmp/ks-rules}
NO_GPU=0
RUNS=
METRICS=0
JOBS=$(nproc 2>/dev/null || echo 2)
CASES=()

usage() {
  sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
  --no-gpu) NO_GPU=1 ;;
  --metrics) METRICS=1 ;;
  --kernelskill) [ $# -ge 2 ] || usage; KS=$2; shift ;;
  --out) [ $# -ge 2 ] || usage; OUTDIR=$2; shift ;;
  --runs) [ $# -ge 2 ] || usage; RUNS=$2; shift ;;
  --jobs) [ $# -ge 2 ] || usage; JOBS=$2; shift ;;
  --arch) [ $# -ge 2 ] || usage; ARCH=$2; shift ;;
  -h | --help) usage ;;
  -*) echo "run.sh: unknown option '$1'" >&2; usage ;;
  *) CASES+=("$1") ;;
  esac
  shift
done
case "$RUNS" in '' | [0-9]*) ;; *) echo "run.sh: --runs needs a number" >&2; exit 2 ;; esac
case "$JOBS" in [1-9]*) ;; *) echo "run.sh: --jobs needs a number >= 1" >&2; exit 2 ;; esac

if [ ! -x "$KS" ]; then
  echo "run.sh: $KS not found (build first, or pass --kernelskill PATH)" >&2
  exit 2
fi
KS=$(cd "$(dirname "$KS")" && pwd)/$(basename "$KS")
command -v "$PY" >/dev/null 2>&1 || { echo "run.sh: python3 not found" >&2; exit 2; }
TMPW=$(mktemp -d "${TMPDIR:-/tmp}/ks-rules.XXXXXX") || exit 2
trap 'rm -rf "$TMPW"' EXIT
# Can kernelskill parse CUDA here? On the GPU machine libclang comes from the
# carried .device/ packages (bench/review/gpu_run.sh does the same by hand).
printf '__global__ void ks_probe(float *p) { p[threadIdx.x] = 1.0f; }\n' >"$TMPW/probe.cu"
if ! "$KS" features "$TMPW/probe.cu" >/dev/null 2>&1 && [ -f .device/env.sh ]; then
  # shellcheck disable=SC1091
  source .device/env.sh
fi
if ! "$KS" features "$TMPW/probe.cu" >/dev/null 2>&1; then
  echo "run.sh: $KS cannot parse CUDA here:" >&2
  "$KS" features "$TMPW/probe.cu" 2>&1 | head -3 >&2
  exit 2
fi
if ! command -v "$NVCC" >/dev/null 2>&1; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then NVCC=/usr/local/cuda/bin/nvcc
  else echo "run.sh: nvcc not found (set NVCC)" >&2; exit 2
  fi
fi

# The cases, as files.
FILES=()
if [ ${#CASES[@]} -eq 0 ]; then
  for f in "$HERE"/cases/*.json; do FILES+=("$f"); done
else
  for c in "${CASES[@]}"; do
    if [ -f "$c" ]; then FILES+=("$(cd "$(dirname "$c")" && pwd)/$(basename "$c")")
    elif [ -f "$HERE/cases/$c.json" ]; then FILES+=("$HERE/cases/$c.json")
    else echo "run.sh: no case '$c' (looked for $c and $HERE/cases/$c.json)" >&2; exit 2
    fi
  done
fi
mkdir -p "$OUTDIR" || exit 2
OUTDIR=$(cd "$OUTDIR" && pwd)

name_of() { basename "$1" .json; }

# compile FILE.cu: nvcc -c with the flags of its kernelskill-flags line.
compile() {
  local flags
  flags=$("$PY" "$HERE/case.py" flags "$1")
  echo "\$ nvcc -c -arch=$ARCH $flags $(basename "$1")"
  # shellcheck disable=SC2086
  "$NVCC" -c -arch="$ARCH" $flags "$1" -o "${1%.cu}.o"
}

# validate CASEFILE: prepare, task check, rewrite chain, nvcc -c. Writes
# $TMPW/<case>/{validate.log,valid}; the log's last line says what failed.
validate() {
  local f=$1 n w cur i=0 line kernel rule skill out flags
  n=$(name_of "$f")
  w=$TMPW/$n
  mkdir -p "$w"
  exec >"$w/validate.log" 2>&1
  "$PY" "$HERE/case.py" prepare "$f" "$w" || { echo "FAIL: bad case file"; return 1; }
  "$KS" task check "$w/task.json" || { echo "FAIL: the task does not check"; return 1; }
  cur=$w/seed.cu
  while IFS= read -r line; do
    i=$((i + 1))
    local -a fields=() args=()
    IFS=$'\t' read -r -a fields <<<"$line"
    kernel=${fields[0]}
    rule=${fields[1]}
    skill=${fields[2]:-}
    args=(--kernel "$kernel" --rule "$rule")
    [ -n "$skill" ] && args+=(--skill "$skill")
    for p in "${fields[@]:3}"; do args+=(--param "$p"); done
    out=$w/step$i.cu
    echo "\$ kernelskill rewrite $(basename "$cur") ${args[*]} -o $(basename "$out")"
    if ! "$KS" rewrite "$cur" "${args[@]}" -o "$out"; then
      echo "FAIL: rule $rule (step $i) does not apply"
      return 1
    fi
    if [ ! -f "$out" ] || cmp -s "$cur" "$out"; then
      echo "FAIL: rule $rule (step $i) changed nothing"
      return 1
    fi
    cur=$out
  done <"$w/steps.tsv"
  cp "$cur" "$w/rewritten.cu"
  compile "$w/rewritten.cu" || { echo "FAIL: the rewritten source does not compile"; return 1; }
  # Cases share seeds: the first case to reach a seed compiles it, the others wait.
  local key lock
  key=$(cksum <"$w/seed.cu" | tr ' ' '-')
  lock=$TMPW/.seed-$key
  if mkdir "$lock" 2>/dev/null; then
    compile "$w/seed.cu"
    echo $? >"$lock/rc.tmp" && mv "$lock/rc.tmp" "$lock/rc"
  else
    echo "(seed compiled by another case)"
    while [ ! -f "$lock/rc" ]; do sleep 0.2; done
  fi
  [ "$(cat "$lock/rc")" = 0 ] || { echo "FAIL: the seed source does not compile"; return 1; }
  echo "valid"
  touch "$w/valid"
  return 0
}

echo "== validating ${#FILES[@]} case(s) (rules apply, tasks check, nvcc -c -arch=$ARCH)"
n_run=0
for f in "${FILES[@]}"; do
  (validate "$f") &
  n_run=$((n_run + 1))
  if [ "$n_run" -ge "$JOBS" ]; then
    wait -n
    n_run=$((n_run - 1))
  fi
done
wait
n_bad=0
VALID=()
for f in "${FILES[@]}"; do
  n=$(name_of "$f")
  mkdir -p "$OUTDIR/$n"
  cp "$TMPW/$n/validate.log" "$OUTDIR/$n/" 2>/dev/null
  [ -f "$TMPW/$n/rewritten.cu" ] && cp "$TMPW/$n/rewritten.cu" "$OUTDIR/$n/"
  if [ -f "$TMPW/$n/valid" ]; then
    echo "ok    $n"
    VALID+=("$f")
  else
    n_bad=$((n_bad + 1))
    echo "FAIL  $n: $(tail -n 1 "$TMPW/$n/validate.log" 2>/dev/null)"
    sed 's/^/      /' "$TMPW/$n/validate.log" 2>/dev/null | tail -n 15
  fi
done
echo "== ${#VALID[@]} of ${#FILES[@]} case(s) valid"
# Which rules have no case among those validated (adding a case is adding a file).
"$KS" rewrite --list --json | "$PY" -c '
import json, sys
rules = [r["id"] for r in json.load(sys.stdin)["rules"]]
used = set()
for p in sys.argv[1:]:
    try:
        used.update(l.split("\t")[1] for l in open(p) if "\t" in l)
    except OSError:
        pass
missing = [r for r in rules if r not in used]
print("== rules with a case: %s" % (" ".join(r for r in rules if r in used) or "none"))
print("== rules without a case: %s" % (" ".join(missing) or "none"))
' "$TMPW"/*/steps.tsv

if [ "$NO_GPU" = 1 ]; then
  [ "$n_bad" -eq 0 ] && exit 0 || exit 1
fi

# The GPU part.
HARNESS=$(dirname "$KS")/ks-harness
LD_LIBRARY_PATH=$(dirname "$(dirname "$KS")")/lib:/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
if ! info=$("$HARNESS" info 2>&1); then
  echo "run.sh: no CUDA device: GPU verification skipped ($(echo "$info" | head -n 1))" >&2
  [ "$n_bad" -eq 0 ] && exit 2 || exit 1
fi
echo "== device: $info"
RESULTS=()
n_fail=0
for f in "${VALID[@]}"; do
  n=$(name_of "$f")
  w=$TMPW/$n
  args=(--candidate "$w/rewritten.cu" --json -o "$w/evidence.json" --work "$w/review")
  [ "$METRICS" = 1 ] || args+=(--no-metrics)
  while IFS= read -r a; do args+=("$a"); done <"$w/bench.args"
  [ -n "$RUNS" ] && args+=(--runs "$RUNS")
  echo "== $n: kernelskill bench task.json ${args[*]}"
  t0=$(date +%s)
  "$KS" bench "$w/task.json" "${args[@]}" >/dev/null 2>"$w/bench.stderr"
  rc=$?
  echo "   exit $rc after $(($(date +%s) - t0)) s"
  "$PY" "$HERE/case.py" result "$f" "$w" "$w/evidence.json" "$OUTDIR/$n/result.json" ||
    echo "   (no result record)"
  [ "$rc" -eq 0 ] || n_fail=$((n_fail + 1))
  cp "$w/bench.stderr" "$OUTDIR/$n/" 2>/dev/null
  cp "$w/evidence.json" "$OUTDIR/$n/" 2>/dev/null
  [ -f "$OUTDIR/$n/result.json" ] && RESULTS+=("$OUTDIR/$n/result.json")
  rm -rf "$w/review" # the kept outputs: hundreds of MB per case
done
if [ ${#RESULTS[@]} -gt 0 ]; then
  "$PY" "$HERE/case.py" table "$OUTDIR/rules-gpu.md" "${RESULTS[@]}"
  "$PY" -c 'import json,sys; json.dump([json.load(open(p)) for p in sys.argv[2:]], open(sys.argv[1], "w"), indent=2)' \
    "$OUTDIR/rules-gpu.json" "${RESULTS[@]}"
  echo "== wrote $OUTDIR/rules-gpu.md and $OUTDIR/rules-gpu.json"
fi
[ "$n_bad" -eq 0 ] && [ "$n_fail" -eq 0 ] && exit 0
exit 1
