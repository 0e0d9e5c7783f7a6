#!/usr/bin/env python3
"""strip_checks.py IN OUT: write a copy of the lit test IN with every lit and FileCheck
directive blanked, so a rule test can rewrite a file that holds no CHECK lines (as LLVM's
check_clang_tidy.py does). Without this, the `// CHECK:` comments are copied into the
rewrite and match themselves. Directive lines become empty lines, so line numbers (and
[[@LINE]] checks of diagnostics) stay the same. Used through lit's %strip-checks."""
import re
import sys

LIT_KEYWORDS = ["RUN", "REQUIRES", "UNSUPPORTED", "XFAIL", "ALLOW_RETRIES", "END"]
FC_SUFFIXES = r"(?:-NEXT|-LABEL|-NOT|-SAME|-DAG|-EMPTY|-COUNT-\d+)?"


def prefixes(text):
    """Every FileCheck prefix the file's RUN lines use, plus the default CHECK."""
    found = {"CHECK"}
    for m in re.finditer(r"--check-prefix(?:es)?[= ]([\w,-]+)", text):
        found.update(p for p in m.group(1).split(",") if p)
    return found


def directive_re(text):
    names = sorted(prefixes(text) | set(LIT_KEYWORDS), key=len, reverse=True)
    alt = "|".join(re.escape(n) for n in names)
    # A directive is a comment whose first word is NAME[suffix]: -- as FileCheck sees it.
    return re.compile(r"^(?P<code>.*?)(?://|#|;)\s*(?:%s)%s:" % (alt, FC_SUFFIXES))


def strip(text):
    rx = directive_re(text)
    out = []
    for line in text.split("\n"):
        m = rx.match(line)
        if m:
            code = m.group("code").rstrip()
            # A directive after code on the same line keeps the code.
            line = code if code.strip() else ""
        out.append(line)
    return "\n".join(out)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: strip_checks.py IN OUT\n")
        return 2
    try:
        with open(argv[1], encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        with open(argv[2], "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(strip(text))
    except OSError as e:
        sys.stderr.write("strip_checks.py: %s\n" % e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
