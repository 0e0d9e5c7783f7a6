#!/bin/sh
# record-nvcc.sh — a stand-in for nvcc in the passthrough tests: writes its
# arguments (one per line, bracketed) and its environment to $KS_RECORD, says
# something on stdout and on stderr, and exits with $KS_RECORD_EXIT (default 0).
{
  echo "argc=$#"
  for a in "$@"; do printf 'arg=[%s]\n' "$a"; done
  env | grep -v -e '^_=' -e '^KS_RECORD=' | sort
} > "$KS_RECORD"
echo "stand-in nvcc stdout"
echo "stand-in nvcc stderr" >&2
exit "${KS_RECORD_EXIT:-0}"
