#!/usr/bin/env bash
# mutate.sh — shows that each rule's lit tests can fail: for every row of the
# table below it plants one mutation in the code a rule emits (an exact string of
# lib/rewrite/rules/*.c, or of the shipped device header it inserts, under
# lib/rewrite/templates/, replaced by a wrong one), rebuilds, runs the
# rule's lit tests, requires them to FAIL, and restores the file (also on error
# or Ctrl-C, by trap) and rebuilds. A mutant that survives (tests still green)
# fails the script, as does a row whose string is not found exactly once (the
# rule changed: update the row).
#
#   bash test/mutate.sh [--build DIR] [--rule NAME]... [--list]
#
# CI (scripts/test.sh) runs one rule after ctest; by hand, run them all. It edits
# the source tree in place while it runs: do not run it next to another build or
# test run of the same tree.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
rules=()
list=0
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --rule) rules+=("$2"); shift 2 ;;
    --list) list=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "mutate.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# rule | file under lib/rewrite/rules (a shipped header: ../templates/NAME) | exact string | replacement | lit tests (under test/, space-separated)
table=$(cat <<'ROWS'
fast-math|fast-math.c|{"expf", "exp", "__expf"}|{"expf", "exp", "__logf"}|rewrite/fast-math.cu
launch-bounds|launch-bounds.c|"__launch_bounds__(%lld) ", nThreads|"__launch_bounds__(%lld) ", nThreads + 1|rewrite/launch-bounds.test
restrict-const|restrict-const.c|"__restrict__ ")) < 0|" ")) < 0|rewrite/restrict-const.test
read-only-cache|read-only-cache.c|pL->iStart, "__ldg(&")|pL->iStart, "(&")|rewrite/read-only-cache.cu
vectorize|vectorize.c|ks_v_%s = *reinterpret_cast<const %s *>(%s + ks_base);|ks_v_%s = *reinterpret_cast<const %s *>(%s + ks_base + 1);|rewrite/vectorize.test
grid-stride|grid-stride.c|ks_i += (long long)blockDim.x * gridDim.x) {|ks_i += (long long)blockDim.x) {|rewrite/grid-stride.test
unroll|unroll.c|"#pragma unroll %ld\n", nF|"#pragma unroll %ld\n", nF + 1|rewrite/unroll.test
nvcc-flags|nvcc-flags.c|"-maxrregcount=%d", atoi(zVal)|"-maxrregcount=%d", atoi(zVal) + 1|rewrite/nvcc-flags.cu
library-gemm|library-gemm.c|"%s  const %s ks_alpha = %s, ks_beta = %s;\n"|"%s  const %s ks_alpha = %s, ks_beta = %s + 1;\n"|rewrite/library-gemm.cu
smem-transpose|../templates/ks_transpose.cuh|out[out_off + c * out_stride + r] = t[threadIdx.x][threadIdx.y + k];|out[out_off + c * out_stride + r] = t[threadIdx.y + k][threadIdx.x];|rewrite/smem-transpose.cu
block-size|block-size.c|"(%s + %ld - 1) / %ld", zNp, nT, nT|"(%s + %ld) / %ld", zNp, nT, nT|rewrite/block-size.test
coarsen|coarsen.c|"%.*s  const long long ks_i = ks_base + (long long)ks_k * blockDim.x;\n"|"%.*s  const long long ks_i = ks_base + (long long)ks_k;\n"|rewrite/coarsen.test
row-reduce|../templates/ks_rowreduce.cuh|for (int o = 16; o > 0; o >>= 1) v = Op::f(|for (int o = 8; o > 0; o >>= 1) v = Op::f(|rewrite/row-reduce.cu rewrite/row-reduce-passes.test
warp-reduce|warp-reduce.c|"__shfl_down_sync(0xffffffffu, ks_v, ks_o)"|"__shfl_up_sync(0xffffffffu, ks_v, ks_o)"|rewrite/warp-reduce.cu
smem-tile-gemm|../templates/ks_tilegemm.cuh|        const KT bk = t + r;|        const KT bk = t + r + 1;|rewrite/smem-tile-gemm.cu rewrite/smem-tile-gemm-linear.cu
column-walk|../templates/ks_colwalk.cuh|if (ty < h) s[ty][tx] = op(s[ty][tx], s[ty + h][tx]);|if (ty < h) s[ty][tx] = op(s[ty][tx], s[ty + h - 1][tx]);|rewrite/column-walk.test
conv-igemm|../templates/ks_conv_f32.cuh|for (int j = 0; j < TN; j++) acc[i][j] += a[i] * b[j];|for (int j = 0; j < TN; j++) acc[i][j] += a[i] * b[TN - 1 - j];|rewrite/conv-igemm.test
gemm-tiled|../templates/ks_gemm_f32.cuh|        else mac(acc[i][j], f.a[i], f.b[j]);|        else mac(acc[i][j], f.a[i], f.b[TN - 1 - j]);|rewrite/gemm-tiled.test
ROWS
)

if [ "$list" = 1 ]; then
  printf '%s\n' "$table" | cut -d'|' -f1,2,5
  exit 0
fi
lit=$(grep -o '[^ "]*lit\.py' "$build/test/CTestTestfile.cmake" | head -1)
[ -n "$lit" ] || { echo "mutate.sh: no lit command in $build/test/CTestTestfile.cmake (configure the build first)" >&2; exit 2; }
py=$(command -v python3)

backup=""
target=""
restore() {
  if [ -n "$backup" ] && [ -f "$backup" ]; then
    # Not cp -p: the restored file must be newer than the mutant's object file,
    # or ninja keeps the mutant.
    cp "$backup" "$target" && touch "$target" && rm -f "$backup"
    backup=""
    ninja -C "$build" >/dev/null || echo "mutate.sh: rebuild after restoring $target failed" >&2
  fi
}
trap restore EXIT
trap 'exit 130' INT TERM

want() { [ ${#rules[@]} -eq 0 ] && return 0; for r in "${rules[@]}"; do [ "$r" = "$1" ] && return 0; done; return 1; }
found=0 bad=0 ran=0
while IFS='|' read -r rule file from to tests; do
  [ -n "$rule" ] || continue
  want "$rule" || continue
  found=$((found + 1))
  target=$top/lib/rewrite/rules/$file
  n=$("$py" -c 'import sys; print(open(sys.argv[1]).read().count(sys.argv[2]))' "$target" "$from" 2>/dev/null || echo 0)
  if [ "$n" != 1 ]; then
    echo "STALE   $rule: '$from' occurs $n times in lib/rewrite/rules/$file (want 1): update the row"
    bad=$((bad + 1)); continue
  fi
  backup=$(mktemp "${TMPDIR:-/tmp}/mutate.XXXXXX")
  cp -p "$target" "$backup"
  "$py" -c 'import sys; p=sys.argv[1]; s=open(p).read(); open(p,"w").write(s.replace(sys.argv[2], sys.argv[3]))' "$target" "$from" "$to"
  if ! ninja -C "$build" >/dev/null 2>&1; then
    echo "NOBUILD $rule: the mutant does not build: change the row's replacement"
    bad=$((bad + 1)); restore; continue
  fi
  paths=()
  for t in $tests; do paths+=("$top/test/$t"); done
  ran=$((ran + 1))
  if "$py" "$lit" -q --param site="$build/test/lit.site.cfg.py" "${paths[@]}" >/dev/null 2>&1; then
    echo "SURVIVED $rule: '$from' -> '$to' leaves $tests green"
    bad=$((bad + 1))
  else
    echo "killed  $rule: '$from' -> '$to' turns $tests red"
  fi
  restore
done <<< "$table"
if [ "$found" = 0 ]; then
  echo "mutate.sh: no row for ${rules[*]:-any rule}" >&2
  exit 2
fi
echo "mutate.sh: $ran mutants run, $bad problems"
[ "$bad" = 0 ]
