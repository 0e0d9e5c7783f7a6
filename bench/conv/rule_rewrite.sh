#!/bin/sh
# rule_rewrite.sh — rewrite bench/conv/conv_naive.cu with the conv-igemm rule, each
# conv_<tag> at its configuration (conv_ref stays the seed), into OUT (name it
# conv_tiled.cu and put its folder first on conv_bench.cu's include path:
# rule_bench.sh does). Generated, never committed: always the rule's current output.
#   bench/conv/rule_rewrite.sh KERNELSKILL OUT
set -e
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 2 ]; then
  echo "usage: bench/conv/rule_rewrite.sh KERNELSKILL OUT" >&2
  exit 2
fi
ks=$1
out=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/conv_naive.cu" "$tmp/f.cu"
step() { # KERNEL [CONFIG]
  if [ -n "$2" ]; then "$ks" rewrite "$tmp/f.cu" --kernel "$1" --rule conv-igemm --param "config=$2" -o "$tmp/g.cu"
  else "$ks" rewrite "$tmp/f.cu" --kernel "$1" --rule conv-igemm -o "$tmp/g.cu"; fi
  mv "$tmp/g.cu" "$tmp/f.cu"
}
step conv_default
step conv_bk8_s4 64x128x8_w32x64_t8x8_s4
step conv_64x64 64x64x16_w32x32_t4x8_s3
step conv_64x256_s2 64x256x16_w32x64_t8x8_s2
step conv_128x128_s2 128x128x16_w64x32_t8x8_s2
cp "$tmp/f.cu" "$out"
