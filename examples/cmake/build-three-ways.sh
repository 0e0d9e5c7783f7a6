#!/bin/sh
# build-three-ways.sh — build this example three ways and check what each
# build shows: plain nvcc (no substitution), kernelskill-nvcc as
# CMAKE_CUDA_COMPILER and as CMAKE_CUDA_COMPILER_LAUNCHER (both substitute the
# store's verified transpose.cu, and say so once). Nothing runs on a GPU.
#
# usage: build-three-ways.sh OUT_DIR [KERNELSKILL_BIN_DIR]
#   OUT_DIR              where the three build trees and their logs go
#   KERNELSKILL_BIN_DIR  folder holding kernelskill-nvcc (default: on PATH)
# The real nvcc is $KS_NVCC, else nvcc on PATH. Exit status 0 when all three
# builds pass and show what they should.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-three-ways.sh OUT_DIR [KERNELSKILL_BIN_DIR]}
if [ $# -ge 2 ]; then dropin=$2/kernelskill-nvcc; else dropin=$(command -v kernelskill-nvcc); fi
nvcc=${KS_NVCC:-$(command -v nvcc)}
gen=
if command -v ninja > /dev/null 2>&1; then gen="-G Ninja"; fi
mkdir -p "$out"

build() { # name, extra cmake arguments...
  name=$1; shift
  rm -rf "$out/$name"
  # shellcheck disable=SC2086
  cmake -S "$here" -B "$out/$name" $gen -DCMAKE_BUILD_TYPE=Release "$@" > "$out/$name.configure.log" 2>&1 ||
    { cat "$out/$name.configure.log"; echo "build-three-ways: $name: configure failed" >&2; exit 1; }
  cmake --build "$out/$name" -v > "$out/$name.log" 2>&1 ||
    { cat "$out/$name.log"; echo "build-three-ways: $name: build failed" >&2; exit 1; }
  test -x "$out/$name/ks_example" || { echo "build-three-ways: $name: no ks_example" >&2; exit 1; }
}

build plain -DCMAKE_CUDA_COMPILER="$nvcc"
build compiler -DCMAKE_CUDA_COMPILER="$dropin"
build launcher -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_COMPILER_LAUNCHER="$dropin"

status=0
line='compiled the verified version from the store'
for name in plain compiler launcher; do
  n=$(grep -c "$line" "$out/$name.log" || true)
  echo "$name: $n substitution line(s)"
  grep "$line" "$out/$name.log" || true
  want=1
  [ "$name" = plain ] && want=0
  if [ "$n" -ne "$want" ]; then
    echo "build-three-ways: $name: expected $want substitution line(s), saw $n" >&2
    status=1
  fi
done
# The drop-in builds differ from the plain one exactly in transpose.cu's object.
for name in compiler launcher; do
  for obj in vadd main; do
    a=$(find "$out/plain" -name "$obj.cu.o" | head -n 1)
    b=$(find "$out/$name" -name "$obj.cu.o" | head -n 1)
    if ! cmp -s "$a" "$b"; then
      # nvcc embeds temp names: compare the symbols instead.
      if [ "$(nm "$a" | sort)" != "$(nm "$b" | sort)" ]; then
        echo "build-three-ways: $name: $obj.cu.o differs from the plain build's" >&2
        status=1
      fi
    fi
  done
  a=$(find "$out/plain" -name transpose.cu.o | head -n 1)
  b=$(find "$out/$name" -name transpose.cu.o | head -n 1)
  if cmp -s "$a" "$b"; then
    echo "build-three-ways: $name: transpose.cu.o is the plain build's" >&2
    status=1
  fi
done
exit $status
