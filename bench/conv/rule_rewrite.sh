#!/bin/sh
# rule_rewrite.sh — the suite's conv2d_3x3 seed, copied once per configuration (conv_<tag>,
# launch_<tag>) and each copy rewritten with the conv-igemm rule at its configuration
# (conv_ref stays the seed), into OUT (name it
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
# The suite's seed (bench/suite/conv2d_3x3/seed.cu) once per kernel of the bench: conv_ref /
# launch_ref, the reference left as it is, and one copy per configuration, conv_<tag> /
# launch_<tag>, each rewritten below at its configuration (the launch with the kernel).
seed="$here/../suite/conv2d_3x3/seed.cu"
sed -n '1,/^__global__ void conv2d_3x3_kernel(/p' "$seed" | sed '$d' >"$tmp/f.cu"
for t in ref default bk8_s4 64x64 64x256_s2 128x128_s2; do
  sed -n '/^__global__ void conv2d_3x3_kernel(/,$p' "$seed" |
    sed "s/conv2d_3x3_kernel/conv_$t/g; s/^extern \"C\" void conv2d_3x3_forward(/static void launch_$t(/" >>"$tmp/f.cu"
  printf '\n' >>"$tmp/f.cu"
done
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
