#!/usr/bin/env bash
# rule_bench.sh — the conv-igemm rule's rewrites of the suite's conv2d_3x3 seed against the
# seed and cuDNN FP32, one process. Run from the repository root; needs nvcc and a built
# kernelskill (KS, default build/bin/kernelskill); cuDNN when its header and library are
# found (else the comparison is PyTorch's: bench/run-suite --tasks conv2d_3x3). stdout only
# (stderr merged); about a minute (one nvcc build, then seconds of GPU).
# conv_tiled.cu = bench/conv/rule_rewrite.sh's output, made here first (test/rewrite/
# conv-igemm-bench.test makes and builds it too). ptxas's spill lines are printed per kernel.
# Exit status: the worse of the two conv_bench runs' (0 bitwise, 1 a mismatch, 2 a CUDA /
# cuDNN error).
set -e
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
sh bench/conv/rule_rewrite.sh "${KS:-build/bin/kernelskill}" "$d/conv_tiled.cu"
cuda=$(dirname "$(dirname "$(command -v nvcc)")")
dnn=()
if [ -e "$cuda/include/cudnn.h" ] || [ -e /usr/include/cudnn.h ]; then dnn=(-DKS_HAVE_CUDNN -lcudnn); fi
# Twice: the shipped template as it is, and with KS_CONV_ROW_TABLE=0 (every gathered element
# decomposes its k, the template before its row table), run one after the other.
rc=0
for table in 1 0; do
  echo "== KS_CONV_ROW_TABLE=$table"
  nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -DKS_CONV_ROW_TABLE=$table -I "$d" bench/conv/conv_bench.cu \
    -o "$d/conv_bench$table" "${dnn[@]}" 2>&1 |
    grep -E "Function properties for|spill" | paste - - | sed "s/ptxas info *: Function properties for //"
  "$d/conv_bench$table" "$@" 2>&1 || { r=$?; [ $r -gt $rc ] && rc=$r; }
done
exit $rc
