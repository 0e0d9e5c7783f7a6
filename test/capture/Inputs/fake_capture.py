#!/usr/bin/env python3
"""fake_capture.py — write a capture folder as libks-capture.so writes it
(launches.jsonl, timing.jsonl, done.json, snap/*.bin), without a GPU, so the
CPU side of `kernelskill capture` (--from, --compare, index, tasks) can be
tested. The data are computed here the way the kernels compute them.

  fake_capture.py DIR example [--rows R --cols C] [--every] [--break-launch N]
      one iteration of examples/capture's pipeline (6 launches, 5 kernels)
  fake_capture.py DIR misc
      a template kernel, a struct parameter and an extern "C" kernel
      (test/capture/Inputs/misc.cu)
  --break-launch N: the after-snapshot of launch N gets one element changed
  (for --compare tests).
"""
import argparse
import json
import math
import os
import struct

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("variant", choices=["example", "misc"])
p.add_argument("--rows", type=int, default=8)
p.add_argument("--cols", type=int, default=16)
p.add_argument("--every", action="store_true")
p.add_argument("--break-launch", type=int, default=-1)
p.add_argument("--no-done", action="store_true")
a = p.parse_args()

os.makedirs(os.path.join(a.dir, "snap"), exist_ok=True)
launches = open(os.path.join(a.dir, "launches.jsonl"), "w")
timing = open(os.path.join(a.dir, "timing.jsonl"), "w")

mem = {}       # base -> bytearray (device memory)
next_base = [0x7f0000000000]


def malloc(nbytes):
    base = next_base[0]
    next_base[0] += (nbytes + 0xFFFFF) // 0x100000 * 0x100000 + 0x100000
    mem[base] = bytearray(nbytes)
    return base


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def getf(base, i):
    return struct.unpack_from("<f", mem[base], 4 * i)[0]


def setf(base, i, v):
    struct.pack_into("<f", mem[base], 4 * i, v)


state = {"launch": 0, "nth": {}, "corr": 100}


def ptr(v):
    return ("P", v)


def launch(mangled, name, grid, block, params, body, ns, smem=0):
    """params: list of ("P", base[+off]) / ("i", int) / ("f", float) / ("b", bytes)."""
    i = state["launch"]
    nth = state["nth"].get(mangled, 0)
    state["nth"][mangled] = nth + 1
    state["launch"] += 1
    state["corr"] += 3
    snap = a.every or nth == 0
    recs, allocs, off = [], [], 0
    for kind, v in params:
        if kind == "P":
            raw, size = struct.pack("<Q", v), 8
        elif kind == "i":
            raw, size = struct.pack("<i", v), 4
        elif kind == "f":
            raw, size = struct.pack("<f", v), 4
        else:
            raw, size = v, len(v)
        align = min(size, 8)
        off = (off + align - 1) // align * align
        r = {"offset": off, "size": size, "bytes": raw.hex()}
        if kind == "P":
            base = max(b for b in mem if b <= v)
            bases = [x["base"] for x in allocs]
            key = "0x%x" % base
            if key not in bases:
                allocs.append({"base": key, "size": len(mem[base])})
                bases.append(key)
            r.update({"alloc": bases.index(key), "base": key, "alloc_size": len(mem[base]), "ptr_offset": v - base})
        recs.append(r)
        off += size
    if snap:
        for k, al in enumerate(allocs):
            al["before"] = "snap/L%d_A%d.before.bin" % (i, k)
            al["after"] = "snap/L%d_A%d.after.bin" % (i, k)
            open(os.path.join(a.dir, al["before"]), "wb").write(mem[int(al["base"], 16)])
    body()
    if snap:
        for k, al in enumerate(allocs):
            data = bytearray(mem[int(al["base"], 16)])
            if i == a.break_launch and k == len(allocs) - 1:
                struct.pack_into("<f", data, 0, struct.unpack_from("<f", data, 0)[0] + 1.0)
            open(os.path.join(a.dir, al["after"]), "wb").write(data)
    rec = {"launch": i, "nth": nth, "api": "cuLaunchKernel", "correlation": state["corr"], "mangled": mangled,
           "name": name, "grid": grid, "block": block, "smem": smem, "stream": "(nil)", "params": recs,
           "allocs": allocs, "snapshot_bytes": 2 * sum(x["size"] for x in allocs) if snap else 0, "result": 0,
           "snapshot": snap}
    launches.write(json.dumps(rec) + "\n")
    timing.write(json.dumps({"correlation": state["corr"], "ns": ns, "mangled": mangled}) + "\n")


if a.variant == "example":
    rows, cols = a.rows, a.cols
    n = rows * cols
    x, xt, y, sums = malloc(4 * n), malloc(4 * n), malloc(4 * n), malloc(4 * cols)
    s = 12345
    for i in range(n):
        s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
        setf(x, i, ((s >> 8) & 0xFFFF) / 32768.0 - 1.0)
    for i in range(n):  # y starts as garbage-free zeros... and x is the input
        setf(y, i, 0.0)

    def transpose():
        for r in range(rows):
            for c in range(cols):
                setf(xt, c * rows + r, getf(x, r * cols + c))

    def sigmoid():
        for i in range(n):
            setf(y, i, f32(1.0 / (1.0 + math.exp(-getf(xt, i)))))

    def scale_add(al, m):
        def body():
            for i in range(m):
                setf(y, i, f32(f32(al * getf(xt, i)) + getf(y, i)))
        return body

    def clamp(start, count, lo, hi):
        def body():
            for i in range(start, start + count):
                v = getf(y, i)
                setf(y, i, lo if v < lo else hi if v > hi else v)
        return body

    def row_sum():
        for r in range(cols):
            acc = 0.0
            for c in range(rows):
                acc = f32(acc + getf(y, r * rows + c))
            setf(sums, r, acc)

    launch("_Z15transpose_naivePKfPfii", "transpose_naive(float const*, float*, int, int)",
           [(cols + 31) // 32, (rows + 7) // 8, 1], [32, 8, 1], [ptr(x), ptr(xt), ("i", rows), ("i", cols)], transpose, 4000)
    launch("_Z7sigmoidPKfPfi", "sigmoid(float const*, float*, int)", [(n + 255) // 256, 1, 1], [256, 1, 1],
           [ptr(xt), ptr(y), ("i", n)], sigmoid, 1000)
    launch("_Z9scale_addPKfPffi", "scale_add(float const*, float*, float, int)", [(n + 255) // 256, 1, 1], [256, 1, 1],
           [ptr(xt), ptr(y), ("f", 0.5), ("i", n)], scale_add(0.5, n), 1500)
    launch("_Z9scale_addPKfPffi", "scale_add(float const*, float*, float, int)", [(n // 2 + 255) // 256, 1, 1], [256, 1, 1],
           [ptr(xt), ptr(y), ("f", -0.25), ("i", n // 2)], scale_add(-0.25, n // 2), 800)
    launch("_Z12clamp_windowPfiiff", "clamp_window(float*, int, int, float, float)", [(n // 2 + 255) // 256, 1, 1],
           [256, 1, 1], [ptr(y), ("i", n // 4), ("i", n // 2), ("f", -0.5), ("f", 0.75)], clamp(n // 4, n // 2, -0.5, 0.75), 700)
    launch("_Z7row_sumPKfPfii", "row_sum(float const*, float*, int, int)", [(cols + 127) // 128, 1, 1], [128, 1, 1],
           [ptr(y), ptr(sums), ("i", cols), ("i", rows)], row_sum, 9000)
else:
    n = 64
    y, x = malloc(4 * n), malloc(4 * n)
    for i in range(n):
        setf(x, i, i * 0.5)
        setf(y, i, 1.0)

    def tscale():
        for i in range(n):
            setf(y, i, f32(2.0 * getf(x, i)))

    def with_struct():
        for i in range(32):
            setf(y, i, f32(getf(y, i) * 3.0))

    def k_c():
        for i in range(n):
            setf(y, i, f32(getf(y, i) + 1.0))

    launch("_Z6tscaleIfEvPT_PKS0_S0_i", "void tscale<float>(float*, float const*, float, int)", [1, 1, 1], [64, 1, 1],
           [ptr(y), ptr(x), ("f", 2.0), ("i", n)], tscale, 300)
    launch("_Z11with_structPf1P", "with_struct(float*, P)", [1, 1, 1], [64, 1, 1],
           [ptr(y), ("b", struct.pack("<if", 32, 3.0))], with_struct, 200)
    # an extern "C" kernel: no parameter types in its name; a pointer 16 bytes into y
    launch("k_c", "k_c", [1, 1, 1], [64, 1, 1], [ptr(y + 0), ("i", n)], k_c, 100, smem=64)

if not a.no_done:
    json.dump({"launches": state["launch"], "snapshot_bytes": 0}, open(os.path.join(a.dir, "done.json"), "w"))
