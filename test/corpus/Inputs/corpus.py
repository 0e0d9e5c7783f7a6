#!/usr/bin/env python3
"""corpus.py -- run the corpus manifest (test/corpus/Inputs/manifest.json):
the Feature Extractor's shape class of every kernel, every rule on every
kernel, nvcc on every applied rewrite. Used by test/corpus/corpus.test (which
fails on a wrong class, a missing 'must' rule, a 'must_not' application or a
rewrite nvcc rejects) and by bench/corpus (which prints recall and precision).

A kernel's "class" is what it is; "class_now", where present, is the class
today's Feature Extractor gives instead: a known gap, counted against the
classes-right figure but not a failure. Any other class is a failure.

usage: corpus.py --kernelskill BIN --nvcc NVCC --out DIR [--report] [--jobs N]
                 [--only FILE.cu ...] [--dump RESULTS.json]
"""
import argparse, json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def check_manifest(man):
    """The manifest's own consistency: every rule named is a known rule, no
    rule is both expected and forbidden, every kernel has a class."""
    bad = []
    rules = set(man["rules"])
    for f, ks in man["files"].items():
        for k, e in ks.items():
            where = "%s:%s" % (f, k)
            if "class" not in e:
                bad.append(where + ": no class")
            lists = {n: set(e.get(n, [])) for n in ("must", "should", "must_not")}
            for n, s in lists.items():
                for r in s - rules:
                    bad.append("%s: %s names unknown rule %s" % (where, n, r))
            for r in (lists["must"] | lists["should"]) & lists["must_not"]:
                bad.append("%s: rule %s both expected and forbidden" % (where, r))
            for r in lists["must"] & lists["should"]:
                bad.append("%s: rule %s in both must and should" % (where, r))
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernelskill", required=True)
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--report", action="store_true", help="print recall/precision and the misses; exit 0 unless a tool crashed")
    ap.add_argument("--jobs", type=int, default=max(2, min(8, os.cpu_count() or 2)))
    ap.add_argument("--only", nargs="*", default=None, help="only these corpus files")
    ap.add_argument("--dump", help="write every (file, kernel, rule) status as JSON here")
    a = ap.parse_args()
    man = json.load(open(os.path.join(HERE, "manifest.json")))
    rules = man["rules"]
    files = {f: ks for f, ks in man["files"].items() if a.only is None or f in a.only}
    os.makedirs(a.out, exist_ok=True)
    problems = check_manifest(man)
    classes, whys = {}, {}
    for f in files:
        rc, out, err = run([a.kernelskill, "features", "--json", os.path.join(HERE, f)])
        if rc != 0:
            problems.append("%s: features exit %d: %s" % (f, rc, err.strip()))
            continue
        for k in json.loads(out)["kernels"]:
            classes[(f, k["name"])] = k["shape"]["class"]
            whys[(f, k["name"])] = k["shape"].get("why", "")
    jobs = []
    nclass = ngap = 0
    for f, kernels in files.items():
        for k, exp in kernels.items():
            got = classes.get((f, k))
            if got == exp["class"]:
                nclass += 1
            elif "class_now" in exp and got == exp["class_now"]:
                ngap += 1
                if a.report:
                    print("  class gap: %s:%s is %s, the Feature Extractor says %s" % (f, k, exp["class"], got))
            else:
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
    dump = []
    for (f, k, r), status, msg in results:
        exp = files[f][k]
        applied = status == "applied"
        n_applied += applied
        dump.append({"file": f, "kernel": k, "rule": r, "status": status, "class": classes.get((f, k)),
                     "message": (msg.splitlines() or [""])[-1]})
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
    if a.dump:
        with open(a.dump, "w") as fh:
            json.dump({"classes": {"%s:%s" % fk: [c, whys.get(fk, "")] for fk, c in classes.items()},
                       "results": dump}, fh, indent=1)
    nk = sum(len(v) for v in files.values())
    print("corpus: %d kernels, classes right %d/%d, known gaps %d, wrong %d" % (nk, nclass, nk, ngap, nk - nclass - ngap))
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
