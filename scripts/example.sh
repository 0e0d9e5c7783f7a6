#!/usr/bin/env bash
# example.sh — set up, build, and run KernelSkill's main job on a bundled example:
# `kernelskill optimize` on a naive row softmax (examples/softmax). With a GPU the
# loop runs for real (results under .kernelskill/runs/); without one it prints the
# static plan and the rewrites its first round would try (--dry-run).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/build.sh >/dev/null
ks=build/bin/kernelskill
task=examples/softmax/softmax.task.json
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "== kernelskill optimize $task" >&2
  "$ks" optimize "$task"
else
  echo "== no GPU here: kernelskill optimize $task --dry-run" >&2
  "$ks" optimize "$task" --dry-run
fi
