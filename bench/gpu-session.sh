#!/usr/bin/env bash
# gpu-session.sh — everything that needs the GPU, in one go (device time is
# scarce). Run on the GPU machine from the repository root, after
# `source .device/env.sh`, with the build/ made by bench/gpu-prep.sh. Writes
# logs and figures under $OUT (default /tmp/ks-out); builds nothing.
#
# KS_SESSION_PARTS picks the parts (default "features rules"), any of:
#   features  the Feature Extractor on a 300-line file with the full CUDA
#             headers there, and its timing benchmark;
#   review    the Reviewer's GPU suite (bench/review/gpu_run.sh);
#   rules     the rewrite rules' positive cases, original vs rewritten
#             (bench/rules/run.sh; KS_RULES_CASES narrows the cases);
#   loop      `kernelskill optimize` on six seeds plus kill/resume (bench/loop/run.sh);
#   example   examples/cmake built three ways and each build's program run;
#   litgpu    the lit tests marked `REQUIRES: gpu` outside test/review;
#   suite     the benchmark suite (bench/run-suite);
#   capture   program mode end to end (test/capture/run-gpu.sh), after litgpu;
#   corpus    the shape corpus's task files through the loop (bench/corpus/gpu.sh);
#   gemm      the GEMM template's sweep against cuBLAS (build/xbench/gemm_sweep);
#   three     a CMake project built three ways (bench/build-three-ways), first
#             and alone: it times CPU work.
# Parts run concurrently where they can: the Reviewer's GPU lock keeps their
# timed GPU work apart.
set -u
ROOT=$(pwd)
B=$ROOT/build
OUT=${OUT:-/tmp/ks-out}
PARTS=" ${KS_SESSION_PARTS:-features rules} "
mkdir -p "$OUT"
# Carried trees may lose symlinks: recreate the library's SONAME link.
if [ ! -e "$B/lib/libkernelskill.so.0" ]; then
  ln -sf "$(ls "$B"/lib/libkernelskill.so.0.* | head -1)" "$B/lib/libkernelskill.so.0"
fi
export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export PATH=$B/bin:$PATH
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/ks-cache}
KS=$B/bin/kernelskill
S=$OUT/summary.txt
log() { echo "== $*" | tee -a "$S"; }
want() { case "$PARTS" in *" $1 "*) return 0 ;; esac; return 1; }
# The Reviewer's lock file (lib/review/review.c): programs we time ourselves take it too.
GPU_LOCK=${KS_GPU_LOCK:-/tmp/kernelskill-gpu-$(id -u)-$(echo "${CUDA_VISIBLE_DEVICES:-all}" | tr -c 'A-Za-z0-9\n' _).lock}

log "machine"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; nproc; } >>"$S" 2>&1

if want features; then
log "features: 300-line file with full CUDA headers"
"$KS" features bench/inputs/features300.cu --json >"$OUT/features300.json" 2>"$OUT/features300.err"
echo "exit $?" >>"$S"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); p=d['parse']; print('kernels', len(d['kernels']), 'launches', len(d['launches']), 'errors', p['errors'], 'system_errors', p['system_errors'], 'parse_s', p['seconds'])" "$OUT/features300.json" >>"$S" 2>&1
"$KS" features examples/softmax/softmax.cu >>"$S" 2>&1

log "features: timing"
"$B/bin/bench_features" bench/inputs/features300.cu 9 | tee -a "$S"
fi

if want review; then
  log "reviewer"
  OUT=$OUT/review bash bench/review/gpu_run.sh build >"$OUT/review.log" 2>&1
  cat "$OUT/review/summary.txt" >>"$S" 2>/dev/null
fi

rules_part() {
  log "rules: original vs rewritten"
  # The GEMM cases are the slowest (naive 4096^3 seeds): last, under a time cap,
  # so a cut run still leaves every other case's result.
  cases=$(ls bench/rules/cases/*.json | xargs -n1 basename | sed 's/\.json$//' | grep -v gemm)
  gemms=$(ls bench/rules/cases/*.json | xargs -n1 basename | sed 's/\.json$//' | grep gemm)
  if [ -n "${KS_RULES_CASES:-}" ]; then cases=$KS_RULES_CASES; gemms=; fi
  # shellcheck disable=SC2086
  timeout "${KS_RULES_SECONDS:-420}" bash bench/rules/run.sh --jobs 8 --out "$OUT/rules" $cases $gemms >"$OUT/rules.log" 2>&1
  echo "exit $?" >>"$S"
  if [ ! -s "$OUT/rules/rules-gpu.md" ]; then
    python3 bench/rules/case.py table "$OUT/rules/rules-gpu.md" "$OUT"/rules/*/result.json >>"$OUT/rules.log" 2>&1
  fi
  cat "$OUT/rules/rules-gpu.md" >>"$S" 2>/dev/null
}

loop_part() {
  log "loop: optimize on six seeds, kill and resume"
  OUT=$OUT/loop timeout "${KS_LOOP_SECONDS:-480}" bash bench/loop/run.sh "$OUT/loop.md" build >"$OUT/loop.log" 2>&1
  echo "loop exit $?" >>"$S"
  cat "$OUT/loop.md" >>"$S" 2>/dev/null
}

example_part() {
  log "example: examples/cmake built three ways, each program run"
  sh examples/cmake/build-three-ways.sh /tmp/ks-example "$B/bin" >"$OUT/example.log" 2>&1
  echo "build-three-ways exit $?" >>"$S"
  tail -n 8 "$OUT/example.log" >>"$S"
  for name in plain compiler launcher; do
    for i in 1 2 3; do
      echo "-- $name run $i" >>"$OUT/example-runs.txt"
      flock "$GPU_LOCK" /tmp/ks-example/$name/ks_example >>"$OUT/example-runs.txt" 2>&1
    done
  done
  cat "$OUT/example-runs.txt" >>"$S"
}

site_cfg() {
  sed -e "s|/work/main|$ROOT|g" -e "s|^config.llvm_bin_dir = .*|config.llvm_bin_dir = \"$B/tools\"|" \
    -e "s|^config.python = .*|config.python = \"$(command -v python3)\"|" "$B/test/lit.site.cfg.py" >/tmp/ks-site.cfg.py
}

litgpu_part() {
  log "lit: GPU tests outside test/review"
  site_cfg
  dirs=$(grep -l "REQUIRES: gpu" -r test --include=*.test --include=*.cu | grep -v '^test/review/' | xargs -r -n1 dirname | sort -u)
  files=$(grep -l "REQUIRES: gpu" -r test --include=*.test --include=*.cu | grep -v '^test/review/')
  # The capture part runs test/capture's GPU tests itself: never twice at once
  # (both runs would share one %t).
  want capture && files=$(echo "$files" | grep -v '^test/capture/')
  # shellcheck disable=SC2086
  KS_GPU_TESTS=1 timeout "${KS_LIT_SECONDS:-400}" python3 "$B/tools/lit/lit.py" -v -j 4 --param site=/tmp/ks-site.cfg.py $files \
    >"$OUT/litgpu.txt" 2>&1
  echo "lit exit $? ($dirs)" >>"$S"
  grep -E "^(PASS|FAIL|UNSUPPORTED|XFAIL|UNRESOLVED)|Passed|Failed|Unsupported" "$OUT/litgpu.txt" >>"$S"
}

suite_part() {
  log "suite: bench/run-suite"
  # run-suite keeps its own deadline (--deadline, default 540 s) and packs its
  # outputs for $OUT (--export: results at their repository paths, logs).
  # shellcheck disable=SC2086
  timeout "${KS_SUITE_SECONDS:-580}" bench/run-suite --export "$OUT" ${KS_SUITE_ARGS:-} >"$OUT/suite.log" 2>&1
  echo "run-suite exit $?" >>"$S"
  tail -n 40 "$OUT/suite.log" >>"$S"
}

capture_part() {
  log "capture: program mode end to end"
  site_cfg
  LIT=$B/tools/lit/lit.py SITE=/tmp/ks-site.cfg.py timeout "${KS_CAPTURE_SECONDS:-420}" \
    bash test/capture/run-gpu.sh "$B" /tmp/ks-capture-gpu >"$OUT/capture.log" 2>&1
  echo "capture exit $?" >>"$S"
  tail -n 30 "$OUT/capture.log" >>"$S"
}

corpus_part() {
  log "corpus: the shape corpus's tasks through the offline loop (bench/corpus/gpu.sh)"
  timeout "${KS_CORPUS_SECONDS:-420}" bash bench/corpus/gpu.sh "$B" "$OUT/corpus" >"$OUT/corpus.log" 2>&1
  echo "corpus exit $?" >>"$S"
  tail -n 60 "$OUT/corpus.log" >>"$S"
}

gemm_part() {
  log "gemm: the GEMM template's sweep against cuBLAS (bench/gemm)"
  bin=${KS_GEMM_SWEEP:-$B/xbench/gemm_sweep}
  [ -x "$bin" ] || { echo "no $bin: build bench/gemm first" >>"$S"; return; }
  # shellcheck disable=SC2086
  timeout "${KS_GEMM_SECONDS:-240}" "$bin" ${KS_GEMM_ARGS:---sizes 1024,2048,4096,4000 --reps 10} >"$OUT/gemm.txt" 2>&1
  echo "gemm exit $?" >>"$S"
  grep -E "^==|cublasSgemm NN|ratio" "$OUT/gemm.txt" | head -n 80 >>"$S"
}

three_part() {
  # Not concurrent with anything: it times builds (CPU), and the others load the CPU.
  log "three-way build: plain nvcc, kernelskill-nvcc as the compiler, as the launcher"
  timeout "${KS_THREE_SECONDS:-300}" python3 bench/build-three-ways/run.py --bin "$B/bin" --rounds "${KS_THREE_ROUNDS:-3}" \
    >"$OUT/three.txt" 2>&1
  echo "three-way exit $?" >>"$S"
  tail -n 20 "$OUT/three.txt" >>"$S"
}

want three && three_part

# Concurrent parts: the Reviewer's lock serializes their GPU children.
pids=()
want rules && { rules_part & pids+=($!); }
want loop && { loop_part & pids+=($!); }
want suite && { suite_part & pids+=($!); }
want litgpu && { litgpu_part & pids+=($!); }
want capture && { capture_part & pids+=($!); }
want example && { example_part & pids+=($!); }
want corpus && { corpus_part & pids+=($!); }
want gemm && { gemm_part & pids+=($!); }
for p in "${pids[@]}"; do wait "$p"; done
log "done"
