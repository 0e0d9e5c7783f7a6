#!/usr/bin/env bash
# deps.sh — install what KernelSkill needs on Debian 12 (bookworm), skipping what
# is already there. Sourced by example.sh and test.sh; safe to run again.
set -euo pipefail

KS_DEBS="cmake ninja-build python3 clang-19 libclang-19-dev llvm-19-dev llvm-19-tools libclang-rt-19-dev libcjson-dev libcurl4-openssl-dev libcmocka-dev"

missing=""
for p in $KS_DEBS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "kernelskill: installing Debian packages:$missing" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# The CUDA toolkit is not a Debian package of the right version: it must be
# present (nvcc on PATH, under $CUDA_PATH, or at /usr/local/cuda).
if ! command -v nvcc >/dev/null 2>&1; then
  for d in "${CUDA_PATH:-}" /usr/local/cuda; do
    if [ -n "$d" ] && [ -x "$d/bin/nvcc" ]; then
      export PATH="$d/bin:$PATH"
      break
    fi
  done
fi
if ! command -v nvcc >/dev/null 2>&1; then
  echo "kernelskill: the CUDA toolkit (nvcc, CUDA 12.x/13.x) is required: install it and put nvcc on PATH or set CUDA_PATH" >&2
  exit 2
fi
