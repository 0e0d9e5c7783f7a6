#!/usr/bin/env python3
"""tasks.py -- the corpus tasks (test/corpus/Inputs/*.task.json, issue 14):
checks what `kernelskill task check` cannot see without a GPU, and lists the
tasks for bench/corpus/gpu.sh.

  tasks.py check --kernelskill BIN   every task passes `task check`; its entry
                                     is defined extern "C" in its source with
                                     one parameter per arg, pointers for the
                                     tensors (element type = dtype, no const on
                                     out/inout), values for the scalars; the
                                     entry launches the kernel the manifest
                                     names; every shape class has a task.
  tasks.py list                      TASKFILE CLASS KERNEL per line, round-robin
                                     over the classes (a prefix covers them all).

The manifests' "tasks" (manifest-*.json) map each task file to the corpus
kernel it runs; the class is that kernel's "class" in the manifest.
"""
import glob, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CLASSES = ["map", "row-reduce", "column-walk", "gemm", "stencil", "transpose", "gather", "other"]
# element types as the entries spell them, after the file's typedefs
CTYPES = {"float": "f32", "__half": "f16", "half": "f16", "__nv_bfloat16": "bf16", "double": "f64",
          "int": "i32", "int32_t": "i32", "long": "i64", "long long": "i64", "int64_t": "i64",
          "unsigned char": "u8", "uint8_t": "u8"}


def strip_comments(s):
    s = re.sub(r"/\*.*?\*/", " ", s, flags=re.S)
    return re.sub(r"//[^\n]*", " ", s)


def entry_of(src, name):
    """(params text, body text, line) of `extern "C" ... name(...) {...}`."""
    text = strip_comments(src)
    m = re.search(r'extern\s+"C"\s+void\s+' + re.escape(name) + r"\s*\(([^)]*)\)\s*\{", text)
    if not m:
        return None
    depth, i = 1, m.end()
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return m.group(1), text[m.end():i], text[:m.start()].count("\n") + 1


def param_type(p, typedefs):
    """(dtype or None, is_pointer, is_const) of one parameter declaration."""
    p = re.sub(r"\b__restrict__\b", " ", p)
    ptr = "*" in p
    const = bool(re.search(r"\bconst\b", p.split("*")[0])) if ptr else False
    words = re.sub(r"[*&]", " ", p).split()[:-1]  # drop the name
    words = [w for w in words if w != "const"]
    base = " ".join(words)
    base = typedefs.get(base, base)
    return CTYPES.get(base), ptr, const


def load():
    sys.path.insert(0, HERE)
    from corpus import load_manifest
    man = load_manifest()
    tasks = []
    for tf in sorted(glob.glob(os.path.join(HERE, "*.task.json"))):
        name = os.path.basename(tf)
        t = json.load(open(tf))
        kernel = man.get("tasks", {}).get(name)
        exp = man["files"].get(t.get("source", ""), {}).get(kernel) if kernel else None
        tasks.append((name, tf, t, kernel, exp["class"] if exp else None))
    return man, tasks


def check(ks):
    man, tasks = load()
    bad = []
    for tname in man.get("tasks", {}):
        if not os.path.exists(os.path.join(HERE, tname)):
            bad.append("manifest names task %s: no such file" % tname)
    seen = set()
    for name, tf, t, kernel, cls in tasks:
        p = subprocess.run([ks, "task", "check", tf], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            bad.append("%s: task check exit %d: %s" % (name, p.returncode, p.stderr.strip()))
            continue
        if not kernel or not cls:
            bad.append("%s: the manifest's \"tasks\" names no corpus kernel of %s for it" % (name, t.get("source")))
            continue
        seen.add(cls)
        src = open(os.path.join(HERE, t["source"])).read()
        typedefs = dict((b, a) for a, b in re.findall(r"typedef\s+([\w ]+?)\s+(\w+)\s*;", src))
        e = entry_of(src, t["entry"])
        if not e:
            bad.append("%s: no extern \"C\" void %s(...) { } in %s" % (name, t["entry"], t["source"]))
            continue
        params, body, line = e
        plist = [x.strip() for x in params.split(",") if x.strip()]
        args = t["args"]
        where = "%s (%s:%d)" % (name, t["source"], line)
        if len(plist) != len(args):
            bad.append("%s: the entry has %d parameters, the task %d args" % (where, len(plist), len(args)))
            continue
        for a, p in zip(args, plist):
            dt, ptr, const = param_type(p, typedefs)
            if a["kind"] == "tensor":
                if not ptr:
                    bad.append("%s: arg %s is a tensor, parameter '%s' is not a pointer" % (where, a["name"], p))
                elif a.get("intent") in ("out", "inout") and const:
                    bad.append("%s: arg %s is %s, parameter '%s' is const" % (where, a["name"], a["intent"], p))
            elif ptr:
                bad.append("%s: arg %s is a scalar, parameter '%s' is a pointer" % (where, a["name"], p))
            if dt is None:
                bad.append("%s: parameter '%s': element type not known to tasks.py" % (where, p))
            elif dt != a["dtype"]:
                bad.append("%s: arg %s is %s, parameter '%s' is %s" % (where, a["name"], a["dtype"], p, dt))
        if not re.search(r"\b" + re.escape(kernel) + r"\b(\s*<[^<>]*>)?\s*<<<", body):
            bad.append("%s: the entry does not launch %s" % (where, kernel))
    for c in CLASSES:
        if c not in seen:
            bad.append("no task of class %s" % c)
    for b in bad:
        print("PROBLEM: " + b)
    print("tasks: %d, classes %s" % (len(tasks), " ".join("%s=%d" % (c, sum(1 for x in tasks if x[4] == c)) for c in CLASSES)))
    return 1 if bad else 0


def listing():
    """Round-robin over the classes (in CLASSES order), so that any prefix of
    the list covers the classes as evenly as it can."""
    _, tasks = load()
    queues = [[x for x in tasks if x[4] == c] for c in CLASSES] + [[x for x in tasks if x[4] not in CLASSES]]
    order = []
    while any(queues):
        for q in queues:
            if q:
                order.append(q.pop(0))
    for name, _, _, kernel, cls in order:
        print(name, cls or "?", kernel or "?")
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "check" and sys.argv[2] == "--kernelskill":
        return check(sys.argv[3])
    if len(sys.argv) == 2 and sys.argv[1] == "list":
        return listing()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
