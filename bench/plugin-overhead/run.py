#!/usr/bin/env python3
"""run.py — what `clang -fplugin=kernelskill.so` costs over the plain compile.

For each CUDA file in src/ (five styles, several kernels each), the median CPU
time (user + sys of clang and its jobs, so a loaded machine's waiting does not
count) of: the plain compile; the plugin's report and features modes (which
analyse clang's own AST, shared with libclang in the process); and, for
comparison, report on the AST written to a file and read back
(KS_PLUGIN_SHARE=0, the fallback) and with KS_PLUGIN_REPARSE=1 (a second
libclang parse). Two compile forms: -fsyntax-only and a device-only -S. The
runs of one file and form are interleaved. Prints the ratios to the plain
compile and their geometric means.

  bench/plugin-overhead/run.py --build build [--runs 3] [--clang clang-19]
"""
import argparse, math, os, resource, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu(cmd, env):
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr[-2000:]))
    return (a.ru_utime - b.ru_utime) + (a.ru_stime - b.ru_stime), r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--cuda", default="/usr/local/cuda")
    ap.add_argument("--arch", default="sm_90")
    o = ap.parse_args()
    build = os.path.abspath(o.build)
    plugin = os.path.join(build, "lib", "kernelskill.so")
    stub = os.path.join(build, "share", "kernelskill", "cuda-stub")
    base = [o.clang, "-x", "cuda", "--cuda-path=" + o.cuda, "-Wno-unknown-cuda-version", "-isystem", stub,
            "-isystem", os.path.join(o.cuda, "include", "cccl"), "--cuda-gpu-arch=" + o.arch]
    files = sorted(f for f in os.listdir(os.path.join(HERE, "src")) if f.endswith(".cu"))
    tmp = tempfile.mkdtemp(prefix="ks-plugin-bench-")
    forms = {"syntax": ["-fsyntax-only"], "device-S": ["--cuda-device-only", "-S", "-o", os.path.join(tmp, "o.s")]}
    variants = [("report", ["-fplugin-arg-kernelskill-mode=report"], {}),
                ("features", ["-fplugin-arg-kernelskill-mode=features",
                              "-fplugin-arg-kernelskill-out=" + os.path.join(tmp, "f.json")], {}),
                ("ast-file", ["-fplugin-arg-kernelskill-mode=report"], {"KS_PLUGIN_SHARE": "0"}),
                ("reparse", ["-fplugin-arg-kernelskill-mode=report"], {"KS_PLUGIN_REPARSE": "1"})]
    ratios = {(f, v[0]): [] for f in forms for v in variants}
    print("%-20s %-9s %8s %8s %8s %8s %8s   (median CPU s of %d runs, interleaved; ratios to plain)" %
          ("file", "form", "plain", "report", "features", "ast-file", "reparse", o.runs))
    for name in files:
        src = os.path.join(HERE, "src", name)
        for form, fl in forms.items():
            cmds = [("plain", base + fl + [src], dict(os.environ))]
            for label, extra, envx in variants:
                cmds.append((label, base + fl + ["-fplugin=" + plugin] + extra + [src], dict(os.environ, **envx)))
            # Untimed: the report run must give remarks, from the shared AST.
            _, err = cpu(cmds[1][1], dict(cmds[1][2], KS_PLUGIN_PROFILE="1"))
            if "remark: kernelskill" not in err or "profile: ast-share " not in err:
                sys.exit("%s %s: no remarks, or not from the shared AST:\n%s" % (name, form, err[-1500:]))
            runs = {label: [] for label, _, _ in cmds}
            for _ in range(o.runs):  # interleaved, so that drift in the machine's load hits all alike
                for label, cmd, env in cmds:
                    runs[label].append(cpu(cmd, env)[0])
            t = {label: statistics.median(v) for label, v in runs.items()}
            for v in variants:
                ratios[(form, v[0])].append(t[v[0]] / t["plain"])
            print("%-20s %-9s %8.2f %7.2fx %7.2fx %7.2fx %7.2fx" % (name, form, t["plain"], t["report"] / t["plain"],
                  t["features"] / t["plain"], t["ast-file"] / t["plain"], t["reparse"] / t["plain"]), flush=True)
    print()
    for form in forms:
        g = {v[0]: math.exp(sum(map(math.log, ratios[(form, v[0])])) / len(files)) for v in variants}
        mx = max(ratios[(form, "report")] + ratios[(form, "features")])
        print("geomean %-9s report %.2fx  features %.2fx  (ast-file %.2fx, reparse %.2fx); worst report/features %.2fx" %
              (form, g["report"], g["features"], g["ast-file"], g["reparse"], mx))


if __name__ == "__main__":
    main()
