#!/bin/sh
# build.sh — compile the standalone GEMM sweep (no GPU needed to build).
#   bench/gemm/build.sh [OUT]   (default build-gpu/xbench/gemm_sweep under the repository)
#   ARCH=sm_90a bench/gemm/build.sh OUT   the TF32 variants on wgmma where their tile allows
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../build-gpu/xbench/gemm_sweep}
mkdir -p "$(dirname "$out")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
exec "$NVCC" -O3 -std=c++17 -arch="${ARCH:-sm_90}" -lineinfo -Xptxas -v "$here/gemm_sweep.cu" -o "$out" -lcublas 2> "$out.ptxas.txt"
