#!/usr/bin/env python3
"""bench_nvcc.py — overhead of kernelskill-nvcc against plain nvcc, on the
compile commands CMake issues for examples/cmake (passthrough: vadd.cu, no
store entry; store hit: transpose.cu), and the drop-in's own cost per call
measured against a do-nothing stand-in nvcc. Prints figures; see docs/nvcc.md.

usage: bench_nvcc.py --dropin PATH/kernelskill-nvcc [--nvcc NVCC] [--reps N] [--calls N]
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.normpath(os.path.join(HERE, "..", "..", "examples", "cmake"))


def cmake_line(nvcc, src, obj):
    """The compile command CMake 3.25's Ninja generator writes for the example."""
    return [nvcc, "-forward-unknown-to-host-compiler", "-I" + os.path.dirname(src), "-O3", "-DNDEBUG",
            "--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-std=c++17", "-MD", "-MT", obj,
            "-MF", obj + ".d", "-x", "cu", "-c", src, "-o", obj]


def run(argv, env):
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def interleaved(cmds, reps, env):
    """Run each command reps times, interleaved (a b a b ...) so that load
    drifts hit all alike; return the medians and the spreads (IQR)."""
    times = [[] for _ in cmds]
    for _ in range(reps):
        for i, c in enumerate(cmds):
            times[i].append(run(c, env))
    out = []
    for t in times:
        q = statistics.quantiles(t, n=4) if len(t) >= 4 else [min(t), statistics.median(t), max(t)]
        out.append((statistics.median(t), q[2] - q[0]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dropin", required=True)
    ap.add_argument("--nvcc", default=shutil.which("nvcc"))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--calls", type=int, default=200)
    a = ap.parse_args()
    dropin = os.path.abspath(a.dropin)
    env = dict(os.environ)
    env.pop("KS_STORE", None)
    env.pop("KS_MODE", None)
    env["KS_NVCC"] = a.nvcc
    env["KS_QUIET"] = "1"
    work = tempfile.mkdtemp(prefix="ks-bench-nvcc-")
    try:
        proj = os.path.join(work, "proj")
        shutil.copytree(EXAMPLE, proj, ignore=shutil.ignore_patterns("build*"))
        src = os.path.join(proj, "src")
        # the verified source as nvcc would see it through the drop-in
        hand = os.path.join(work, "hand")
        os.makedirs(hand)
        entry = glob.glob(os.path.join(proj, ".kernelskill", "store", "transpose.cu.*.sm_90"))[0]
        with open(os.path.join(entry, "optimized.cu")) as f:
            opt = f.read()
        with open(os.path.join(hand, "transpose.cu"), "w") as f:
            f.write('#line 1 "%s"\n' % os.path.join(src, "transpose.cu") + opt)
        os.chdir(work)
        print("kernelskill-nvcc overhead (examples/cmake compile lines, sm_90, median of %d, interleaved)" % a.reps)
        print("%-34s %10s %10s %9s" % ("", "plain s", "drop-in s", "overhead"))
        rows = [
            ("passthrough (vadd.cu, no entry)", cmake_line(a.nvcc, os.path.join(src, "vadd.cu"), "p.o"),
             cmake_line(dropin, os.path.join(src, "vadd.cu"), "d.o")),
            ("store hit vs nvcc on original", cmake_line(a.nvcc, os.path.join(src, "transpose.cu"), "p.o"),
             cmake_line(dropin, os.path.join(src, "transpose.cu"), "d.o")),
            ("store hit vs nvcc on verified src", cmake_line(a.nvcc, os.path.join(hand, "transpose.cu"), "p.o")
             + ["-Xcompiler=-iquote," + src], cmake_line(dropin, os.path.join(src, "transpose.cu"), "d.o")),
        ]
        for name, plain, drop in rows:
            (mp, sp), (md, sd) = interleaved([plain, drop], a.reps, env)
            print("%-34s %6.3f±%.3f %6.3f±%.3f %+8.1f%%" % (name, mp, sp, md, sd, 100.0 * (md - mp) / mp))
        # The drop-in's own cost: a stand-in nvcc that does nothing.
        true = shutil.which("true")
        env2 = dict(env)
        env2["KS_NVCC"] = true
        n = a.calls
        base = [true] + cmake_line("x", os.path.join(src, "vadd.cu"), "d.o")[1:]
        t_true = min(sum(run(base, env2) for _ in range(n)) / n for _ in range(3))
        t_pass = min(sum(run([dropin] + base[1:], env2) for _ in range(n)) / n for _ in range(3))
        hit = [dropin] + cmake_line("x", os.path.join(src, "transpose.cu"), "d.o")[1:]
        t_hit = min(sum(run(hit, env2) for _ in range(n)) / n for _ in range(3))
        print("\nper call, against a do-nothing nvcc (best of 3 x %d calls):" % n)
        print("  true directly                 %7.2f ms" % (1000 * t_true))
        print("  drop-in, passthrough          %7.2f ms  (+%.2f ms)" % (1000 * t_pass, 1000 * (t_pass - t_true)))
        print("  drop-in, store hit            %7.2f ms  (+%.2f ms)" % (1000 * t_hit, 1000 * (t_hit - t_true)))
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
