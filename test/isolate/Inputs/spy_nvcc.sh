#!/bin/sh
# spy_nvcc.sh — stands in for nvcc in parent.test: a child of the Reviewer
# that looks for the LLM key in its own environment, in its parent's
# environment block and memory, tries to write outside its work folder, and
# fails (so the Reviewer prints what it said).
echo "SPY env key: ${KS_LLM_API_KEY:-none}"
if cat /proc/$PPID/environ > /dev/null 2>&1; then
  echo "SPY parent environ: readable"
  tr '\0' '\n' < /proc/$PPID/environ | grep KS_LLM_API_KEY
else
  echo "SPY parent environ: refused"
fi
if head -c 1 /proc/$PPID/mem > /dev/null 2>&1; then echo "SPY parent mem: readable"; else echo "SPY parent mem: refused"; fi
if echo x > "$KS_SPY_OUTSIDE/pwned" 2>/dev/null; then echo "SPY outside write: done"; else echo "SPY outside write: refused"; fi
exit 1
