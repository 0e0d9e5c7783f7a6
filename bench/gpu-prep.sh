#!/usr/bin/env bash
# gpu-prep.sh — run HERE (the development machine) before a GPU session: makes a
# lean Release build in build/ and copies the test tools the GPU machine lacks
# (lit, FileCheck, not, count) into build/tools, then fills .device/ with the
# Debian runtime libraries (../shared/device/prepare.sh). The device command is
#   source .device/env.sh && bash bench/gpu-session.sh
# with carry [".device", "build"].
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
source scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build
mkdir -p build/tools
rm -rf build/tools/lit
cp -r /usr/lib/llvm-19/build/utils/lit build/tools/lit
for t in FileCheck not count; do cp /usr/lib/llvm-19/bin/$t build/tools/; done
if [ -x ../shared/device/prepare.sh ]; then ../shared/device/prepare.sh; fi
du -sh build .device | sed 's/^/carry: /'
