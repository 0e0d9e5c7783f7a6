# bench/suite's reading of a task.json (suite_common.task_inputs, check.py's
# scalar and init checks) on a task with tensors without `init` and f32 scalars
# written as strings.   task_inputs_check.py SUITE_DIR SCRATCH_DIR
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
import suite_common  # noqa: E402

scratch = sys.argv[2]
task = {"name": "t", "dims": {"N": 4, "D": 3},
        "args": [{"name": "x", "kind": "tensor", "dtype": "f32", "shape": ["N"], "intent": "in"},
                 {"name": "k", "kind": "tensor", "dtype": "i64", "shape": ["N"], "intent": "in"},
                 {"name": "u", "kind": "tensor", "dtype": "f32", "shape": ["N"], "intent": "in",
                  "init": {"dist": "uniform", "low": -2, "high": 2}},
                 {"name": "y", "kind": "tensor", "dtype": "f32", "shape": ["N", "D"], "intent": "out"},
                 {"name": "half", "kind": "scalar", "dtype": "f32", "value": "0.5"},
                 {"name": "one", "kind": "scalar", "dtype": "f32", "value": "1"},
                 {"name": "tiny", "kind": "scalar", "dtype": "f32", "value": "1e-3"},
                 {"name": "dims", "kind": "scalar", "dtype": "f32", "value": "D"},
                 {"name": "num", "kind": "scalar", "dtype": "f32", "value": 0.25},
                 {"name": "n", "kind": "scalar", "dtype": "i32", "value": "N*D"}]}
os.makedirs(scratch, exist_ok=True)
with open(os.path.join(scratch, "task.json"), "w") as f:
    json.dump(task, f)
for name, v in suite_common.task_inputs(os.path.join(scratch, "torch_ref.py"), device="cpu").items():
    print("%s = %r" % (name, v))
for bad in ("0.5.1", "nan", "inf", True, [1]):
    try:
        suite_common.scalar_value({"dtype": "f32", "value": bad}, task["dims"])
        print("f32 %r: accepted (wrong)" % (bad,))
    except suite_common.ExprError as e:
        print("f32 %r: refused: %s" % (bad, e))
