#!/usr/bin/env bash
# test.sh — set up, build, and run the whole test suite (ctest: C unit tests,
# lit suites, short fuzz runs). GPU tests run only where KS_GPU_TESTS=1.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
