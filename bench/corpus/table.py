#!/usr/bin/env python3
"""table.py -- bench/corpus/gpu.sh's table: one row per corpus task from
`kernelskill optimize --json` (RUN/<task>.json), the task file's cost.bytes
and the DRAM peak measured in the same run.

  table.py OUT PEAK_GBPS TASKLIST   -> writes OUT/corpus-gpu.md and
                                       OUT/corpus-gpu.json, prints the table;
                                       exit 1 when a task that ran is not correct

TASKLIST: lines "TASKFILE CLASS KERNEL STATUS" (STATUS: ran, skipped, timeout;
a timeout or a run with no result counts as a failure, a skipped task not).
Bandwidth = the bytes the task moves per call (its cost.bytes) / the best
time. Targets (issue 14): map >= 85% of the peak, row-reduce and column-walk
>= 80%; other classes have none (compute-bound GEMMs, gathers, stencils).
"""
import json, os, re, sys

TARGET = {"map": 85.0, "row-reduce": 80.0, "column-walk": 80.0}


def evaluate(expr, env):
    """An integer size expression of the task format (+ - * / % ( ), dims)."""
    if isinstance(expr, (int, float)):
        return expr
    if not re.fullmatch(r"[\sA-Za-z_0-9+\-*/%()]*", expr):
        raise ValueError("bad expression %r" % expr)
    py = re.sub(r"(?<!/)/(?!/)", "//", expr)
    return eval(py, {"__builtins__": {}}, dict(env))


def task_bytes(task):
    env = {}
    for k, v in task.get("dims", {}).items():
        env[k] = evaluate(v, env)
    b = task.get("cost", {}).get("bytes")
    return evaluate(b, env) if b is not None else None


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    out, peak, listing = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    inputs = os.path.join(out, "work")
    rows, failed = [], 0
    for line in open(listing):
        parts = line.split()
        if len(parts) != 4:
            continue
        tf, cls, kernel, status = parts
        name = tf[: -len(".task.json")]
        row = {"task": name, "class": cls, "kernel": kernel, "status": status}
        try:
            task = json.load(open(os.path.join(inputs, tf)))
            row["bytes"] = task_bytes(task)
        except (OSError, ValueError) as e:
            row["bytes"] = None
            row["note"] = "task: %s" % e
        res = None
        try:
            res = json.load(open(os.path.join(out, "results", name + ".json")))
        except (OSError, ValueError):
            pass
        if res is None:
            row["correct"] = None
            if status == "timeout":
                failed += 1
            if status == "ran":
                row["status"] = "no result"
                try:
                    tail = open(os.path.join(out, "results", name + ".log")).read().strip().splitlines()[-1:]
                    row["note"] = tail[0][:160] if tail else ""
                except OSError:
                    pass
                failed += 1
        else:
            row["correct"] = bool(res.get("passed"))
            row["seed_us"] = res.get("seed_us", 0)
            row["best_us"] = res.get("best_us", 0)
            row["speedup"] = res.get("speedup", 0)
            row["skills"] = res.get("skills") or "none"
            if res.get("status") != "done":
                row["note"] = (res.get("diagnosis") or res.get("status") or "")[:160]
            if not row["correct"]:
                failed += 1
            if row["bytes"] and row["best_us"]:
                row["gbps"] = row["bytes"] / (row["best_us"] * 1e-6) / 1e9
                row["pct_peak"] = 100.0 * row["gbps"] / peak if peak > 0 else 0
        t = TARGET.get(cls)
        if t is not None and "pct_peak" in row:
            row["target_pct"] = t
            row["meets"] = row["pct_peak"] >= t and bool(row.get("correct"))
        rows.append(row)

    def f(x, fmt):
        return fmt % x if isinstance(x, (int, float)) else "-"

    lines = ["| task | class | kernel | correct | baseline ms | best ms | speedup | GB/s | % of peak | target | skills | status |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        corr = {True: "yes", False: "**no**", None: "-"}[r.get("correct")]
        tgt = ("%d%% %s" % (r["target_pct"], "met" if r["meets"] else "**missed**")) if "target_pct" in r else "-"
        st = r["status"] + (" (%s)" % r["note"] if r.get("note") else "")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["task"], r["class"], r["kernel"], corr, f(r.get("seed_us", None) and r["seed_us"] / 1000.0, "%.3f"),
            f(r.get("best_us", None) and r["best_us"] / 1000.0, "%.3f"), f(r.get("speedup"), "%.2fx"),
            f(r.get("gbps"), "%.0f"), f(r.get("pct_peak"), "%.1f%%"), tgt, r.get("skills", "-"), st))
    ran = [r for r in rows if r.get("correct") is not None]
    withT = [r for r in rows if "target_pct" in r]
    summary = ["", "DRAM peak (ks-harness ceilings, device-to-device copy, read + write bytes): %.0f GB/s" % peak,
               "tasks: %d listed, %d with a result, %d correct, %d timed out, %d not started in the time budget; "
               "bandwidth targets met %d/%d" % (
                   len(rows), len(ran), sum(1 for r in ran if r["correct"]),
                   sum(1 for r in rows if r["status"] == "timeout"), sum(1 for r in rows if r["status"] == "skipped"),
                   sum(1 for r in withT if r["meets"]), len(withT))]
    text = "\n".join(lines + summary) + "\n"
    with open(os.path.join(out, "corpus-gpu.md"), "w") as fh:
        fh.write(text)
    with open(os.path.join(out, "corpus-gpu.json"), "w") as fh:
        json.dump({"ks_corpus_gpu": 1, "peak_gbps": peak, "rows": rows}, fh, indent=1)
    sys.stdout.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
