#!/usr/bin/env python3
"""check-layers.py — the library's layers point one way.

Every module of libkernelskill has a rank (LAYERS below, lowest first). A file
of a module may include the headers of its own module and of modules of a
lower rank only; modules of the same rank are independent of each other. A
module's files are lib/<module>/**, its public headers the ones HEADERS maps
to it, its internal headers lib/<module>/*.h (included as "<module>/x.h").
The tools (driver/, plugin/) sit on top and may include anything.

Usage: check-layers.py [SOURCE_ROOT]   (exit 0 clean, 1 violations, 2 usage)

ALLOWED lists known violations that a named change removes (empty now); each
entry names the file and the header exactly. Remove an entry once its fix is
merged: the check then keeps it from coming back."""
import os
import re
import sys

# Lowest first; one tuple is one rank (modules independent of each other).
LAYERS = [
    ("common",),
    ("features", "task", "journal", "nvccargs"),
    ("store",),
    ("skills",),
    ("rewrite",),
    ("sandbox",),
    ("review",),
    ("llm",),
    ("agents",),
    ("capture", "plugin_support"),
]

# Public header -> module (the headers of the common module: common, proc, marks).
HEADERS = {
    "common.h": "common", "proc.h": "common", "marks.h": "common",
    "features.h": "features", "task.h": "task", "journal.h": "journal",
    "nvccargs.h": "nvccargs", "store.h": "store", "skills.h": "skills",
    "rewrite.h": "rewrite", "sandbox.h": "sandbox", "isolate.h": "sandbox", "review.h": "review",
    "llm.h": "llm", "agents.h": "agents", "loop.h": "agents", "commit.h": "agents",
    "diagnose.h": "agents", "llmagent.h": "agents", "report.h": "agents",
    "plugin.h": "plugin_support", "capture.h": "capture",
}

# Known violations, each (file, header), to be removed by a named change. None
# now: the sandbox moved to lib/sandbox (below review and llm).
ALLOWED = set()

RANK = {m: i for i, layer in enumerate(LAYERS) for m in layer}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def module_of_include(zInc):
    """The module an include names, or None (a system or tool-local header)."""
    if zInc.startswith("kernelskill/"):
        return HEADERS.get(zInc[len("kernelskill/"):], "?" + zInc)
    zHead = zInc.split("/", 1)[0]
    if "/" in zInc and zHead in RANK:
        return zHead
    return None


def module_of_file(zRel):
    parts = zRel.split("/")
    if parts[0] == "lib" and len(parts) > 2:
        return parts[1]
    if parts[0] == "include" and len(parts) == 3 and parts[1] == "kernelskill":
        return HEADERS.get(parts[2], "?" + parts[2])
    return None


def main(argv):
    if len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    zRoot = argv[1] if len(argv) == 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    aProblems, aUsed = [], set()
    nFiles = 0
    for zTop in ("lib", "include"):
        for zDir, _, azNames in os.walk(os.path.join(zRoot, zTop)):
            for zName in sorted(azNames):
                if not zName.endswith((".c", ".h", ".in")):
                    continue
                zPath = os.path.join(zDir, zName)
                zRel = os.path.relpath(zPath, zRoot).replace(os.sep, "/")
                zMod = module_of_file(zRel)
                if zMod is None:
                    continue
                nFiles += 1
                if zMod.startswith("?"):
                    aProblems.append("%s: a public header of no declared module (add it to HEADERS)" % zRel)
                    continue
                if zMod not in RANK:
                    aProblems.append("%s: module '%s' has no rank (add it to LAYERS)" % (zRel, zMod))
                    continue
                with open(zPath, encoding="utf-8", errors="replace") as f:
                    zText = f.read()
                for m in INCLUDE.finditer(zText):
                    zInc = m.group(1)
                    zTo = module_of_include(zInc)
                    if zTo is None or zTo == zMod:
                        continue
                    iLine = zText.count("\n", 0, m.start()) + 1
                    if zTo.startswith("?"):
                        aProblems.append("%s:%d: includes %s, a header of no declared module" % (zRel, iLine, zInc))
                    elif RANK[zTo] >= RANK[zMod]:
                        if (zRel, zInc) in ALLOWED:
                            aUsed.add((zRel, zInc))
                            continue
                        aProblems.append("%s:%d: module %s includes %s of module %s, %s it" % (
                            zRel, iLine, zMod, zInc, zTo,
                            "beside" if RANK[zTo] == RANK[zMod] else "above"))
    for zRel, zInc in sorted(ALLOWED - aUsed):
        print("check-layers: note: the allowed exception %s -> %s is gone: remove it from ALLOWED" % (zRel, zInc))
    for z in aProblems:
        print(z)
    if aProblems:
        print("check-layers: %d violation%s of the order %s" % (
            len(aProblems), "" if len(aProblems) == 1 else "s",
            " < ".join("/".join(l) for l in LAYERS)))
        return 1
    print("check-layers: %d files, layers point one way (%d known exception%s)" % (
        nFiles, len(aUsed), "" if len(aUsed) == 1 else "s"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
