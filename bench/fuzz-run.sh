#!/usr/bin/env bash
# fuzz-run.sh BIN_DIR SECONDS OUT [CORPUS_TGZ] — every fuzz target in BIN_DIR
# (test/fuzz's libFuzzer binaries, built by ctest's build) at once, one process
# each, for SECONDS, starting from test/fuzz/seeds/<name>/ and the corpus in
# CORPUS_TGZ when given (a previous run's). For long runs by hand (issue 17:
# 30 minutes each), e.g. on the idle CPUs of the GPU machine next to the GPU
# tests (at nice 19). Writes OUT/fuzz-<name>.log, OUT/fuzz-summary.txt (runs,
# findings per target) and OUT/fuzz-corpus.tgz (the corpora, to resume with).
# FUZZ_WORKERS="fuzz_skill=3 fuzz_draft=2" runs that many processes of a target
# on its one corpus (each with its own log, fuzz-<name>-w<k>.log).
# Exit 1 when a target found a crash, a leak or a timeout.
set -u
bin=$1 secs=$2 out=$3 tgz=${4:-}
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
mkdir -p "$out"
[ -n "$tgz" ] && [ -f "$tgz" ] && tar -C "$work" -xzf "$tgz"
pids=()
workers_of() { # the FUZZ_WORKERS count for target $1 (1 when not named)
  local w
  for w in ${FUZZ_WORKERS:-}; do [ "${w%%=*}" = "$1" ] && { echo "${w#*=}"; return; }; done
  echo 1
}
for f in "$bin"/fuzz_*; do
  n=$(basename "$f")
  mkdir -p "$work/corpus/$n" "$work/art/$n"
  seeds=$top/test/fuzz/seeds/$n
  [ -d "$seeds" ] || seeds=
  nw=$(workers_of "$n")
  for k in $(seq 1 "$nw"); do
    log=$out/fuzz-$n.log
    [ "$k" -gt 1 ] && log=$out/fuzz-$n-w$k.log
    # shellcheck disable=SC2086
    nice -n 19 "$f" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$work/art/$n/" "$work/corpus/$n" $seeds >"$log" 2>&1 &
    pids+=($!)
  done
done
for p in "${pids[@]}"; do wait "$p"; done
bad=0
: >"$out/fuzz-summary.txt"
for f in "$bin"/fuzz_*; do
  n=$(basename "$f")
  runs=$(cat "$out/fuzz-$n.log" "$out/fuzz-$n"-w*.log 2>/dev/null | grep -Eo 'Done [0-9]+ runs in [0-9]+ second' | paste -sd' ' -)
  found=$(ls "$work/art/$n" | wc -l)
  [ "$found" -gt 0 ] && bad=1 && cp "$work/art/$n"/* "$out/" 2>/dev/null
  echo "$n: ${runs:-no summary (see fuzz-$n.log)}; corpus $(ls "$work/corpus/$n" | wc -l) inputs; findings $found" \
    >>"$out/fuzz-summary.txt"
done
tar -C "$work" -czf "$out/fuzz-corpus.tgz" corpus
rm -rf "$work"
cat "$out/fuzz-summary.txt"
exit $bad
