#!/usr/bin/env bash
# test.sh — set up, build, and run the whole test suite (ctest: C unit tests,
# lit suites, short fuzz runs; then the unit tests under ASan + UBSan). GPU
# tests run only where KS_GPU_TESTS=1.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
# Mutation check of one rule (after ctest: it edits lib/ in place and rebuilds one
# file): fast-math's emitted __expf becomes __logf and its lit test must go red.
# All rules: bash test/mutate.sh
bash test/mutate.sh --build build --rule fast-math
# The C unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer
# (a second build in build-asan/; leaks are errors).
bash scripts/test-asan.sh "$top/build-asan"
