#!/bin/bash
# gpu_run.sh — everything of the Reviewer that needs the GPU, in one go (GPU
# time is scarce): the lit GPU suite (each bad candidate caught with its
# reason), timing stability (the same kernel timed twice; a 10% slower variant
# ranked slower every time), and CUPTI against `ncu --clock-control none` for a
# memory-bound and a compute-bound kernel. Run from the repository root on the
# GPU machine, after `source .device/env.sh`; logs go to $OUT (default /tmp/ks-gpu).
#
#   bench/review/gpu_run.sh [BUILD_DIR]      (BUILD_DIR default: build-review)
set -u
ROOT=$(pwd)
B=$ROOT/${1:-build-review}
OUT=${OUT:-/tmp/ks-gpu}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export KS_GPU_TESTS=1 XDG_CACHE_HOME=/tmp/ks-cache
KS=$B/bin/kernelskill
I=$ROOT/test/review/Inputs
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }

log "device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >>"$OUT/summary.txt" 2>&1
"$B/bin/ks-harness" info | tee -a "$OUT/summary.txt"

# Build the fixtures' seed and reference once, before lit runs tests in parallel.
$KS bench "$I/vadd_small.json" --compile-only --arch sm_90 >/dev/null 2>&1

log "lit GPU suite (test/review, test/task)"
if [ -d "$B/tools/lit" ]; then
  sed -e "s|/work/main|$ROOT|g" -e "s|^config.llvm_bin_dir = .*|config.llvm_bin_dir = \"$B/tools\"|" -e "s|^config.python = .*|config.python = \"$(command -v python3)\"|" \
    "$B/test/lit.site.cfg.py" >/tmp/ks-site.cfg.py
  python3 "$B/tools/lit/lit.py" -v -j 4 --param site=/tmp/ks-site.cfg.py test/review test/task \
    >"$OUT/lit.txt" 2>&1
  grep -E "^(PASS|FAIL|UNSUPPORTED|XFAIL|UNRESOLVED)|Passed|Failed|Unsupported" "$OUT/lit.txt" | tee -a "$OUT/summary.txt"
fi

log "each bad candidate (verdict and reason)"
for c in bad_wrong bad_half bad_zeros bad_mutate bad_oob bad_hang bad_segv bad_stream bad_sticky bad_trap; do
  echo "-- $c" >>"$OUT/summary.txt"
  $KS bench "$I/vadd_small.json" --candidate "$I/$c.cu" --no-metrics --timeout 10 2>&1 | head -2 >>"$OUT/summary.txt"
done

log "timing stability: the seed timed twice in one run (vadd 2^24, fma 2^23, softmax 4096^2)"
for t in vadd fma softmax; do
  rm -f "$OUT/ev_$t.json"
  $KS bench "$I/$t.json" --json -o "$OUT/ev_$t.json" >/dev/null 2>"/tmp/ks-err_$t.txt"
  python3 -c "import json,sys; e=json.load(open(sys.argv[1])); t=e['timing']; print(sys.argv[2], 'seed %.2f us, again %.2f us, noise %.3f%%, iqr %.2f us' % (t['seed']['median_us'], t['seed_again']['median_us'], t['noise_pct'], t['seed']['iqr_us']))" "$OUT/ev_$t.json" $t | tee -a "$OUT/summary.txt"
done

log "10% slower variant, 5 separate runs"
for r in 1 2 3 4 5; do
  $KS bench "$I/vadd.json" --candidate "$I/slow10.cu" --no-metrics | grep -E "^(verdict|reason)" | tr '\n' ' ' | tee -a "$OUT/summary.txt"
  echo | tee -a "$OUT/summary.txt"
done

log "CUPTI (in-process) vs ncu --clock-control none"
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum
for t in vadd:vadd_kernel fma:fma_kernel; do
  task=${t%%:*}
  kern=${t##*:}
  W=/tmp/ks-work-$task
  rm -rf "$W"
  KS_NO_BUILD_CACHE=1 $KS bench "$I/$task.json" --work "$W" --runs 50 >/dev/null 2>&1
  ncu --clock-control none --metrics $M --csv -k "regex:^$kern" --launch-skip 1 --launch-count 1 \
    "$B/bin/ks-harness" profile "$W/task.spec" "$W/seed.so" >"$OUT/ncu_$task.csv" 2>"/tmp/ks-ncu_${task}_err.txt"
  grep -E "^==(ERROR|WARNING)==" "/tmp/ks-ncu_${task}_err.txt" "$OUT/ncu_$task.csv" | head -5 >>"$OUT/summary.txt"
  python3 "$ROOT/bench/review/ncu_agree.py" "$OUT/ev_$task.json" "$OUT/ncu_$task.csv" | tee -a "$OUT/summary.txt"
done
python3 -c "import json,sys; [print(f, json.load(open(f)).get('notes')) for f in sys.argv[1:]]" "$OUT"/ev_*.json >>"$OUT/summary.txt" 2>&1
log "done"
