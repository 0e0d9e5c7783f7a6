# edit_entry.py STORE_ENTRY_DIR WHAT — tamper with a store entry the way someone
# with write access to the store could, recomputing the recorded hashes
# (64-bit FNV-1a, as lib/store does) so that only the evidence checks remain.
#   flags     add a `-ccbin` kernelskill-flags line to optimized.cu (and entry.json)
#   evidence  rewrite evidence.json (hash in entry.json left as it was)
import json, sys

def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h ^= c
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h

d, what = sys.argv[1], sys.argv[2]
e = json.load(open(d + "/entry.json"))
if what == "flags":
    src = open(d + "/optimized.cu", "rb").read()
    src = b"// kernelskill-flags: -ccbin /tmp/evil\n" + src
    open(d + "/optimized.cu", "wb").write(src)
    e["optimized"]["hash"] = fnv(src)
    e["optimized"]["flags"] = "-ccbin /tmp/evil"
elif what == "evidence":
    open(d + "/evidence.json", "w").write('{"ks_evidence": 1, "correctness": {"passed": true}, "timing": {"speedup": 9}}')
json.dump(e, open(d + "/entry.json", "w"), indent=1)
