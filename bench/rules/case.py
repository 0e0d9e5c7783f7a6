#!/usr/bin/env python3
"""case.py — JSON side of bench/rules/run.sh: reads rule cases, writes each one's
task file and rewrite steps, measures how far the rewritten kernel's outputs are from
the seed's, and renders the results table. Standard library only (numpy is used
when present, to measure every trial instead of the first).

    case.py prepare CASE.json WORKDIR     task.json, seed.cu, steps.tsv, bench.args
    case.py flags FILE.cu                 the flags of the '// kernelskill-flags:' line
    case.py result CASE.json WORKDIR EVIDENCE.json RESULT.json
    case.py table OUT.md RESULT.json...   the markdown table (also printed)

A case file (format 1) is one JSON object:
    {"ks_rule_case": 1, "description": "...",
     "rules": [{"rule": ID, "kernel": K, "params": {"k": "v"}, "skill": SKILL}, ...],
     "bench": {"runs": N, "trials": N, "timeout": S},      (optional)
     "task": { a task file, format v1 (docs/tasks.md); "source" relative to CASE.json }}
The rules apply in order (each to the previous one's output).
"""
import array
import datetime
import json
import os
import re
import shutil
import sys

CASE_KEYS = {"ks_rule_case", "description", "rules", "bench", "task"}
STEP_KEYS = {"rule", "kernel", "params", "skill"}
BENCH_KEYS = {"runs", "trials", "timeout"}
TOKEN = re.compile(r"^[A-Za-z0-9_.+=:/ -]*$")  # what a step may pass to the shell
DTYPES = {"f32": ("f", 4), "f64": ("d", 8), "i32": ("i", 4), "i64": ("q", 8), "u8": ("B", 1),
          "f16": (None, 2), "bf16": (None, 2)}
DEFAULT_TOL = {"f32": (1e-4, 1e-4), "f16": (1e-2, 1e-2), "bf16": (1e-2, 1e-2), "f64": (1e-8, 1e-8)}


class CaseError(Exception):
    pass


def load_case(path):
    try:
        with open(path) as f:
            c = json.load(f)
    except json.JSONDecodeError as e:
        raise CaseError("%s:%d:%d: not valid JSON: %s" % (path, e.lineno, e.colno, e.msg))
    except OSError as e:
        raise CaseError("%s: %s" % (path, e.strerror))
    if not isinstance(c, dict):
        raise CaseError("%s: a case is a JSON object" % path)
    unknown = sorted(set(c) - CASE_KEYS)
    if unknown:
        raise CaseError("%s: unknown field '%s' (known: %s)" % (path, unknown[0], ", ".join(sorted(CASE_KEYS))))
    if c.get("ks_rule_case") != 1:
        raise CaseError("%s: ks_rule_case: must be 1" % path)
    rules = c.get("rules")
    if not isinstance(rules, list) or not rules:
        raise CaseError("%s: rules: a non-empty array of steps is required" % path)
    for i, s in enumerate(rules):
        where = "%s: rules[%d]" % (path, i)
        if not isinstance(s, dict):
            raise CaseError(where + ": a step is an object")
        unknown = sorted(set(s) - STEP_KEYS)
        if unknown:
            raise CaseError("%s: unknown field '%s' (known: %s)" % (where, unknown[0], ", ".join(sorted(STEP_KEYS))))
        for k in ("rule", "kernel"):
            if not isinstance(s.get(k), str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_-]*$", s[k]):
                raise CaseError("%s.%s: an identifier is required" % (where, k))
        if "skill" in s and (not isinstance(s["skill"], str) or not re.match(r"^[A-Za-z0-9_.-]+$", s["skill"])):
            raise CaseError(where + ".skill: a skill id is required")
        params = s.get("params", {})
        if not isinstance(params, dict):
            raise CaseError(where + ".params: an object of strings")
        for k, v in params.items():
            if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k) or not isinstance(v, str) or "\t" in v or "\n" in v \
                    or not TOKEN.match(v):
                raise CaseError("%s.params.%s: a string value without tabs, quotes or shell characters" % (where, k))
    bench = c.get("bench", {})
    if not isinstance(bench, dict) or set(bench) - BENCH_KEYS:
        raise CaseError("%s: bench: an object with %s" % (path, ", ".join(sorted(BENCH_KEYS))))
    for k, v in bench.items():
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v <= 0:
            raise CaseError("%s: bench.%s: a positive number" % (path, k))
    task = c.get("task")
    if not isinstance(task, dict) or not isinstance(task.get("source"), str):
        raise CaseError("%s: task: a task object (format v1) with a source is required" % path)
    return c


def cmd_prepare(case_path, work):
    c = load_case(case_path)
    task = dict(c["task"])
    src = os.path.join(os.path.dirname(os.path.abspath(case_path)), task["source"])
    if not os.path.isfile(src):
        raise CaseError("%s: task.source: file '%s' not found" % (case_path, task["source"]))
    if "reference" in task:
        ref = os.path.join(os.path.dirname(os.path.abspath(case_path)), task["reference"])
        task["reference"] = os.path.abspath(ref)
    os.makedirs(work, exist_ok=True)
    shutil.copyfile(src, os.path.join(work, "seed.cu"))
    task["source"] = "seed.cu"
    with open(os.path.join(work, "task.json"), "w") as f:
        json.dump(task, f, indent=2)
        f.write("\n")
    with open(os.path.join(work, "steps.tsv"), "w") as f:
        for s in c["rules"]:
            fields = [s["kernel"], s["rule"], s.get("skill", "")]
            fields += ["%s=%s" % kv for kv in s.get("params", {}).items()]
            f.write("\t".join(fields) + "\n")
    with open(os.path.join(work, "bench.args"), "w") as f:
        for k, v in c.get("bench", {}).items():
            f.write("--%s\n%s\n" % (k, v if not float(v).is_integer() else int(v)))
    return 0


def cmd_flags(path):
    with open(path, errors="replace") as f:
        for line in f:
            s = line.strip()
            if s.startswith("// kernelskill-flags:"):
                print(s[len("// kernelskill-flags:"):].strip())
                return 0
    return 0


def tolerance(task, arg):
    t = arg.get("tolerance") or task.get("tolerance")
    if t and (arg.get("tolerance") or arg["dtype"] in DEFAULT_TOL):
        return float(t.get("rtol", 0)), float(t.get("atol", 0))
    return DEFAULT_TOL.get(arg["dtype"], (0.0, 0.0))


def compare_file(ref_path, got_path, dtype, rtol, atol, exact_only):
    """(identical, max_abs, worst_ratio) of two output files; ratio = err / (atol + rtol |ref|)."""
    with open(ref_path, "rb") as f:
        ref = f.read()
    with open(got_path, "rb") as f:
        got = f.read()
    if ref == got:
        return True, 0.0, 0.0
    if exact_only:
        return False, None, None
    code, size = DTYPES[dtype]
    if code is None or len(ref) != len(got):
        return False, None, None
    try:
        import numpy as np
        npt = {"f": np.float32, "d": np.float64, "i": np.int32, "q": np.int64, "B": np.uint8}[code]
        r = np.frombuffer(ref, dtype=npt).astype(np.float64)
        g = np.frombuffer(got, dtype=npt).astype(np.float64)
        err = np.abs(g - r)
        allowed = atol + rtol * np.abs(r)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(allowed > 0, err / allowed, np.where(err > 0, np.inf, 0.0))
        return False, float(np.nanmax(err)), float(np.nanmax(ratio))
    except ImportError:
        pass
    r = array.array(code)
    r.frombytes(ref)
    g = array.array(code)
    g.frombytes(got)
    max_abs = 0.0
    worst = 0.0
    for e, v in zip(r, g):
        if e != v:
            d = abs(v - e)
            if d > max_abs:
                max_abs = d
            allowed = atol + rtol * abs(e)
            q = d / allowed if allowed > 0 else float("inf")
            if q > worst:
                worst = q
    return False, max_abs, worst


def output_errors(task, work, trials):
    """Distance of the candidate's outputs from the reference's, from the Reviewer's
    kept output files (--work). Every trial is compared bit for bit; the error sizes
    come from every trial with numpy, else from trial 0."""
    ref_dir = os.path.join(work, "review", "out-reference")
    got_dir = os.path.join(work, "review", "out-candidate")
    if not os.path.isdir(ref_dir) or not os.path.isdir(got_dir):
        return None
    try:
        import numpy  # noqa: F401
        have_np = True
    except ImportError:
        have_np = False
    res = {"identical": True, "max_abs": 0.0, "worst_tol_ratio": 0.0, "trials_compared": 0,
           "sizes_from": "all trials" if have_np else None}
    sized = None  # without numpy: the one trial whose error sizes are measured (the first that differs)
    for tr in range(trials):
        seen = False
        for i, a in enumerate(task["args"]):
            if a.get("kind") != "tensor" or a.get("intent") == "in":
                continue
            rp = os.path.join(ref_dir, "t%d_a%d.bin" % (tr, i))
            gp = os.path.join(got_dir, "t%d_a%d.bin" % (tr, i))
            if not (os.path.isfile(rp) and os.path.isfile(gp)):
                continue
            seen = True
            rtol, atol = tolerance(task, a)
            exact_only = not have_np and sized is not None and sized != tr
            same, mx, q = compare_file(rp, gp, a["dtype"], rtol, atol, exact_only)
            if same:
                continue
            res["identical"] = False
            if not have_np and not exact_only:
                sized = tr
                res["sizes_from"] = "trial %d" % tr
            if mx is not None:
                res["max_abs"] = max(res["max_abs"], mx)
                res["worst_tol_ratio"] = max(res["worst_tol_ratio"], q)
        res["trials_compared"] += seen
    return res if res["trials_compared"] else None


def cmd_result(case_path, work, evidence_path, out_path):
    c = load_case(case_path)
    with open(os.path.join(work, "task.json")) as f:
        task = json.load(f)
    name = os.path.splitext(os.path.basename(case_path))[0]
    rec = {"case": name, "rules": [s["rule"] + "".join(" %s=%s" % kv for kv in s.get("params", {}).items())
                                   for s in c["rules"]],
           "description": c.get("description", ""), "status": "error"}
    ev = None
    try:
        with open(evidence_path) as f:
            ev = json.load(f)
    except (OSError, ValueError):
        pass
    if ev is None:
        log = os.path.join(work, "bench.stderr")
        msg = ""
        if os.path.isfile(log):
            with open(log, errors="replace") as f:
                lines = [l.strip() for l in f if l.strip()]
            msg = lines[-1] if lines else ""
        rec["reason"] = msg or "no evidence record"
    else:
        corr = ev.get("correctness", {})
        tm = ev.get("timing", {})
        rec.update({
            "status": "ok",
            "verdict": ev.get("verdict"),
            "reason": ev.get("reason", ""),
            "correct": bool(corr.get("passed")),
            "trials": corr.get("trials"),
            "gpu": ev.get("gpu", {}),
            "arch": ev.get("arch"),
            "seed_us": (tm.get("seed") or {}).get("median_us"),
            "seed_iqr_us": (tm.get("seed") or {}).get("iqr_us"),
            "candidate_us": (tm.get("candidate") or {}).get("median_us"),
            "candidate_iqr_us": (tm.get("candidate") or {}).get("iqr_us"),
            "runs": tm.get("runs"),
            "noise_pct": tm.get("noise_pct"),
            "speedup": tm.get("speedup"),
        })
        if rec["correct"]:
            rec["errors"] = output_errors(task, work, int(corr.get("trials") or 5))
    with open(out_path, "w") as f:
        json.dump(rec, f, indent=2)
        f.write("\n")
    return 0


def fmt_us(v):
    return "%.1f" % v if isinstance(v, (int, float)) else "-"


def cmd_table(out_path, paths):
    recs = []
    for p in paths:
        with open(p) as f:
            recs.append(json.load(f))
    gpu = next((r["gpu"] for r in recs if r.get("gpu")), {})
    lines = []
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    gname = gpu.get("name", "unknown GPU")
    def cuda_ver(v):
        return "%d.%d" % (v // 1000, v % 1000 // 10) if isinstance(v, int) and v > 0 else ""
    extra = ", ".join(x for x in ["cc %s" % gpu["cc"] if gpu.get("cc") else "",
                                  "%s SMs" % gpu["sm_count"] if gpu.get("sm_count") else "",
                                  "CUDA driver %s" % cuda_ver(gpu.get("driver")) if cuda_ver(gpu.get("driver")) else "",
                                  "runtime %s" % cuda_ver(gpu.get("runtime")) if cuda_ver(gpu.get("runtime")) else ""]
                      if x)
    lines.append("Measured %s on %s%s with `bench/rules/run.sh` (the Reviewer, `kernelskill bench`: "
                 "seed and rewritten interleaved, cold L2, median of the timed runs)." % (date, gname, " (%s)" % extra if extra else ""))
    lines.append("")
    lines.append("| rule | case | correct | worst error | seed (us) | rewritten (us) | speedup | verdict |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for r in recs:
        rules = " -> ".join("`%s`" % x for x in r["rules"])
        if r.get("status") != "ok":
            lines.append("| %s | %s | - | - | - | - | - | error: %s |" % (rules, r["case"], r.get("reason", "")))
            continue
        if not r.get("correct"):
            corr, err = "no", r.get("reason", "")
        else:
            corr = "yes (%s trials)" % r.get("trials")
            e = r.get("errors")
            if e is None:
                err = "not measured"
            elif e["identical"]:
                err = "bitwise identical"
            else:
                err = "max abs %.3g, %.2g%% of tolerance (%s)" % (e["max_abs"], 100 * e["worst_tol_ratio"], e["sizes_from"])
        sp = r.get("speedup")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            rules, r["case"], corr, err.replace("|", "/"), fmt_us(r.get("seed_us")), fmt_us(r.get("candidate_us")),
            "%.2fx" % sp if isinstance(sp, (int, float)) and sp > 0 else "-", r.get("verdict", "")))
    text = "\n".join(lines) + "\n"
    with open(out_path, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == "prepare" and len(args) == 2:
            return cmd_prepare(*args)
        if cmd == "flags" and len(args) == 1:
            return cmd_flags(*args)
        if cmd == "result" and len(args) == 4:
            return cmd_result(*args)
        if cmd == "table" and len(args) >= 1:
            return cmd_table(args[0], args[1:])
    except CaseError as e:
        sys.stderr.write("%s\n" % e)
        return 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
