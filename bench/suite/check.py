#!/usr/bin/env python3
# Structural check of the benchmark suite (bench/suite/*/task.json, format v1):
# fields and types, dims used by shapes/values/cost, cost.bytes equal to the
# compulsory traffic of the tensors, the entry's parameters in seed.cu against the
# args, torch_ref.py's forward() against the args, the README table against the
# task files, and an nvcc compile of every seed. Plain python3, no third-party
# modules, no GPU. Exit codes: 0 all good, 1 a task has a problem, 2 usage or
# environment (no nvcc).
import argparse
import ast
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from suite_common import (DTYPE_BYTES, DTYPES, ExprError, default_init, eval_expr, expr_names,  # noqa: E402
                          scalar_value)

DEFAULT_TOL = {"rtol": 1e-4, "atol": 1e-5}
# The keys lib/task/task.c accepts (it rejects unknown ones); the suite also requires
# a description.
TOP_KEYS = {"ks_task", "name", "description", "source", "reference", "entry", "dims", "args",
            "tolerance", "cost", "libraries", "trials", "timeout_s", "seed"}
REQUIRED = ["ks_task", "name", "description", "source", "entry", "dims", "args", "tolerance", "cost"]
DISTS = {"normal": ({"mean", "std"}, "f"), "uniform": ({"low", "high"}, "f"),
         "randint": ({"low", "high"}, "i")}
C_TYPES = {"f32": {"float"}, "i32": {"int", "int32_t"},
           "i64": {"long long", "int64_t", "long", "long long int"}}
MIN_LARGEST_TENSOR = 16 * 1000 * 1000  # "tens of MB per tensor at least"
COMPUTE_BOUND = 100  # flops per byte: far above any GPU's balance point (H200: ~14 FP32)
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Task:
    def __init__(self, folder):
        self.folder = folder
        self.dir = os.path.join(HERE, folder)
        self.errors = []
        self.data = None
        self.tensors = []  # (name, dtype, shape ints, intent)

    def err(self, where, msg):
        self.errors.append("%s: %s" % (os.path.join("bench/suite", self.folder, where), msg))


def check_expr(t, where, expr, dims):
    try:
        for n in expr_names(expr):
            if n not in dims:
                t.err("task.json", "%s: %r uses unknown dim %r" % (where, expr, n))
                return None
        return eval_expr(expr, dims)
    except ExprError as e:
        t.err("task.json", "%s: %s" % (where, e))
        return None


def check_json(t):
    path = os.path.join(t.dir, "task.json")
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        t.err("task.json", "not valid JSON: %s" % e)
        return
    t.data = d
    if not isinstance(d, dict):
        t.err("task.json", "top level must be an object")
        return
    for k in REQUIRED:
        if k not in d:
            t.err("task.json", "missing field %r" % k)
    for k in d:
        if k not in TOP_KEYS:
            t.err("task.json", "unknown field %r (format v1)" % k)
    if any(k not in d for k in REQUIRED):
        return
    if not isinstance(d["description"], str) or not d["description"].strip():
        t.err("task.json", "description must be a non-empty string")
    if d["ks_task"] != 1:
        t.err("task.json", "ks_task must be 1")
    if d["name"] != t.folder:
        t.err("task.json", "name %r differs from its folder %r" % (d["name"], t.folder))
    if not isinstance(d["source"], str) or not os.path.isfile(os.path.join(t.dir, d["source"])):
        t.err("task.json", "source %r: no such file" % (d["source"],))
    if not isinstance(d["entry"], str) or not IDENT.match(d["entry"]):
        t.err("task.json", "entry %r is not a C identifier" % (d["entry"],))
    dims = d["dims"]
    if not isinstance(dims, dict) or not dims:
        t.err("task.json", "dims must be a non-empty object")
        return
    for k, v in dims.items():
        if not IDENT.match(k):
            t.err("task.json", "dim name %r is not an identifier" % k)
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            t.err("task.json", "dim %s must be a positive integer" % k)
            return
    args = d["args"]
    if not isinstance(args, list) or not args:
        t.err("task.json", "args must be a non-empty list")
        return
    seen = set()
    bad_shape = False
    for i, a in enumerate(args):
        where = "args[%d]" % i
        if not isinstance(a, dict):
            t.err("task.json", "%s must be an object" % where)
            continue
        name = a.get("name")
        if not isinstance(name, str) or not IDENT.match(name):
            t.err("task.json", "%s: name %r is not an identifier" % (where, name))
            continue
        where = "args[%d] (%s)" % (i, name)
        if name in seen:
            t.err("task.json", "%s: duplicate name" % where)
        seen.add(name)
        kind, dtype = a.get("kind"), a.get("dtype")
        if dtype not in DTYPES:
            t.err("task.json", "%s: dtype %r not one of %s" % (where, dtype, ", ".join(DTYPES)))
            continue
        if kind == "scalar":
            allowed = {"name", "kind", "dtype", "value", "description"}
            if "value" not in a:
                t.err("task.json", "%s: scalar without value" % where)
                continue
            v = a["value"]
            if dtype == "f32":
                try:
                    scalar_value(a, dims)
                except ExprError as e:
                    t.err("task.json", "%s: f32 value: %s" % (where, e))
            else:
                iv = check_expr(t, where, v, dims)
                if iv is not None and dtype == "i32" and not -2**31 <= iv < 2**31:
                    t.err("task.json", "%s: value %d does not fit i32" % (where, iv))
        elif kind == "tensor":
            allowed = {"name", "kind", "dtype", "shape", "intent", "init", "description"}
            shape = a.get("shape")
            intent = a.get("intent")
            if not isinstance(shape, list) or not shape:
                t.err("task.json", "%s: shape must be a non-empty list" % where)
                continue
            ints = [check_expr(t, where + " shape", s, dims) for s in shape]
            if any(x is None or x <= 0 for x in ints):
                if all(x is not None for x in ints):
                    t.err("task.json", "%s: shape %r must evaluate to positive sizes" % (where, shape))
                bad_shape = True
                continue
            if intent not in ("in", "out", "inout"):
                t.err("task.json", "%s: intent %r not in/out/inout" % (where, intent))
                continue
            if intent == "out" and "init" in a:
                t.err("task.json", "%s: an out tensor has no init" % where)
            if intent != "out":
                # No init: the default of docs/tasks.md (what task_inputs draws).
                init = a.get("init", default_init(dtype))
                if not isinstance(init, dict) or init.get("dist") not in DISTS:
                    t.err("task.json", "%s: init needs dist one of %s" % (where, ", ".join(DISTS)))
                else:
                    params, kindc = DISTS[init["dist"]]
                    extra = set(init) - params - {"dist"}
                    if extra:
                        t.err("task.json", "%s: init has unknown keys %s" % (where, sorted(extra)))
                    if (kindc == "i") != (dtype != "f32"):
                        t.err("task.json", "%s: dist %s does not suit dtype %s" % (where, init["dist"], dtype))
                    # Numbers only: the loader does not evaluate expressions here.
                    for p in params:
                        v = init.get(p)
                        if p not in init and init["dist"] != "normal":
                            t.err("task.json", "%s: init lacks %r" % (where, p))
                        elif p in init and (not isinstance(v, (int, float)) or isinstance(v, bool)):
                            t.err("task.json", "%s: init.%s must be a number" % (where, p))
                        elif p in init and kindc == "i" and v != int(v):
                            t.err("task.json", "%s: init.%s must be an integer" % (where, p))
                    if init["dist"] == "normal" and not init.get("std", 1) > 0:
                        t.err("task.json", "%s: std must be > 0" % where)
                    if init["dist"] in ("uniform", "randint") and all(
                            isinstance(init.get(p), (int, float)) for p in params) and not init["low"] < init["high"]:
                        t.err("task.json", "%s: init needs low < high" % where)
            n = 1
            for x in ints:
                n *= x
            t.tensors.append((name, dtype, ints, intent, n))
        else:
            t.err("task.json", "%s: kind %r not tensor/scalar" % (where, kind))
            continue
        extra = set(a) - allowed
        if extra:
            t.err("task.json", "%s: unknown keys %s" % (where, sorted(extra)))
    if bad_shape:
        return  # the checks below need every tensor's size
    if not any(x[3] != "in" for x in t.tensors):
        t.err("task.json", "no out or inout tensor: nothing to check")

    tol = d["tolerance"]
    if not isinstance(tol, dict) or set(tol) != {"rtol", "atol"}:
        t.err("task.json", "tolerance must be {rtol, atol}")
    else:
        for k in ("rtol", "atol"):
            v = tol.get(k)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
                t.err("task.json", "tolerance.%s must be a number >= 0" % k)
        widened = any(isinstance(tol.get(k), (int, float)) and tol.get(k) > DEFAULT_TOL[k] for k in DEFAULT_TOL)
        changed = any(tol.get(k) != DEFAULT_TOL[k] for k in DEFAULT_TOL)
        # The loader rejects extra keys in tolerance, so the reason lives in the
        # description, after "Tolerance:".
        why = d["description"].split("Tolerance:", 1)[1].strip() if "Tolerance:" in str(d["description"]) else ""
        if changed and len(why) < 10:
            t.err("task.json", "tolerance differs from the default %s: say why after 'Tolerance:' "
                  "in the description" % DEFAULT_TOL)
        if widened and any(x[1] != "f32" for x in t.tensors if x[3] != "in"):
            t.err("task.json", "integer outputs are compared exactly; widened tolerance makes no sense")

    cost = d["cost"]
    if not isinstance(cost, dict) or set(cost) != {"flops", "bytes"}:
        t.err("task.json", "cost must be {flops, bytes}")
        return
    for k in ("flops", "bytes"):
        if not isinstance(cost[k], str) and not isinstance(cost[k], int):
            t.err("task.json", "cost.%s must be an expression string" % k)
    flops = check_expr(t, "cost.flops", cost["flops"], dims)
    nbytes = check_expr(t, "cost.bytes", cost["bytes"], dims)
    if flops is not None and flops < 0:
        t.err("task.json", "cost.flops is negative")
    # cost.bytes is the compulsory DRAM traffic: in read once, out written once,
    # inout read and written once.
    want = sum(x[4] * DTYPE_BYTES[x[1]] * (2 if x[3] == "inout" else 1) for x in t.tensors)
    if nbytes is not None and nbytes != want:
        t.err("task.json", "cost.bytes %r = %d, but the tensors' compulsory traffic is %d" %
              (cost["bytes"], nbytes, want))
    t.flops, t.bytes = flops, nbytes
    # A memory-bound task must outgrow the L2; a compute-bound one (a GEMM at
    # COMPUTE_BOUND flops per byte or more) is timed by its math at any size.
    if t.tensors and not (flops and nbytes and flops >= COMPUTE_BOUND * nbytes):
        big = max(x[4] * DTYPE_BYTES[x[1]] for x in t.tensors)
        if big < MIN_LARGEST_TENSOR:
            t.err("task.json", "largest tensor is %d bytes: too small to fill an H200" % big)


def norm_type(s):
    s = re.sub(r"\b(const|volatile|__restrict__|restrict)\b", " ", s)
    return " ".join(s.replace("*", " ").split())


def check_seed(t):
    d = t.data
    if not d or not isinstance(d.get("source"), str):
        return
    path = os.path.join(t.dir, d["source"])
    try:
        src = open(path).read()
    except OSError:
        return
    if len(re.findall(r"^\s*//\s*kernelskill-flags:", src, re.M)) > 1:
        t.err(d["source"], "more than one '// kernelskill-flags:' line")
    if "__global__" not in src:
        t.err(d["source"], "no __global__ kernel")
    m = re.search(r'extern\s+"C"\s+void\s+' + re.escape(d["entry"]) + r"\s*\(([^)]*)\)\s*\{", src)
    if not m:
        t.err(d["source"], 'no definition of extern "C" void %s(...)' % d["entry"])
        return
    line = src.count("\n", 0, m.start()) + 1
    params = [p.strip() for p in m.group(1).split(",") if p.strip()]
    args = [a for a in d["args"] if isinstance(a, dict)]
    if len(params) != len(args):
        t.err("%s:%d" % (d["source"], line), "entry has %d parameters, task has %d args" % (len(params), len(args)))
        return
    for p, a in zip(params, args):
        pm = re.match(r"^(.*?)([A-Za-z_][A-Za-z0-9_]*)$", p)
        if not pm:
            t.err("%s:%d" % (d["source"], line), "cannot read parameter %r" % p)
            continue
        ptype, pname = pm.group(1), pm.group(2)
        where = "%s:%d" % (d["source"], line)
        if pname != a.get("name"):
            t.err(where, "parameter %r, arg %r: names should match" % (pname, a.get("name")))
        base = norm_type(ptype)
        if base not in C_TYPES.get(a.get("dtype"), ()):
            t.err(where, "parameter %s: C type %r does not fit dtype %s" % (pname, base, a.get("dtype")))
        is_ptr = "*" in ptype
        if a.get("kind") == "tensor":
            if not is_ptr:
                t.err(where, "parameter %s: a tensor arg needs a pointer" % pname)
            is_const = re.search(r"\bconst\b", ptype.split("*")[0]) is not None
            if a.get("intent") == "in" and not is_const:
                t.err(where, "parameter %s: an in tensor should be const" % pname)
            if a.get("intent") != "in" and is_const:
                t.err(where, "parameter %s: an %s tensor cannot be const" % (pname, a.get("intent")))
        elif is_ptr:
            t.err(where, "parameter %s: a scalar arg is passed by value" % pname)


def check_ref(t):
    d = t.data
    path = os.path.join(t.dir, "torch_ref.py")
    try:
        tree = ast.parse(open(path).read(), path)
    except OSError:
        t.err("torch_ref.py", "missing")
        return
    except SyntaxError as e:
        t.err("torch_ref.py:%s" % e.lineno, "syntax error: %s" % e.msg)
        return
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for f in ("forward", "make_inputs"):
        if f not in funcs:
            t.err("torch_ref.py", "no top-level def %s()" % f)
    if "make_inputs" in funcs:
        names = [a.arg for a in funcs["make_inputs"].args.args]
        if names[:2] != ["dims", "device"]:
            t.err("torch_ref.py:%d" % funcs["make_inputs"].lineno, "make_inputs must take (dims, device, ...)")
    if "forward" not in funcs or not d:
        return
    fwd = funcs["forward"]
    names = [a.arg for a in fwd.args.args]
    want = [a.get("name") for a in d["args"] if isinstance(a, dict)]
    if names != want:
        t.err("torch_ref.py:%d" % fwd.lineno, "forward(%s) should take the args in order: (%s)" %
              (", ".join(names), ", ".join(map(str, want))))
    outs = {a.get("name") for a in d["args"] if isinstance(a, dict) and a.get("intent") in ("out", "inout")}
    rets = [n for n in ast.walk(fwd) if isinstance(n, ast.Return)]
    if not rets:
        t.err("torch_ref.py:%d" % fwd.lineno, "forward returns nothing")
    for r in rets:
        if not isinstance(r.value, ast.Dict) or not all(isinstance(k, ast.Constant) for k in r.value.keys):
            t.err("torch_ref.py:%d" % r.lineno, "forward must return a dict literal {name: tensor}")
            continue
        keys = {k.value for k in r.value.keys}
        if keys != outs:
            t.err("torch_ref.py:%d" % r.lineno, "forward returns %s, the out/inout args are %s" %
                  (sorted(keys), sorted(outs)))


def fmt_shape(x):
    return "%s %s[%s]" % (x[3], x[0], ",".join(str(s) for s in x[2]))


def fmt_bytes(n):
    return "%.1f MB" % (n / 1e6)


def fmt_flops(n):
    if n >= 1e9:
        return "%.1f G" % (n / 1e9)
    if n >= 1e6:
        return "%.1f M" % (n / 1e6)
    return "%d" % n


def check_readme(tasks):
    """Each task has a row in README.md whose shapes/bytes/flops cells match."""
    path = os.path.join(HERE, "README.md")
    try:
        text = open(path).read()
    except OSError:
        return ["bench/suite/README.md: missing"]
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 6:
            rows[cells[0].strip("`")] = cells
    errs = []
    for t in tasks:
        if t.errors or not t.data:
            continue
        row = rows.get(t.folder)
        if not row:
            errs.append("bench/suite/README.md: no row for task %s" % t.folder)
            continue
        want = {2: "; ".join(fmt_shape(x) for x in t.tensors), 3: fmt_bytes(t.bytes), 4: fmt_flops(t.flops)}
        for i, w in want.items():
            if row[i] != w:
                errs.append("bench/suite/README.md: row %s column %d is %r, the task says %r" %
                            (t.folder, i + 1, row[i], w))
    return errs


def compile_seed(nvcc, t, outdir):
    src = os.path.join(t.dir, t.data["source"])
    flags = []
    m = re.search(r"^\s*//\s*kernelskill-flags:(.*)$", open(src).read(), re.M)
    if m:
        flags = m.group(1).split()
    cmd = [nvcc, "-c", "-arch=sm_90", "-O3"] + flags + [src, "-o", os.path.join(outdir, t.folder + ".o")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip(), " ".join(cmd)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("tasks", nargs="*", help="task folders (default: all)")
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc"))
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--table", action="store_true", help="print the README table's computed columns")
    ap.add_argument("--kernelskill", metavar="BIN",
                    help="also run 'BIN task check' and 'BIN bench --compile-only' on every task")
    opts = ap.parse_args()

    folders = opts.tasks or sorted(f for f in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, f, "task.json")))
    if not folders:
        print("check.py: no tasks under %s" % HERE, file=sys.stderr)
        return 1
    tasks = []
    for f in folders:
        f = os.path.basename(os.path.normpath(f))
        if not os.path.isdir(os.path.join(HERE, f)):
            print("check.py: no task folder %s" % f, file=sys.stderr)
            return 2
        t = Task(f)
        check_json(t)
        if t.data and not t.errors:
            check_seed(t)
            check_ref(t)
        tasks.append(t)

    if opts.table:
        for t in tasks:
            if t.data and not t.errors:
                print("| %s | ? | %s | %s | %s | ? |" % (t.folder, "; ".join(fmt_shape(x) for x in t.tensors),
                                                       fmt_bytes(t.bytes), fmt_flops(t.flops)))
        return 0

    extra = check_readme(tasks) if not opts.tasks else []

    if opts.kernelskill:
        # The product's loader, then its Reviewer's build (seed + generated shim into a
        # shared object, linked with --no-undefined): no GPU needed for either.
        def ks_check(t, work):
            tj = os.path.join(t.dir, "task.json")
            for cmd in ([opts.kernelskill, "task", "check", tj],
                        [opts.kernelskill, "bench", tj, "--compile-only", "--work", os.path.join(work, t.folder)]):
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    return "%s failed (rc %d): %s" % (" ".join(cmd[:3]), p.returncode, (p.stdout + p.stderr).strip())
            return None
        todo = [t for t in tasks if t.data and not t.errors]
        with tempfile.TemporaryDirectory() as work, \
                concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
            for t, msg in zip(todo, pool.map(lambda t: ks_check(t, work), todo)):
                if msg:
                    t.err("task.json", msg)

    if not opts.no_compile:
        nvcc = opts.nvcc if os.path.isabs(opts.nvcc) else shutil.which(opts.nvcc)
        if not nvcc or not os.access(nvcc, os.X_OK):
            print("check.py: nvcc not found (%s); use --nvcc or --no-compile" % opts.nvcc, file=sys.stderr)
            return 2
        todo = [t for t in tasks if t.data and not t.errors]
        with tempfile.TemporaryDirectory() as outdir, \
                concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
            futs = {t: pool.submit(compile_seed, nvcc, t, outdir) for t in todo}
            for t, fut in futs.items():
                rc, log, cmd = fut.result()
                if rc != 0:
                    t.err(t.data["source"], "nvcc failed (rc %d): %s\n%s" % (rc, cmd, log))
                elif log:
                    t.err(t.data["source"], "nvcc warnings: %s\n%s" % (cmd, log))
                else:
                    t.compiled = True

    nbad = 0
    for t in tasks:
        if t.errors:
            nbad += 1
            for e in t.errors:
                print(e)
        else:
            print("ok   %-22s %2d args  %s  %s flop%s" % (t.folder, len(t.data["args"]), fmt_bytes(t.bytes),
                                                         fmt_flops(t.flops),
                                                         "" if opts.no_compile else "  compiled"))
    for e in extra:
        print(e)
    print("%d tasks, %d with problems%s" % (len(tasks), nbad, ", README table out of date" if extra else ""))
    return 1 if nbad or extra else 0


if __name__ == "__main__":
    sys.exit(main())
