#!/usr/bin/env python3
"""fake_harness.py — a scripted stand-in for ks-harness, for tests of the
Reviewer's and the loop's orchestration on machines without a GPU (what runs
when, what is reused, what is written). It speaks the harness's protocol
(lib/review/harness/harness.c): one JSON object on stdout per command.

  info                              a fake device ("Scripted GPU", sm_90)
  check SPEC LIB SEED TRIALS OUTDIR  writes every out/inout tensor of every
                                    trial with values that depend only on the
                                    spec, seed and trial (all builds agree)
  time SPEC RUNS LIB_A [LIB_B]      A at 100 us, B at 50 us (B always 2x faster)
  profile SPEC LIB ...              no kernels, no metrics
  ceilings                          4000 GB/s, 60000 GFLOP/s

It never runs the library it is given: the real harness's tests need a GPU."""
import json
import struct
import sys

SIZES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i32": 4, "i64": 8, "u8": 1}


def out(obj):
    print(json.dumps(obj))
    sys.exit(0)


def tensors(spec):
    with open(spec) as f:
        lines = f.read().splitlines()
    args = [ln.split() for ln in lines if ln.startswith("arg ")]
    for i, a in enumerate(args):
        if a[1] == "tensor":
            yield i, a[2], a[3], int(a[4])  # index, dtype, intent, elements


def check(spec, seed, trials, outdir):
    for t in range(trials):
        for i, dt, intent, n in tensors(spec):
            if intent == "in":
                continue
            if dt == "f32":
                data = struct.pack("<%df" % n, *[((k * 7 + t + seed) % 97) * 0.5 for k in range(n)])
            else:
                data = bytes((k * 7 + t + seed) % 97 for k in range(n * SIZES[dt]))
            with open("%s/t%d_a%d.bin" % (outdir, t, i), "wb") as f:
                f.write(data)
    out({"ok": True, "trials": trials, "guarded": False, "activity": False})


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "info":
        out({"ok": True, "name": "Scripted GPU", "cc": "9.0", "sm_count": 132, "l2_bytes": 62914560,
             "mem_bytes": 150109880320, "clock_khz": 1980000, "mem_clock_khz": 3201000, "bus_width": 6016,
             "max_threads_per_sm": 2048, "regs_per_sm": 65536, "smem_per_sm": 233472, "max_blocks_per_sm": 32,
             "reserved_smem_per_block": 1024, "driver": 13000, "runtime": 13000,
             "uuid": "00000000000000000000000000f0a4e0"})
    if cmd == "check":
        check(argv[2], int(argv[4]), int(argv[5]), argv[6])
    if cmd == "time":
        runs = int(argv[3])
        res = {"ok": True, "runs": runs, "flush_bytes": 268435456, "a1": [0.1] * runs, "a2": [0.1] * runs}
        if len(argv) > 5:
            res["b"] = [0.05] * runs
        out(res)
    if cmd == "profile":
        out({"ok": True, "kernels": [], "metrics": []})
    if cmd == "ceilings":
        out({"ok": True, "dram_gbps": 4000.0, "fp32_gflops": 60000.0, "method": "scripted"})
    print(json.dumps({"ok": False, "kind": "usage", "message": "fake harness: unknown command"}))
    sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
