#!/usr/bin/env bash
# rule_bench.sh — the gemm-tiled rule's own rewrites against cuBLAS FP32, one process.
# Run from the repository root; needs nvcc, cuBLAS and a built kernelskill (KS, default
# build/bin/kernelskill: on the GPU machine, after `source .device/env.sh`);
# stdout only (stderr merged), about 1-2 minutes (one nvcc build, then well under a minute of GPU).
# What it measures: rule_tiled.cu = bench/gemm/rule_rewrite.sh's output, made here first (the rule applied
# to the suite's sgemm and gemm_bias_relu seeds, bench/gemm/rule_naive.cu; lit test
# test/rewrite/gemm-tiled-bench.test makes and builds it too), each kernel launched through its seed's own
# rewritten host function (dynamic shared memory opted in there), at the rule's new default
# 128x128x16_w64x32_t8x8_s4 (66 KB dynamic), the old default s2 (static), s3 and 128x64x16 s3:
# sgemm NN 1024 / 2048 / 4096 vs cublasSgemm NN, gemm_bias_relu 8192x4096x1024 (NT + bias + ReLU)
# vs cublasSgemm NT of the product alone; ratio = cuBLAS ms / ours, bitwise vs the naive seed.
# Exit status 0: every rewrite bitwise its seed; 1: a mismatch; 2: CUDA/cuBLAS error.
set -e
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
sh bench/gemm/rule_rewrite.sh "${KS:-build/bin/kernelskill}" "$d/rule_tiled.cu"
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I "$d" -I bench/gemm bench/gemm/rule_bench.cu -o /tmp/rule_bench -lcublas 2>&1 | grep -E "Compiling entry|spill" | paste - - | sed 's/ptxas info *: Compiling entry function//'
/tmp/rule_bench --reps 10 2>&1
