#!/usr/bin/env python3
"""file_tasks.py DIR [WRONG] -- write tasks whose tensors come from files (init/expect
{"file": ...}) into DIR: scale.cu (y = alpha * x), x.bin, y.bin (the right y for
alpha 0.5), and one task file per case of init_file.test / file-review.test.
With WRONG, y.bin holds a wrong value at element 17 (the seed cannot reproduce it)."""
import json, os, shutil, struct, sys

d = sys.argv[1]
wrong = len(sys.argv) > 2
os.makedirs(os.path.join(d, "data"), exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
shutil.copy(os.path.join(here, "float_scalar.cu"), os.path.join(d, "scale.cu"))
n = 1024
x = [((i * 37) % 101 - 50) / 8.0 for i in range(n)]
y = [0.5 * v for v in x]
if wrong:
    y[17] += 1.0
with open(os.path.join(d, "data", "x.bin"), "wb") as f:
    f.write(struct.pack("<%df" % n, *x))
with open(os.path.join(d, "data", "y.bin"), "wb") as f:
    f.write(struct.pack("<%df" % n, *y))
with open(os.path.join(d, "data", "short.bin"), "wb") as f:
    f.write(b"\0" * (4 * n - 4))


def task(name, x_extra=None, y_extra=None, **top):
    xa = {"name": "x", "kind": "tensor", "dtype": "f32", "shape": ["N"], "intent": "in"}
    ya = {"name": "y", "kind": "tensor", "dtype": "f32", "shape": ["N"], "intent": "out"}
    xa.update(x_extra or {})
    ya.update(y_extra or {})
    t = {"ks_task": 1, "name": name, "source": "scale.cu", "entry": "scale", "dims": {"N": n},
         "args": [xa, ya, {"name": "alpha", "kind": "scalar", "dtype": "f32", "value": 0.5},
                  {"name": "n", "kind": "scalar", "dtype": "i32", "value": "N"}],
         "cost": {"bytes": "8*N"}}
    t.update(top)
    with open(os.path.join(d, name + ".json"), "w") as f:
        json.dump(t, f, indent=1)


task("ok", {"init": {"file": "data/x.bin"}}, {"expect": {"file": "data/y.bin"}})
task("ok_noexpect", {"init": {"file": "data/x.bin"}})
task("short", {"init": {"file": "data/short.bin"}})
task("missing", {"init": {"file": "data/none.bin"}})
task("dir", {"init": {"file": "data"}})
task("mixed", {"init": {"file": "data/x.bin", "dist": "normal"}})
task("outside", {"init": {"file": "../outside.bin"}})
task("expect_in", {"init": {"file": "data/x.bin", }, "expect": {"file": "data/x.bin"}})
task("expect_drawn", None, {"expect": {"file": "data/y.bin"}})
task("expect_kind", {"init": {"file": "data/x.bin"}}, {"expect": "data/y.bin"})
task("newline", {"init": {"file": "data/x\n.bin"}})
with open(os.path.join(d, "..", "outside.bin"), "wb") as f:
    f.write(b"\0" * (4 * n))
