#!/usr/bin/env python3
"""run.py — re-measure "exact passthrough, no cost" for kernelskill-nvcc.

Builds the CMake project next to this script from clean three ways: plain nvcc,
kernelskill-nvcc as CMAKE_CUDA_COMPILER, and as CMAKE_CUDA_COMPILER_LAUNCHER
in front of nvcc (Ninja, one job, no store: every call is a passthrough). The
rounds interleave the three forms; per form, the median wall time of the clean
rebuild (`cmake --build --clean-first`) and of the CPU time its processes used,
and the median of the per-round ratios: a round builds the three forms back
to back, so a ratio within a round cancels the machine's slower drifts (a
shared host's clock), which medians taken per form do not. The verdict uses
the per-round ratio; the per-form spread (max/min of plain's own times) says
how noisy the machine was.
Then an output-identity check: every object file of each drop-in build equals
the plain build's, once nvcc's own temp names (tmpxft_<pid>_<n>-<k>) are
masked. Exit 1 when outputs differ, or --max-ratio is given and a ratio passes it.

  bench/build-three-ways/run.py --bin build/bin [--rounds 3] [--out DIR] [--max-ratio 1.03]

The last line is the verdict: "PASS" or "FAIL: <why>" (exit 0 or 1).
"""
import argparse, os, re, resource, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
TEMP_NAME = re.compile(rb"tmpxft_[0-9a-f]+_[0-9a-f]+(-[0-9]+)?")


def run(cmd, log):
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT)
    wall = time.monotonic() - t0
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("failed: %s (log: %s)" % (" ".join(cmd), log.name))
    return wall, (a.ru_utime - b.ru_utime) + (a.ru_stime - b.ru_stime)


def objects(tree):
    out = {}
    for d, _, fs in os.walk(tree):
        for f in fs:
            if f.endswith(".o"):
                out[os.path.relpath(os.path.join(d, f), tree)] = os.path.join(d, f)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/bin", help="folder holding kernelskill-nvcc")
    ap.add_argument("--nvcc", default=os.environ.get("KS_NVCC") or shutil.which("nvcc"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None)
    ap.add_argument("--max-ratio", type=float, default=None)
    o = ap.parse_args()
    if not o.nvcc or not os.access(o.nvcc, os.X_OK):
        print("run.py: no nvcc (pass --nvcc PATH or set KS_NVCC)", file=sys.stderr)
        sys.exit(2)
    if not os.access(os.path.join(o.bin, "kernelskill-nvcc"), os.X_OK):
        print("run.py: no kernelskill-nvcc in %s (pass --bin)" % o.bin, file=sys.stderr)
        sys.exit(2)
    dropin = os.path.abspath(os.path.join(o.bin, "kernelskill-nvcc"))
    out = os.path.abspath(o.out or tempfile.mkdtemp(prefix="ks-three-ways-"))
    os.makedirs(out, exist_ok=True)
    forms = {"plain": ["-DCMAKE_CUDA_COMPILER=" + o.nvcc],
             "compiler": ["-DCMAKE_CUDA_COMPILER=" + dropin],
             "launcher": ["-DCMAKE_CUDA_COMPILER=" + o.nvcc, "-DCMAKE_CUDA_COMPILER_LAUNCHER=" + dropin]}
    env_note = "KS_NVCC=%s" % o.nvcc
    os.environ["KS_NVCC"] = o.nvcc
    for name, args in forms.items():
        tree = os.path.join(out, name)
        shutil.rmtree(tree, ignore_errors=True)
        with open(os.path.join(out, name + ".configure.log"), "w") as log:
            run(["cmake", "-S", HERE, "-B", tree, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"] + args, log)
    wall = {n: [] for n in forms}
    cpu = {n: [] for n in forms}
    for r in range(o.rounds):
        order = list(forms)[r % 3:] + list(forms)[:r % 3]
        for name in order:
            with open(os.path.join(out, name + ".build.log"), "w") as log:
                w, c = run(["cmake", "--build", os.path.join(out, name), "--clean-first", "--", "-j1"], log)
            wall[name].append(w)
            cpu[name].append(c)
    print("clean rebuild (%d object files incl. CMake's probes), %d rounds, ninja -j1 (%s); median seconds" %
          (len(objects(os.path.join(out, "plain"))), o.rounds, env_note))
    base_w, base_c = statistics.median(wall["plain"]), statistics.median(cpu["plain"])
    bad = 0
    why = []
    for name in forms:
        mw, mc = statistics.median(wall[name]), statistics.median(cpu[name])
        print("  %-9s wall %7.2f (%.3fx)  cpu %7.2f (%.3fx)" % (name, mw, mw / base_w, mc, mc / base_c))
    print("  plain's own spread over the rounds: wall max/min %.3f, cpu max/min %.3f" %
          (max(wall["plain"]) / min(wall["plain"]), max(cpu["plain"]) / min(cpu["plain"])))
    print("per-round ratios to plain (each round builds the three forms back to back)")
    for name in ("compiler", "launcher"):
        rw = [a / b for a, b in zip(wall[name], wall["plain"])]
        rc = [a / b for a, b in zip(cpu[name], cpu["plain"])]
        mw = statistics.median(rw)
        print("  %-9s wall median %.3fx (%.3f..%.3f)  cpu median %.3fx (%.3f..%.3f)  rounds: %s" %
              (name, mw, min(rw), max(rw), statistics.median(rc), min(rc), max(rc),
               " ".join("%.3f" % x for x in rw)))
        if o.max_ratio and mw > o.max_ratio:
            bad = 1
            why.append("%s per-round wall ratio %.3fx > --max-ratio %.3f" % (name, mw, o.max_ratio))
    plain = objects(os.path.join(out, "plain"))
    for name in ("compiler", "launcher"):
        other = objects(os.path.join(out, name))
        same = raw = 0
        for rel, p in sorted(plain.items()):
            q = other.get(rel)
            if not q:
                print("  %s: %s missing" % (name, rel))
                bad = 1
                why.append("%s: %s missing" % (name, rel))
                continue
            a, b = open(p, "rb").read(), open(q, "rb").read()
            raw += a == b
            if TEMP_NAME.sub(b"tmpxft", a) == TEMP_NAME.sub(b"tmpxft", b):
                same += 1
            else:
                print("  %s: %s differs from the plain build's" % (name, rel))
                bad = 1
                why.append("%s: %s differs" % (name, rel))
        print("  %-9s outputs identical to plain: %d/%d objects (%d byte-identical before masking nvcc temp names)" %
              (name, same, len(plain), raw))
    print("trees and logs: %s" % out)
    print("PASS" if not bad else "FAIL: " + "; ".join(why))
    return bad


if __name__ == "__main__":
    sys.exit(main())
