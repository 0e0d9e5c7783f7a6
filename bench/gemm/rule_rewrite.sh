#!/bin/sh
# rule_rewrite.sh — rewrite bench/gemm/rule_naive.cu with the gemm-tiled rule,
# each kernel at its configuration (the rule's default, the previous 2-stage
# default, 3 stages (the NT-fastest) and 128x64 tiles (the 1024-fastest) of h200-run4.txt), into OUT
# (name it rule_tiled.cu and put its folder first on rule_bench.cu's include path: rule_bench.sh
# does). Generated, never committed: it is always the rule's current output.
#   bench/gemm/rule_rewrite.sh KERNELSKILL OUT
set -e
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 2 ]; then
  echo "usage: bench/gemm/rule_rewrite.sh KERNELSKILL OUT" >&2
  exit 2
fi
ks=$1
out=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/rule_naive.cu" "$tmp/f.cu"
step() { # KERNEL [CONFIG [PACK]]
  if [ -n "$2" ]; then "$ks" rewrite "$tmp/f.cu" --kernel "$1" --rule gemm-tiled --param "config=$2" --param "pack=${3:-off}" -o "$tmp/g.cu"
  else "$ks" rewrite "$tmp/f.cu" --kernel "$1" --rule gemm-tiled -o "$tmp/g.cu"; fi
  mv "$tmp/g.cu" "$tmp/f.cu"
}
for p in sgemm bias_relu; do
  step ${p}_default
  step ${p}_s2 128x128x16_w64x32_t8x8_s2
  step ${p}_s3 128x128x16_w64x32_t8x8_s3
  step ${p}_128x64_s3 128x64x16_w32x32_t4x8_s3
  step ${p}_pk_s2 128x128x16_w32x64_t8x8_s2 on
  step ${p}_pk_s4 128x128x16_w64x32_t8x8_s4 on
  step ${p}_pk_128x64_s3 128x64x16_w32x32_t4x8_s3 on
done
cp "$tmp/f.cu" "$out"
