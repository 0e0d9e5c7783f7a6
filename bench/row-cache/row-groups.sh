#!/usr/bin/env bash
# bench/row-cache/row-groups.sh — rule row-reduce's row-group sizes side by side
# on the GPU: the corpus' bf16 layernorm (packed rows) and f32 softmax, each
# rewritten with threads=256, threads=auto, auto with 64 and 128 elements a
# thread (the ks_row_block constant edited), and mode=warp, then reviewed by
# `kernelskill bench` (correctness, cold-L2 timing against the seed). Resident
# rows (the row kept in registers between passes, resident=32) against the
# same without: autores (threads=auto resident=32) vs auto (for the bf16
# layernorm: resident packs); autonpres (pack=off resident=32) vs autonp
# (pack=off: the bf16 rows element by element); and the f32 layernorm (lnf,
# the corpus' layernorm_forward) the same as the softmax; autores16 (resident=16)
# and 256res8 (threads=256 resident=8) with fewer slots; autou16 and warpu16 (unroll=16: 16 elements,
# or 4 packs of 16-bit rows, in flight a step instead of 4 or 2; the hand-written bf16 layernorm
# with all 8 packs of a warp's row in flight reached 89% of copy; mode=warp, 1 pack a step, 71%). VARIANTS="auto autores" (a subset of 256 auto
# auto64 auto128 warp autores autonp autonpres autores16 256res8 autou16 warpu16) limits the run to those,
# ONLY="sm ln" to those kernels (several ONLY runs may go side by side: the Reviewer's lock
# keeps the timed work apart).
#
#   bash bench/row-cache/row-groups.sh prepare BUILD DIR   # here: the rewrites (needs libclang)
#   bash bench/row-cache/row-groups.sh run BUILD DIR OUT   # on the GPU machine
#
# Prints one line per candidate: verdict, speedup, candidate and seed median us.
# Results of 2026-12-04: bench/results/2026-12-04-row-groups/.
set -u
cmd=${1:?prepare|run}; B=$(cd "${2:?BUILD}" && pwd); D=${3:?DIR}
I=$(cd "$(dirname "$0")/../.." && pwd)/test/corpus/Inputs
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
KERNELS="ln:layernorm_bf16:framework_kernels.cu:layernorm_bf16_kernel sm:softmax_forward:trainer_dev.cu:softmax_forward_kernel1"
KERNELS="$KERNELS lnf:layernorm_forward:trainer_dev.cu:layernorm_forward_kernel1"
VARIANTS=${VARIANTS:-256 auto auto64 auto128 warp autores autonp autonpres}
ONLY=${ONLY:-}   # run: only these kernels' short names (ln sm lnf)
case $cmd in
prepare)
  mkdir -p "$D"
  for t in $KERNELS; do
    IFS=: read -r k task file kern <<< "$t"
    rw() { "$B/bin/kernelskill" rewrite --rule row-reduce --kernel "$kern" "$I/$file" -o "$D/${k}_$1.cu" "${@:2}"; }
    rw 256 --param threads=256 && rw auto --param threads=auto && rw warp --param mode=warp || exit 1
    rw autores --param threads=auto --param resident=32 && rw autonp --param threads=auto --param pack=off &&
      rw autonpres --param threads=auto --param pack=off --param resident=32 || exit 1
    rw autores16 --param threads=auto --param resident=16 && rw 256res8 --param threads=256 --param resident=8 || exit 1
    rw autou16 --param threads=auto --param unroll=16 && rw warpu16 --param mode=warp --param unroll=16 || exit 1
    grep -q "ks_res" "$D/${k}_autores.cu" || { echo "$k: no resident path" >&2; exit 1; }
    grep -q "ks_res" "$D/${k}_autonpres.cu" || { echo "$k: no resident path with pack=off" >&2; exit 1; }
    for n in 64 128; do
      sed -E "s/\(long long\)g \* [0-9]+ <= cols/(long long)g * $n <= cols/" "$D/${k}_auto.cu" > "$D/${k}_auto$n.cu"
    done
  done
  ;;
run)
  O=${4:?OUT}; mkdir -p "$O/rr"
  for t in $KERNELS; do
    IFS=: read -r k task file kern <<< "$t"
    [ -z "$ONLY" ] || [[ " $ONLY " == *" $k "* ]] || continue
    for v in $VARIANTS; do
      w=$(mktemp -d); cp "$I"/* "$w"/ 2>/dev/null; cp "$D/${k}_$v.cu" "$w/cand.cu"
      timeout 150 "$B/bin/kernelskill" bench "$w/$task.task.json" --candidate "$w/cand.cu" --runs 50 --trials 5 \
        --no-metrics --json -o "$O/rr/${k}_$v.json" > /dev/null 2> "$O/rr/${k}_$v.err"
      python3 - "$O/rr/${k}_$v.json" "${k}_$v" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(sys.argv[2], "no evidence:", e); sys.exit()
t = d.get("timing", {})
med = lambda k: (t.get(k) or {}).get("median_us")
print(sys.argv[2], d.get("verdict"), "speedup=%s" % d.get("speedup"), "cand_us=%s seed_us=%s" % (med("candidate"), med("seed")))
PY
    done
  done
  [ -n "$ONLY" ] || { tar czf "$O/rr.tgz" -C "$O" rr && rm -rf "$O/rr"; }
  ;;
*) echo "usage: $0 prepare|run BUILD DIR [OUT]" >&2; exit 2 ;;
esac
