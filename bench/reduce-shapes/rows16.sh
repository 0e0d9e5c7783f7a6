#!/bin/sh
# rows16.sh KERNELSKILL OUTDIR: the variants of rows16.cu as OUTDIR/rows16-{naive,off,on}.cu
# (naive; rule row-reduce threads=auto with pack=off, and with pack=on: the 16-bit rows'
# packs), then, where nvcc is on PATH, OUTDIR/rows16-* built from them. Run each with a row
# length (default 2048): OUTDIR/rows16-on 2048.
set -e
ks=$1
out=$2
here=$(dirname "$0")
[ -n "$ks" ] && [ -n "$out" ] || { echo "usage: rows16.sh KERNELSKILL OUTDIR" >&2; exit 2; }
mkdir -p "$out"
cp "$here/rows16.cu" "$out/rows16-naive.cu"
for pack in off on; do
  "$ks" rewrite "$here/rows16.cu" --kernel layernorm_bf16_kernel --rule row-reduce --param threads=auto \
    --param pack=$pack -o "$out/rows16-$pack.tmp.cu"
  "$ks" rewrite "$out/rows16-$pack.tmp.cu" --kernel rmsnorm_half_rows --rule row-reduce --param threads=auto \
    --param pack=$pack -o "$out/rows16-$pack.cu"
  rm -f "$out/rows16-$pack.tmp.cu"
done
if command -v nvcc >/dev/null; then
  for v in naive off on; do nvcc -O3 -arch=sm_90 -std=c++17 "$out/rows16-$v.cu" -o "$out/rows16-$v"; done
fi
