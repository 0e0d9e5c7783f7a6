#!/usr/bin/env bash
# bench/stencil/run.sh BUILD OUT [--compile-only] -- the corpus' stencil tasks
# (Sobel on 8 bits, polybench's 3x3 convolution, fdtd's third step, Jacobi
# 5-point, a cross blur with zero padding by selections, a 3x3 box blur with
# indices clamped to the edge, a 5x5 blur with clamped coordinates declared in the
# loops, the PMPP convolution with zero padding by an if in the mask loops;
# over a 1-D launch's flat index: a Laplacian with the border copied in an else,
# an 8-bit Sobel with an exit, a 3x3 box in a grid-stride loop)
# rewritten by rule
# vectorize (rows of neighbours read once into
# registers, docs/rules/vectorize.md), each reviewed by `kernelskill bench`
# against its seed in one process per task: correctness on fresh inputs, then
# seed, candidate and seed again timed with a cold L2, and the roofline place.
# Prints per task the verdict, the times, the speedup and the roofline place, and
# leaves the candidates, evidence records and tables under OUT. With
# --compile-only (no GPU) it checks that every candidate builds in the harness.
# TASKS (task:kernel words) picks tasks; PARAMS adds rule parameters
# (PARAMS="--param fallback=thread" for the per-thread fallback).
set -euo pipefail
BUILD=${1:?usage: run.sh BUILD OUT [--compile-only]}
OUT=${2:?usage: run.sh BUILD OUT [--compile-only]}
MODE=${3:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KS=$BUILD/bin/kernelskill
IN=$ROOT/test/corpus/Inputs
mkdir -p "$OUT"
# task kernel (the manifests' "tasks" map)
TASKS=${TASKS:-"sobel:sobelNaive conv2d:Convolution2D_kernel fdtd_hz:fdtd_step3_kernel jacobi2d:jacobi2d_kernel cross_blur:cross_blur_zero box_blur:box_blur_clamp blur5_local:blur5_clamp_local pmpp_conv:convolution_2D_const_mem smooth_rows:smooth_rows_replicate mean5x5:mean5x5_skip laplace_flat:laplace_flat sobel_flat:sobel_flat_u8 box_gs:box3_gridstride"}
PARAMS=${PARAMS:-}
rc=0
for tk in $TASKS; do
  t=${tk%%:*} k=${tk#*:}
  src=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['source'])" "$IN/$t.task.json")
  mkdir -p "$OUT/$t"
  if ! "$KS" rewrite "$IN/$src" --kernel "$k" --rule vectorize --skill mem.stencil-register-window $PARAMS \
      -o "$OUT/$t/$src" > "$OUT/$t/rewrite.log" 2>&1; then
    echo "$t: rule vectorize refused: $(tail -1 "$OUT/$t/rewrite.log")"; rc=1; continue
  fi
  if [ "$MODE" = --compile-only ]; then
    if "$KS" bench "$IN/$t.task.json" --candidate "$OUT/$t/$src" --compile-only > "$OUT/$t/bench.txt" 2>&1; then
      echo "$t: candidate builds"
    else
      echo "$t: candidate does not build (see $OUT/$t/bench.txt)"; rc=1
    fi
    continue
  fi
  if ! "$KS" bench "$IN/$t.task.json" --candidate "$OUT/$t/$src" --runs 50 -o "$OUT/$t/evidence.json" \
      > "$OUT/$t/bench.txt" 2>&1; then
    echo "$t: review failed (see $OUT/$t/bench.txt)"; rc=1; continue
  fi
  echo "== $t ($k)"
  grep -E "^(verdict|reason|speedup|roofline|kernel )" "$OUT/$t/bench.txt" || tail -5 "$OUT/$t/bench.txt"
done
exit $rc
