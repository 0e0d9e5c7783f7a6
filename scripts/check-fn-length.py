#!/usr/bin/env python3
"""check-fn-length.py — no function in lib/ is longer than a limit (issue 13).

Scans every C source under ROOT/lib (comments, strings and character literals
blanked first, preprocessor lines skipped) and measures each function body
from the line of its signature to its closing brace. A brace that opens at file
scope after a parameter list `)` is a function; struct, union and enum bodies
and initializers (`= {`) are not. Prints every function over the limit as
FILE:LINE: NAME is N lines (limit L) and exits 1 if there is one; with
--report, also prints the longest functions.

  scripts/check-fn-length.py ROOT [--limit 250] [--report N]
"""
import argparse
import os
import re
import sys

IDENT_BEFORE_PAREN = re.compile(r"([A-Za-z_][A-Za-z_0-9]*)\s*\($")


def blank(text):
    """Comments, string and char literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, last line) of every function defined in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = blank(f.read()).split("\n")
    # Preprocessor lines (with continuations) do not count as code.
    code, cont = [], False
    for ln in lines:
        s = ln.lstrip()
        is_pp = cont or s.startswith("#")
        cont = is_pp and ln.rstrip().endswith("\\")
        code.append("" if is_pp else ln)
    found = []
    depth = 0
    head = []  # file-scope text since the last ';' or '}' at depth 0, with line numbers
    start = None
    name = None
    for lineno, ln in enumerate(code, 1):
        for ch in ln:
            if depth == 0:
                if ch == "{":
                    txt = "".join(c for c, _ in head)
                    flat = " ".join(txt.split())
                    is_fn = (")" in flat and not re.search(r"=\s*$", flat)
                             and not re.search(r"\b(struct|union|enum)\b[^()]*$", flat))
                    if is_fn:
                        # The name: the identifier before the parameter list's '('.
                        k = flat.rfind(")")
                        d, j = 0, k
                        while j >= 0:
                            if flat[j] == ")":
                                d += 1
                            elif flat[j] == "(":
                                d -= 1
                                if d == 0:
                                    break
                            j -= 1
                        m = IDENT_BEFORE_PAREN.search(flat[:j + 1]) if j >= 0 else None
                        name = m.group(1) if m else "?"
                        first = next((l for c, l in head if not c.isspace()), lineno)
                        start = first
                    else:
                        start = None
                    depth = 1
                    head = []
                elif ch == ";" or ch == "}":
                    head = []
                else:
                    head.append((ch, lineno))
            else:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        if start is not None:
                            found.append((name, start, lineno))
                        start = None
                        head = []
        if depth == 0:
            head.append(("\n", lineno))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root")
    ap.add_argument("--limit", type=int, default=250)
    ap.add_argument("--report", type=int, default=0, metavar="N", help="also print the N longest functions")
    o = ap.parse_args()
    lib = os.path.join(o.root, "lib")
    if not os.path.isdir(lib):
        print("check-fn-length: %s: no lib/ folder" % o.root, file=sys.stderr)
        return 2
    all_fns = []
    for dirpath, dirnames, filenames in os.walk(lib):
        dirnames.sort()
        for fn in sorted(filenames):
            if fn.endswith((".c", ".c.in", ".h")):
                p = os.path.join(dirpath, fn)
                for name, a, b in functions(p):
                    all_fns.append((b - a + 1, os.path.relpath(p, o.root), a, name))
    bad = [f for f in all_fns if f[0] > o.limit]
    for n, p, a, name in sorted(bad, reverse=True):
        print("%s:%d: %s is %d lines (limit %d)" % (p, a, name, n, o.limit))
    if o.report:
        for n, p, a, name in sorted(all_fns, reverse=True)[:o.report]:
            print("%5d  %s:%d %s" % (n, p, a, name))
    if bad:
        print("check-fn-length: %d function(s) in lib/ over %d lines: split them" % (len(bad), o.limit),
              file=sys.stderr)
        return 1
    print("check-fn-length: %d functions in lib/, none over %d lines" % (len(all_fns), o.limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
