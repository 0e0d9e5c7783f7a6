#!/usr/bin/env bash
# build.sh — configure and build KernelSkill into ./build (after deps.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# shellcheck source=deps.sh
source scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${KS_BUILD_TYPE:-RelWithDebInfo}" >/dev/null
ninja -C build
