#!/usr/bin/env bash
# example.sh — set up, build, and run KernelSkill's main job on a bundled
# example: the Feature Extractor and the planner on a naive softmax kernel.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/build.sh >/dev/null
ks=build/bin/kernelskill
echo "== kernelskill features examples/softmax/softmax.cu" >&2
"$ks" features examples/softmax/softmax.cu
echo >&2
echo "== kernelskill plan examples/softmax/softmax.cu --kernel softmax_rows" >&2
"$ks" plan examples/softmax/softmax.cu --kernel softmax_rows
