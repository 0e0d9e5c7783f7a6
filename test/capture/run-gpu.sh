#!/usr/bin/env bash
# run-gpu.sh — program mode end to end on a GPU, printing every command and
# what it gave, then a table of the steps (docs/capture.md, "The flow"):
#   0. the GPU lit tests of test/capture (KS_GPU_TESTS=1)
#   1. build examples/capture (a copy, in WORK) with nvcc and run it
#   2. kernelskill capture it: index, ranking, one task per kernel
#   3. kernelskill optimize --commit the top kernels' tasks (no file written by hand)
#   4. kernelskill capture --promote: the verified versions for the program's files
#   5. rebuild with kernelskill-nvcc, run: the same result, and the times
#   6. capture both builds at two other sizes, every launch, and --compare them
# usage: bash test/capture/run-gpu.sh [BUILD_DIR [WORK_DIR]]
#   (defaults: ./build, a new /tmp/ks-capture-gpu.XXXXXX; env TOP=2 kernels to
#   optimize, ROUNDS=4, SIZE="2048 2048 20")
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
WORK=${2:-$(mktemp -d /tmp/ks-capture-gpu.XXXXXX)}
mkdir -p "$WORK" && WORK=$(cd "$WORK" && pwd)
KS=$BUILD/bin/kernelskill
KSNVCC=$BUILD/bin/kernelskill-nvcc
TOP=${TOP:-2}
ROUNDS=${ROUNDS:-4}
SIZE=${SIZE:-2048 2048 20}
export PATH=$BUILD/bin:/usr/local/cuda/bin:$PATH
unset KS_STORE KS_MODE
declare -a STEPS
note() { STEPS+=("$1|$2"); }
say() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$*" >&2; "$@"; local rc=$?; printf '(exit %d)\n' "$rc" >&2; return $rc; }

echo "root $ROOT, build $BUILD, work $WORK"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null

say "0. GPU lit tests of test/capture"
# LIT and SITE may be given (the GPU machine has no llvm-19: bench/gpu-session.sh
# passes the build's copy of lit and a site config with its paths).
LIT=${LIT:-$(grep -o '[^ "]*lit\.py' "$BUILD/test/CTestTestfile.cmake" | head -1)}
SITE=${SITE:-$BUILD/test/lit.site.cfg.py}
if KS_GPU_TESTS=1 run python3 "$LIT" -sv --param site="$SITE" "$ROOT/test/capture" 2>&1 | tail -40; then
  note "lit test/capture (KS_GPU_TESTS=1)" ok
else note "lit test/capture (KS_GPU_TESTS=1)" FAILED; fi

say "1. build the example with nvcc and run it"
rm -rf "$WORK/proj" && mkdir -p "$WORK/proj" && cp -r "$ROOT/examples/capture/src" "$ROOT/examples/capture/Makefile" "$WORK/proj/"
if run make -s -C "$WORK/proj" BUILD="$WORK/proj/build-nvcc" && run "$WORK/proj/build-nvcc/capture_demo" $SIZE | tee "$WORK/before.txt"; then
  note "nvcc build, run ($SIZE)" "$(grep -h '^check\|^pipeline' "$WORK/before.txt" | tr '\n' ' ')"
else note "nvcc build, run" FAILED; fi

say "2. capture"
rm -rf "$WORK/cap"
if run "$KS" capture -o "$WORK/cap" --source "$WORK/proj/src/stencil.cu" --source "$WORK/proj/src/reduce.cu" -- \
  "$WORK/proj/build-nvcc/capture_demo" $SIZE; then
  note "capture" "ok: $(ls "$WORK/cap/tasks" 2>/dev/null | tr '\n' ' ')"
else note "capture" FAILED; fi
for t in "$WORK"/cap/tasks/*/; do
  k=$(basename "$t")
  if run "$KS" task check "$t/$k.json" >/dev/null; then note "task check $k" ok; else note "task check $k" FAILED; fi
done

say "3. optimize the top $TOP kernels by GPU time, --commit"
KERNELS=$(awk 'NR>1 && $1 ~ /^[0-9]+$/ {print $5}' "$WORK/cap/summary.txt" 2>/dev/null | sed 's/[(<].*//; s/.*:://' | head -"$TOP")
echo "top kernels: $KERNELS"
for k in $KERNELS; do
  task="$WORK/cap/tasks/$k/$k.json"
  mkdir -p "$WORK/runs"
  if (cd "$WORK" && run "$KS" optimize "$task" --commit --rounds "$ROUNDS" --out "$WORK/runs/$k" --json \
      > "$WORK/runs/$k.json" 2> "$WORK/runs/$k.log"); then
    tail -15 "$WORK/runs/$k.log"
    sp=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r.get('speedup', '?'), 'stored' if r.get('commit',{}).get('stored') else 'not stored')" "$WORK/runs/$k.json" 2>/dev/null)
    note "optimize $k --commit" "ok: speedup ${sp:-?} ($WORK/runs/$k/report.md)"
  else tail -15 "$WORK/runs/$k.log"; note "optimize $k --commit" "FAILED ($WORK/runs/$k.log)"; fi
  say "4. promote $k"
  if (cd "$WORK" && run "$KS" capture --promote "$WORK/cap/tasks/$k" --store "$WORK/proj/.kernelskill/store"); then
    note "promote $k" ok
  else note "promote $k" "FAILED (nothing committed? see above)"; fi
done

say "5. rebuild with kernelskill-nvcc and run"
if run make -s -C "$WORK/proj" BUILD="$WORK/proj/build-ks" NVCC="$KSNVCC" 2>&1 | tail -20 &&
  run "$WORK/proj/build-ks/capture_demo" $SIZE | tee "$WORK/after.txt"; then
  b=$(grep '^checksum' "$WORK/before.txt"); a=$(grep '^checksum' "$WORK/after.txt")
  note "kernelskill-nvcc build, run" "$(grep -h '^check\|^pipeline' "$WORK/after.txt" | tr '\n' ' ')"
  note "same result" "$([ -n "$a" ] && grep -q '^check: OK' "$WORK/after.txt" && echo "yes: before $b, after $a" || echo "NO: before $b, after $a")"
  note "end to end" "before: $(grep '^pipeline' "$WORK/before.txt") / after: $(grep '^pipeline' "$WORK/after.txt")"
else note "kernelskill-nvcc build, run" FAILED; fi

say "6. compare every launch at other sizes"
for sz in "256 512 3" "300 700 2"; do
  tag=$(echo "$sz" | tr ' ' _)
  rm -rf "$WORK/cmp-a-$tag" "$WORK/cmp-b-$tag"
  run "$KS" capture -o "$WORK/cmp-a-$tag" --all-launches --no-tasks -- "$WORK/proj/build-nvcc/capture_demo" $sz >/dev/null 2>&1
  run "$KS" capture -o "$WORK/cmp-b-$tag" --all-launches --no-tasks -- "$WORK/proj/build-ks/capture_demo" $sz >/dev/null 2>&1
  run "$KS" capture --compare "$WORK/cmp-a-$tag" "$WORK/cmp-b-$tag" > "$WORK/cmp-$tag.txt"
  rc=$?
  tail -8 "$WORK/cmp-$tag.txt"
  note "compare at $sz" "$([ $rc = 0 ] && echo ok || echo FAILED): $(tail -1 "$WORK/cmp-$tag.txt")"
done

say "summary (work folder $WORK)"
for s in "${STEPS[@]}"; do printf '  %-40s %s\n' "${s%%|*}" "${s#*|}"; done
