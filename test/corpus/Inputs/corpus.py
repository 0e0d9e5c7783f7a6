#!/usr/bin/env python3
"""corpus.py -- run the corpus manifest (test/corpus/Inputs/manifest.json):
the Feature Extractor's shape class of every kernel, every rule on every
kernel, nvcc on every applied rewrite. Used by test/corpus/corpus.test (which
fails on a wrong class, a missing 'must' rule, a 'must_not' application or a
rewrite nvcc rejects) and by bench/corpus (which prints recall and precision).

usage: corpus.py --kernelskill BIN --nvcc NVCC --out DIR [--report] [--jobs N]
"""
import argparse, json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernelskill", required=True)
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--report", action="store_true", help="print recall/precision; exit 0 unless a tool crashed")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    man = json.load(open(os.path.join(HERE, "manifest.json")))
    rules = man["rules"]
    os.makedirs(a.out, exist_ok=True)
    problems = []
    classes = {}
    for f in man["files"]:
        rc, out, err = run([a.kernelskill, "features", "--json", os.path.join(HERE, f)])
        if rc != 0:
            problems.append("%s: features exit %d: %s" % (f, rc, err.strip()))
            continue
        for k in json.loads(out)["kernels"]:
            classes[(f, k["name"])] = k["shape"]["class"]
    jobs = []
    for f, kernels in man["files"].items():
        for k, exp in kernels.items():
            got = classes.get((f, k))
            if got != exp["class"]:
                problems.append("%s:%s: class %s, expected %s" % (f, k, got, exp["class"]))
            for r in rules:
                jobs.append((f, k, r))

    def one(job):
        f, k, r = job
        dst = os.path.join(a.out, "%s.%s.%s.cu" % (f[:-3], k, r))
        rc, _, err = run([a.kernelskill, "rewrite", os.path.join(HERE, f), "--kernel", k, "--rule", r, "-o", dst])
        if rc not in (0, 1):
            return job, "crash", "exit %d: %s" % (rc, err.strip())
        if rc != 0:
            return job, "refused", err.strip()
        rc, _, err = run([a.nvcc, "-c", "-arch=sm_90", dst, "-o", dst + ".o"])
        return job, "applied" if rc == 0 else "bad-rewrite", err.strip()[-400:]

    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        results = list(ex.map(one, jobs))
    n_expected = n_applied_expected = n_wrong = n_applied = 0
    for (f, k, r), status, msg in results:
        exp = man["files"][f][k]
        applied = status == "applied"
        n_applied += applied
        if status in ("crash", "bad-rewrite"):
            problems.append("%s:%s rule %s: %s: %s" % (f, k, r, status, msg))
        if r in exp["must"] or r in exp.get("should", []):
            n_expected += 1
            n_applied_expected += applied
        if r in exp["must"] and not applied:
            problems.append("%s:%s: rule %s must apply: %s" % (f, k, r, msg))
        if r in exp["must_not"] and applied:
            n_wrong += 1
            problems.append("%s:%s: rule %s must not apply" % (f, k, r))
        if a.report and r in exp.get("should", []) and not applied:
            print("  missed: %s:%s %s -- %s" % (f, k, r, msg.splitlines()[-1] if msg else ""))
    nk = sum(len(v) for v in man["files"].values())
    nclass = sum(1 for f, ks in man["files"].items() for k, e in ks.items() if classes.get((f, k)) == e["class"])
    print("corpus: %d kernels, classes right %d/%d" % (nk, nclass, nk))
    print("corpus: recall %d/%d = %.1f%% (rules applied / rules expected)" %
          (n_applied_expected, n_expected, 100.0 * n_applied_expected / max(1, n_expected)))
    print("corpus: wrong applications %d (of %d applications)" % (n_wrong, n_applied))
    for p in problems:
        print("PROBLEM: " + p)
    if a.report:
        return 1 if any("crash" in p for p in problems) else 0
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
