#!/usr/bin/env python3
"""ncu_agree.py — compare the Reviewer's in-process CUPTI metrics (an evidence
record from `kernelskill bench --json`) with `ncu --clock-control none --csv`
on the same kernel, metric by metric. Prints a table; exits 1 if a percentage
metric differs by more than --points (default 5) percentage points.

usage: ncu_agree.py EVIDENCE.json NCU.csv [--points P]"""
import csv
import json
import sys

METRICS = [
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sector_hit_rate.pct",
    "smsp__inst_executed.sum",
]


def ncu_values(path):
    """{metric: float} from ncu's --csv output (last kernel row wins)."""
    out = {}
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        name, unit, val = row.get("Metric Name"), row.get("Metric Unit", ""), row.get("Metric Value", "")
        try:
            v = float(val.replace(",", ""))
        except ValueError:
            continue
        # ncu scales units; bring durations to ns like CUPTI's gpu__time_duration.sum.
        if name == "gpu__time_duration.sum":
            v *= {"nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9}.get(unit, 1)
        out[name] = v
    return out


def main():
    args = sys.argv[1:]
    points = 5.0
    if "--points" in args:
        i = args.index("--points")
        points = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__)
        return 2
    ev = json.load(open(args[0]))
    k = ev["kernels"][0]
    ours = k["metrics"]
    theirs = ncu_values(args[1])
    bad = 0
    print(f"kernel {k['name']} (task {ev['task']})")
    print(f"{'metric':55s} {'CUPTI':>14s} {'ncu':>14s} {'diff':>10s}")
    for m in METRICS:
        a, b = ours.get(m), theirs.get(m)
        if a is None or b is None:
            print(f"{m:55s} {str(a):>14s} {str(b):>14s} {'n/a':>10s}")
            continue
        if m.endswith(".pct") or "pct_of_peak" in m:
            d = a - b
            flag = abs(d) > points
            bad += flag
            print(f"{m:55s} {a:14.2f} {b:14.2f} {d:+9.2f}pt{' !' if flag else ''}")
        else:
            d = 100.0 * (a - b) / b if b else 0.0
            print(f"{m:55s} {a:14.6g} {b:14.6g} {d:+9.2f}%")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
