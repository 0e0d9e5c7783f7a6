#!/bin/sh
# bench/corpus/run.sh [BUILD_DIR] -- the corpus figures (issue 14): shape classes
# right, recall (rules applied / rules expected, 'must' + 'should' in
# test/corpus/Inputs/manifest*.json) and wrong applications ('must_not'), then
# recall by rule and by class and each miss (bench/corpus/README.md).
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
out=$(mktemp -d)
nvcc=${KS_NVCC_BIN:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
python3 "$root/test/corpus/Inputs/corpus.py" --kernelskill "$build/bin/kernelskill" --nvcc "$nvcc" --out "$out" --report
rm -rf "$out"
