# fsum.py — flatten `kernelskill features --json` into one fact per line, so lit
# tests can FileCheck exact facts without depending on JSON layout.
import json
import sys

doc = json.load(sys.stdin)
assert doc["ks_features"] == 1, "unexpected format version"
p = doc["parse"]
print(f"parse side={p['side']} errors={p['errors']}")
for d in doc["diagnostics"]:
    print(f"diag {d['severity']} line={d['line']} col={d['col']} {d['message']}")
for k in doc["kernels"]:
    print(f"kernel {k['name']} line={k['line']} template={json.dumps(k['is_template'])}")
    if k["template_params"]:
        print("  template_params " + ",".join(k["template_params"]))
    for inst in k["instantiations"]:
        print(f"  instantiation <{inst}>")
    lb = k["launch_bounds"]
    if lb:
        print(f"  launch_bounds max_threads={lb['max_threads']} min_blocks={lb['min_blocks']}")
    for prm in k["params"]:
        flags = [f for f in ("pointer", "const_pointee", "restrict") if prm[f]]
        print(f"  param {prm['name']} type=[{prm['type']}] {' '.join(flags)}".rstrip())
    for lp in k["loops"]:
        print(f"  loop line={lp['line']} {lp['kind']} depth={lp['depth']} trip={lp['trip_count']}"
              f" unroll={json.dumps(lp['pragma_unroll'])} accumulates={json.dumps(lp['accumulates'])}"
              f" grid_stride={json.dumps(lp['grid_stride'])} var={lp['var']}")
    for a in k["accesses"]:
        print(f"  access {a['param']} {a['kind']} {a['pattern']} [{a['index']}] line={a['line']}")
    for s in k["shared"]:
        print(f"  shared {s['name']} type={s['type']} bytes={s['bytes']}")
    if k["vector_types"]:
        print("  vector_types " + ",".join(k["vector_types"]))
    for name, n in k["transcendentals"].items():
        print(f"  transcendental {name} x{n}")
    for name, n in k["atomics"].items():
        print(f"  atomic {name} x{n}")
    for key, val in k["summary"].items():
        print(f"  {key}={json.dumps(val)}")
for l in doc["launches"]:
    print(f"launch {l['kernel']} in={l['host_function']} line={l['line']} grid=[{l['grid']}] block=[{l['block']}]"
          f" smem=[{l['smem']}] stream=[{l['stream']}] threads={l['block_threads']} args={len(l['args'])}")
