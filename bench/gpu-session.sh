#!/usr/bin/env bash
# gpu-session.sh — everything that needs the GPU, in one go (device time is
# scarce). Run on the GPU machine from the repository root, after
# `source .device/env.sh`, with the build/ made by bench/gpu-prep.sh. Writes
# logs and figures under $OUT (default /tmp/ks-out); builds nothing.
#
#   1. the Feature Extractor on a 300-line file with the full CUDA headers there,
#      and its timing benchmark;
#   2. the Reviewer's GPU suite (bench/review/gpu_run.sh), when KS_SESSION_REVIEW=1;
#   3. every rewrite rule's positive case run original vs rewritten (bench/rules/run.sh).
set -u
ROOT=$(pwd)
B=$ROOT/build
OUT=${OUT:-/tmp/ks-out}
mkdir -p "$OUT"
# Carried trees may lose symlinks: recreate the library's SONAME link.
if [ ! -e "$B/lib/libkernelskill.so.0" ]; then
  ln -sf "$(ls "$B"/lib/libkernelskill.so.0.* | head -1)" "$B/lib/libkernelskill.so.0"
fi
export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export PATH=$B/bin:$PATH
KS=$B/bin/kernelskill
S=$OUT/summary.txt
log() { echo "== $*" | tee -a "$S"; }

log "machine"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; nproc; } >>"$S" 2>&1

log "features: 300-line file with full CUDA headers"
"$KS" features bench/inputs/features300.cu --json >"$OUT/features300.json" 2>"$OUT/features300.err"
echo "exit $?" >>"$S"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); p=d['parse']; print('kernels', len(d['kernels']), 'launches', len(d['launches']), 'errors', p['errors'], 'system_errors', p['system_errors'], 'parse_s', p['seconds'])" "$OUT/features300.json" >>"$S" 2>&1
"$KS" features examples/softmax/softmax.cu >>"$S" 2>&1

log "features: timing"
"$B/bin/bench_features" bench/inputs/features300.cu 9 | tee -a "$S"

if [ "${KS_SESSION_REVIEW:-0}" = 1 ] && [ -x bench/review/gpu_run.sh ]; then
  log "reviewer"
  OUT=$OUT/review bash bench/review/gpu_run.sh build >"$OUT/review.log" 2>&1
  cat "$OUT/review/summary.txt" >>"$S" 2>/dev/null
fi

if [ -x bench/rules/run.sh ]; then
  log "rules: original vs rewritten"
  # The GEMM cases are the slowest (naive 4096^3 seeds): last, under a time cap,
  # so a cut run still leaves every other case's result.
  cases=$(ls bench/rules/cases/*.json | xargs -n1 basename | sed 's/\.json$//' | grep -v gemm)
  gemms=$(ls bench/rules/cases/*.json | xargs -n1 basename | sed 's/\.json$//' | grep gemm)
  # shellcheck disable=SC2086
  timeout "${KS_RULES_SECONDS:-420}" bash bench/rules/run.sh --out "$OUT/rules" $cases $gemms >"$OUT/rules.log" 2>&1
  echo "exit $?" >>"$S"
  if [ ! -s "$OUT/rules/rules-gpu.md" ]; then
    python3 bench/rules/case.py table "$OUT/rules/rules-gpu.md" "$OUT"/rules/*/result.json >>"$OUT/rules.log" 2>&1
  fi
  cat "$OUT/rules/rules-gpu.md" >>"$S" 2>/dev/null
fi
log "done"
