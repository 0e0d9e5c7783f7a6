#!/usr/bin/env bash
# test-asan.sh — the C unit tests again in a KS_SANITIZE build (AddressSanitizer
# + UndefinedBehaviorSanitizer, leaks included), as CI runs them after the main
# suite (issue 17). Builds only the unit tests and the binaries they start, in
# BUILD_DIR (default build-asan).
#   ASAN_OPTIONS: use_sigaltstack=0, because libclang's crash recovery installs
#   its own alternate signal stacks, which ASan then fails to unmap at thread
#   exit.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build-asan}
cd "$top"
cmake -S . -B "$build" -G Ninja -DKS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
targets=$(ls test/unit/test_*.c | xargs -n1 basename | sed 's/\.c$//')
# shellcheck disable=SC2086
ninja -C "$build" $targets ks-isolate ks-harness ks_data
ASAN_OPTIONS=use_sigaltstack=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$build" -R '^unit-' --output-on-failure -j "$(nproc)"
