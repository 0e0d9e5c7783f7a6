#!/bin/sh
# build-wgmma.sh — compile the standalone TF32 SS-wgmma GEMM experiment (no GPU needed to build).
#   bash bench/gemm/build-wgmma.sh OUT      (default build-wgmma/wgmma_tf32 under the repository)
# ptxas's report goes to OUT.ptxas.txt; the build fails if ptxas says it serialized a wgmma.
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../build-wgmma/wgmma_tf32}
mkdir -p "$(dirname "$out")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
"$NVCC" -O3 -std=c++17 -arch=sm_90a -lineinfo -Xptxas -v "$here/wgmma_tf32.cu" -o "$out" -lcublas 2> "$out.ptxas.txt" || { cat "$out.ptxas.txt"; exit 1; }
if grep -qi "serializ" "$out.ptxas.txt"; then grep -i "serializ" "$out.ptxas.txt"; echo "build-wgmma: ptxas serialized a wgmma" >&2; exit 1; fi
# one line per GEMM kernel: registers and spills
awk '/Compiling entry function/ {k=$0; sub(/.*function .\047?/, "", k); sub(/\047.*/, "", k)} /spill stores/ {s=$0} /Used [0-9]+ registers/ && k ~ /gemm_tf32_ss/ {sub(/^ +/, "", s); print k ": " $5 " registers, " s}' "$out.ptxas.txt"
