#!/usr/bin/env python3
"""corpus.py -- run the corpus manifest (test/corpus/Inputs/manifest.json):
the Feature Extractor's shape class of every kernel, every rule on every
kernel, nvcc on every applied rewrite. Used by test/corpus/corpus.test (which
fails on a wrong class, a missing 'must' rule, a 'must_not' application or a
rewrite nvcc rejects) and by bench/corpus (which prints recall and precision).

The manifest is manifest.json plus every manifest-*.json beside it (merged:
"files", "tasks"). Each manifest's "rules" are run on its own kernels; a rule
a kernel's entry names in none of must / should / must_not is not run on it
when it is not one of that manifest's first five (the original rule set). A
rule `kernelskill rewrite --list` does not know yet counts as not applied
(status "no-rule"): the recall shows the gap. A kernel's "class" is what it
is; "class_now", where present, is the class today's Feature Extractor gives
instead: a known gap, counted against the classes-right figure but not a
failure. Any other class is a failure.

usage: corpus.py --kernelskill BIN --nvcc NVCC --out DIR [--report] [--jobs N]
                 [--only FILE.cu ...] [--dump RESULTS.json]
"""
import argparse, hashlib, json, os, subprocess, sys, threading
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


BASE_RULES = 5  # rules every kernel of a manifest is run with (the first five of its list)


def load_manifest():
    """manifest.json and manifest-*.json merged: files, the rules of each
    file's manifest, tasks."""
    import glob
    paths = [os.path.join(HERE, "manifest.json")] + sorted(glob.glob(os.path.join(HERE, "manifest-*.json")))
    man = {"files": {}, "rules_of": {}, "tasks": {}, "rules": []}
    for p in paths:
        m = json.load(open(p))
        for r in m["rules"]:
            if r not in man["rules"]:
                man["rules"].append(r)
        for f, ks in m["files"].items():
            if f in man["files"]:
                raise SystemExit("corpus.py: %s is in two manifests" % f)
            man["files"][f] = ks
            man["rules_of"][f] = m["rules"]
        man["tasks"].update(m.get("tasks", {}))
    return man


def rules_for(man, f, exp):
    named = set(exp["must"]) | set(exp.get("should", [])) | set(exp["must_not"]) | set(exp.get("must_not_now", []))
    rs = man["rules_of"][f]
    return [r for i, r in enumerate(rs) if i < BASE_RULES or r in named]


def check_manifest(man):
    """The manifest's own consistency: every rule named is a known rule, no
    rule is both expected and forbidden, every kernel has a class."""
    bad = []
    for f, ks in man["files"].items():
        rules = set(man["rules_of"][f])
        for k, e in ks.items():
            where = "%s:%s" % (f, k)
            if "class" not in e:
                bad.append(where + ": no class")
            lists = {n: set(e.get(n, [])) for n in ("must", "should", "must_not", "must_not_now")}
            for n, s in lists.items():
                for r in s - rules:
                    bad.append("%s: %s names unknown rule %s" % (where, n, r))
            for r in (lists["must"] | lists["should"]) & (lists["must_not"] | lists["must_not_now"]):
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
    man = load_manifest()
    rc, out, err = run([a.kernelskill, "rewrite", "--list"])
    if rc != 0:
        print("corpus.py: kernelskill rewrite --list: exit %d: %s" % (rc, err.strip()), file=sys.stderr)
        return 2
    known = set(line.split()[0] for line in out.splitlines() if line.strip())
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
            for r in rules_for(man, f, exp):
                jobs.append((f, k, r))

    compiled, lock = {}, threading.Lock()

    def one(job):
        f, k, r = job
        if r not in known:
            return job, "no-rule", "no rule %s in this kernelskill" % r
        dst = os.path.join(a.out, "%s.%s.%s.cu" % (f[:-3], k, r))
        rc, _, err = run([a.kernelskill, "rewrite", os.path.join(HERE, f), "--kernel", k, "--rule", r, "-o", dst])
        if rc not in (0, 1):
            return job, "crash", "exit %d: %s" % (rc, err.strip())
        if rc != 0:
            return job, "refused", err.strip()
        # identical outputs (an "already applied" rule leaves the file as it
        # was) are compiled once
        h = hashlib.sha256(open(dst, "rb").read()).hexdigest()
        with lock:
            hit = compiled.get(h)
        if hit is None:
            rc, _, err = run([a.nvcc, "-c", "-arch=sm_90", dst, "-o", dst + ".o"])
            hit = (rc, err.strip()[-400:])
            with lock:
                compiled[h] = hit
        return job, "applied" if hit[0] == 0 else "bad-rewrite", hit[1]

    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        results = list(ex.map(one, jobs))
    n_expected = n_applied_expected = n_wrong = n_known_wrong = n_applied = 0
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
        if r in exp.get("must_not_now", []) and applied:
            n_known_wrong += 1
            if a.report:
                print("  known wrong application: %s:%s %s" % (f, k, r))
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
    print("corpus: wrong applications %d (%d unexpected, %d known: must_not_now) of %d applications" %
          (n_wrong + n_known_wrong, n_wrong, n_known_wrong, n_applied))
    if a.report:
        by = {}
        for (f, k, r), status, _ in results:
            exp = files[f][k]
            if r in exp["must"] or r in exp.get("should", []):
                e = by.setdefault(r, [0, 0, 0])
                e[0] += status == "applied"
                e[1] += 1
                e[2] += status == "no-rule"
        print("corpus: by rule (applied/expected): " + ", ".join(
            "%s %d/%d%s" % (r, e[0], e[1], " (no such rule yet)" if e[2] == e[1] else "") for r, e in sorted(by.items())))
        byc = {}
        for (f, k, r), status, _ in results:
            exp = files[f][k]
            if r in exp["must"] or r in exp.get("should", []):
                e = byc.setdefault(exp["class"], [0, 0])
                e[0] += status == "applied"
                e[1] += 1
        print("corpus: by class (applied/expected): " + ", ".join("%s %d/%d" % (c, e[0], e[1]) for c, e in sorted(byc.items())))
        cnt = {}
        for f, ks in files.items():
            for k, e in ks.items():
                cnt[e["class"]] = cnt.get(e["class"], 0) + 1
        print("corpus: kernels by class: " + ", ".join("%s %d" % (c, n) for c, n in sorted(cnt.items())))
    for p in problems:
        print("PROBLEM: " + p)
    if a.report:
        return 1 if any("crash" in p for p in problems) else 0
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
