"""three_ways.py — one file's features document three ways: the plugin on the
AST it shares with libclang in the process (the default), the plugin on the
AST file it writes instead (KS_PLUGIN_SHARE=0), and the CLI's own libclang
parse. Exits non-zero, naming the first difference, unless all three are the
same apart from parse.seconds; prints the plugin's profile lines that say
which path each run took (for FileCheck), each prefixed with the run's name.

  three_ways.py --out DIR --file F.cu [--device] [--whole-tu] -- CLANG ARGS...
"""
import argparse, json, os, subprocess, sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    d["parse"].pop("seconds", None)
    return d


def main():
    argv = sys.argv[1:]
    cut = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--file", required=True)
    ap.add_argument("--device", action="store_true")
    ap.add_argument("--whole-tu", action="store_true")
    o = ap.parse_args(argv[:cut])
    clang = argv[cut + 1:]
    base = os.path.join(o.out, os.path.basename(o.file))
    form = ["--cuda-device-only", "-S", "-o", base + ".s"] if o.device else ["-fsyntax-only"]
    docs = {}
    for name, env in [("shared", {}), ("file", {"KS_PLUGIN_SHARE": "0"})]:
        env = dict(os.environ, KS_PLUGIN_PROFILE="1", **env)
        if o.whole_tu:
            env["KS_PLUGIN_WHOLE_TU"] = "1"
        out = "%s.%s.json" % (base, name)
        r = subprocess.run(clang + ["--cuda-gpu-arch=sm_90", "-fplugin-arg-kernelskill-mode=features",
                                    "-fplugin-arg-kernelskill-out=" + out] + form + [o.file],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            sys.exit("%s: the plugin's compile failed (%d):\n%s" % (name, r.returncode, r.stdout[-3000:]))
        for line in r.stdout.splitlines():
            if line.startswith("kernelskill profile:") and ("ast-" in line or "top-level" in line):
                print("%s: %s" % (name, line[len("kernelskill profile:"):].strip()))
        docs[name] = load(out)
    cli = base + ".cli.json"
    with open(cli, "w") as f:
        subprocess.run(["kernelskill", "features", o.file, "--json"] + (["--device"] if o.device else []),
                       stdout=f, check=True)
    docs["cli"] = load(cli)
    for name in ("shared", "file"):
        a, b = docs[name], docs["cli"]
        if a != b:
            key = next(k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k))
            sys.exit("%s: the plugin's document (%s) differs from the CLI's at %r:\n%s\n%s" %
                     (o.file, name, key, json.dumps(a.get(key))[:1500], json.dumps(b.get(key))[:1500]))
    print("same: %d kernels" % len(docs["cli"].get("kernels", [])))


if __name__ == "__main__":
    main()
