"""changed_lines.py OLD NEW [--show]: print how many lines differ between two
files (removed + added, by difflib), or, with --show, the changed lines
themselves prefixed with - and +. Lets a lit test assert that a rewrite left
everything outside its change byte-identical."""
import difflib
import sys

old = open(sys.argv[1], encoding="utf-8").read().splitlines()
new = open(sys.argv[2], encoding="utf-8").read().splitlines()
changed = [l for l in difflib.unified_diff(old, new, lineterm="", n=0)
           if l[:1] in "-+" and not l.startswith(("---", "+++"))]
if "--show" in sys.argv:
    print("\n".join(changed))
else:
    print(len(changed))
