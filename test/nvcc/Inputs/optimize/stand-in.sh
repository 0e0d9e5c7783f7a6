#!/bin/sh
# stand-in.sh — a stand-in for the kernelskill CLI in KS_MODE=optimize tests
# (named by KS_KERNELSKILL). Appends one line per run to $KS_RECORD (its
# arguments, folder and KS_MODE), then acts as $KS_FAKE says:
#   nogpu    what `kernelskill optimize` says without a CUDA device (exit 2)
#   fail     a task problem (exit 1)
#   crash    killed by SIGSEGV
#   nothing  a passed run with nothing faster (exit 0, nothing stored)
#   commit   stores $KS_FAKE_OPT for the task's source as the loop's --commit
#            would (through `kernelskill store add`), after $KS_FAKE_SLEEP s
echo "run: $* | cwd=$(pwd) | KS_MODE=${KS_MODE:-}" >> "$KS_RECORD"
case "$KS_FAKE" in
nogpu)
  echo "kernelskill optimize: no CUDA device: nothing changed (kernelskill optimize $2 --dry-run shows the plan)" >&2
  exit 2 ;;
fail)
  echo "kernelskill: error: $2: \"args\"[0]: unknown dtype 'f33'" >&2
  exit 1 ;;
crash)
  kill -SEGV $$ ;;
nothing)
  echo "kernelskill: round 1: occ.launch-bounds-static noise 1.002x vs best" >&2
  echo "kernelskill optimize: --commit: nothing stored: no version faster than the seed was found (round budget spent (1))" >&2
  exit 0 ;;
commit)
  sleep "${KS_FAKE_SLEEP:-0}"
  task="$2"; store=""
  while [ $# -gt 0 ]; do [ "$1" = "--store" ] && store="$2"; shift; done
  echo "kernelskill: round 1: mem.restrict-const accepted 1.100x vs best"
  # The loop stores with its evidence (the drop-in compiles no entry without).
  ev="${TMPDIR:-/tmp}/stand-in-evidence.$$.json"
  echo '{"ks_evidence": 1, "gpu": {"name": "stand-in", "cc": "9.0"}, "correctness": {"passed": true}}' > "$ev"
  exec kernelskill store add --store "$store" --original "${task%.task.json}.cu" --optimized "$KS_FAKE_OPT" --arch sm_90 --evidence "$ev" 2>/dev/null ;;
esac
echo "stand-in: KS_FAKE=$KS_FAKE?" >&2
exit 3
