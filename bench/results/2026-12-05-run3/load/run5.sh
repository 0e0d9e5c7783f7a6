#!/usr/bin/env bash
# Five runs in a row of the whole ctest suite, fresh clone, two busy loops beside it.
set -u
REV=$1; N=${2:-5}
rm -rf /tmp/load || exit 1
git clone -q /work/main /tmp/load || exit 1
cd /tmp/load || exit 1
git checkout -q "$REV" || exit 1
log=/tmp/loadrun/runs.log
echo "clone $(git rev-parse --short HEAD) $(date -u +%H:%M:%S)" >> $log
bash scripts/build.sh > /tmp/loadrun/build.out 2>&1 || { echo "build failed" >> $log; exit 1; }
sh -c 'while :; do :; done' & b1=$!
sh -c 'while :; do :; done' & b2=$!
trap 'kill $b1 $b2 2>/dev/null' EXIT
for i in $(seq 1 $N); do
  t0=$(date +%s)
  ctest --test-dir build --output-on-failure -j 2 > /tmp/loadrun/ctest.$i.out 2>&1; rc=$?
  t1=$(date +%s)
  echo "run $i: rc=$rc $(grep -E 'tests passed' /tmp/loadrun/ctest.$i.out) $((t1-t0)) s, ended $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)" >> $log
done
