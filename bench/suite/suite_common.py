# Shared helpers for the benchmark suite's Python files: the integer expression
# language of task files (format v1), task loading, and make_inputs() for the
# PyTorch references. Plain python3; torch is imported only where tensors are made,
# so check.py can use the rest on machines without PyTorch.
import ast
import json
import math
import os

DTYPES = ("f32", "i32", "i64")
DTYPE_BYTES = {"f32": 4, "i32": 4, "i64": 8}


class ExprError(ValueError):
    pass


def expr_names(expr):
    """Names a size expression refers to (an int has none)."""
    if isinstance(expr, bool):
        raise ExprError("boolean is not a size expression")
    if isinstance(expr, int):
        return set()
    if not isinstance(expr, str):
        raise ExprError("expected an integer or an expression string, got %r" % (expr,))
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        raise ExprError("bad expression %r: %s" % (expr, e.msg))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
    return names


def eval_expr(expr, dims):
    """Evaluates an integer expression over dims: integers, dim names, + - * /
    (exact integer division; a remainder is an error) and parentheses."""
    if isinstance(expr, bool):
        raise ExprError("boolean is not a size expression")
    if isinstance(expr, int):
        return expr
    if not isinstance(expr, str):
        raise ExprError("expected an integer or an expression string, got %r" % (expr,))
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        raise ExprError("bad expression %r: %s" % (expr, e.msg))

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in dims:
                raise ExprError("expression %r: unknown dim %r" % (expr, node.id))
            return dims[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, ast.Div):
                if b == 0 or a % b != 0:
                    raise ExprError("expression %r: %d/%d is not exact" % (expr, a, b))
                return a // b
        raise ExprError("expression %r: only integers, dims, + - * / and () are allowed" % (expr,))

    return ev(tree)


def scalar_value(arg, dims):
    """A scalar arg's value: an f32 takes a number, a numeric string ("0.5", "1e-3")
    or an integer expression over dims ("D"); integers take an integer or an
    expression. Raises ExprError for anything else."""
    v = arg["value"]
    if arg["dtype"] != "f32":
        return eval_expr(v, dims)
    if isinstance(v, bool):
        raise ExprError("boolean is not a number")
    if isinstance(v, (int, float)):
        r = float(v)
    elif isinstance(v, str):
        try:
            r = float(v)
        except ValueError:
            r = float(eval_expr(v, dims))
    else:
        raise ExprError("expected a number, a numeric string or an expression, got %r" % (v,))
    if not math.isfinite(r):
        raise ExprError("%r is not a finite number" % (v,))
    return r


# The distribution a tensor without `init` gets (docs/tasks.md): normal(0, 1) for
# floats, randint[0, 10) for integers.
def default_init(dtype):
    return {"dist": "normal", "mean": 0, "std": 1} if dtype == "f32" else {"dist": "randint", "low": 0, "high": 10}


def load_task(path):
    """Loads a task.json (path to the file or to its folder)."""
    if os.path.isdir(path):
        path = os.path.join(path, "task.json")
    with open(path) as f:
        return json.load(f)


def task_inputs(ref_file, dims=None, device="cuda", seed=0):
    """make_inputs() for a torch_ref.py: the task.json next to ref_file decides.
    Returns a dict name -> value for every arg, in args order: in/inout tensors
    drawn from their init distribution, out tensors allocated and filled with NaN
    (or -1 for integers), scalars as Python numbers."""
    import torch

    task = load_task(os.path.dirname(os.path.abspath(ref_file)))
    d = dict(task["dims"])
    if dims:
        d.update(dims)
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    tdt = {"f32": torch.float32, "i32": torch.int32, "i64": torch.int64}
    out = {}
    for arg in task["args"]:
        if arg["kind"] == "scalar":
            out[arg["name"]] = scalar_value(arg, d)
            continue
        shape = [eval_expr(s, d) for s in arg["shape"]]
        dt = tdt[arg["dtype"]]
        if arg["intent"] == "out":
            fill = float("nan") if arg["dtype"] == "f32" else -1
            out[arg["name"]] = torch.full(shape, fill, dtype=dt, device=device)
            continue
        init = arg.get("init") or default_init(arg["dtype"])
        dist = init["dist"]
        if dist == "normal":
            t = torch.randn(shape, generator=gen, device=device, dtype=dt)
            t = t * float(init.get("std", 1)) + float(init.get("mean", 0))
        elif dist == "uniform":
            lo, hi = float(init["low"]), float(init["high"])
            t = torch.rand(shape, generator=gen, device=device, dtype=dt) * (hi - lo) + lo
        elif dist == "randint":
            lo, hi = eval_expr(init["low"], d), eval_expr(init["high"], d)
            t = torch.randint(lo, hi, shape, generator=gen, device=device, dtype=dt)
        else:
            raise ValueError("%s: unknown init dist %r" % (task["name"], dist))
        out[arg["name"]] = t.contiguous()
    return out
