#!/usr/bin/env python3
"""selfcheck_rewrites.py --kernelskill BIN --filecheck FC --python PY TEST-OR-DIR...

Proves that every lit check of a rewrite's output can fail. For each lit test it replays
the RUN lines that make files (cp, %strip-checks, `kernelskill rewrite ... -o OUT`),
keeps a copy of each rewrite's input, and for every `FileCheck ... --input-file=OUT` (or
`< OUT`) of a rewrite's output runs the same check prefixes against that rewrite's
INPUT. A check that passes on the input would pass if the rule did nothing: it is
reported and the script exits 1. It also exits 1 when a rewrite reads the test file
itself or a plain copy of it (its CHECK comments would be copied into the output and
match themselves; use %strip-checks or Inputs/), and when it finds no such check at all,
so it cannot silently check nothing. Exit 2 on a usage or environment problem."""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SUFFIXES = (".cu", ".test", ".cuh")
SKIP_DIRS = {"Inputs", "unit", "fuzz", "tools"}


def run_lines(path):
    """(line number, RUN text) pairs, with `\\` continuations joined."""
    out, pending, start = [], "", 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"\bRUN:(.*)$", line)
            if not m:
                continue
            text = m.group(1).strip()
            if not pending:
                start = n
            if text.endswith("\\"):
                pending += text[:-1] + " "
                continue
            out.append((start, pending + text))
            pending = ""
    return out


class Subst:
    def __init__(self, args, test, tmpbase):
        tools = os.path.dirname(os.path.abspath(__file__))
        # Longest names first, as lit applies the config's before %s/%S/%t.
        self.pairs = [
            ("%strip-checks", "%s %s" % (args.python, os.path.join(tools, "strip_checks.py"))),
            ("%kernelskill", args.kernelskill),
            ("%python", args.python),
            ("%srcroot", args.source_dir),
            ("%s", test),
            ("%S", os.path.dirname(test)),
            ("%t", tmpbase),
        ]

    def __call__(self, text):
        for k, v in self.pairs:
            text = text.replace(k, v)
        return text


def first_stage(cmd):
    """The first command of a pipeline (the text before an unquoted |)."""
    cmd = re.sub(r"(^|\s)\d?>&\d\b", " ", cmd)  # 2>&1: the streams do not matter here
    try:
        lex = shlex.shlex(cmd, posix=True, punctuation_chars="|&;<>")
        lex.whitespace_split = True
        toks = list(lex)
    except ValueError:
        return [], []
    stages, cur = [], []
    for t in toks:
        if t in ("|", "||", "&&", ";"):
            stages.append(cur)
            cur = []
        else:
            cur.append(t)
    stages.append(cur)
    return stages[0], stages


def filecheck_of(stage, fc_name):
    """(check file, [prefixes], input file) when STAGE is `FileCheck ... --input-file X`
    or `FileCheck ... < X`; else None."""
    if not stage or os.path.basename(stage[0]) != fc_name:
        return None
    checkfile, prefixes, inp = None, [], None
    i = 1
    while i < len(stage):
        t = stage[i]
        if t.startswith("--check-prefix=") or t.startswith("--check-prefixes="):
            prefixes += [p for p in t.split("=", 1)[1].split(",") if p]
        elif t in ("--check-prefix", "--check-prefixes") and i + 1 < len(stage):
            i += 1
            prefixes += [p for p in stage[i].split(",") if p]
        elif t.startswith("--input-file="):
            inp = t.split("=", 1)[1]
        elif t == "--input-file" and i + 1 < len(stage):
            i += 1
            inp = stage[i]
        elif t == "<" and i + 1 < len(stage):
            i += 1
            inp = stage[i]
        elif not t.startswith("-") and checkfile is None:
            checkfile = t
        i += 1
    if checkfile is None or inp is None:
        return None
    return checkfile, prefixes or ["CHECK"], inp


def classify(stage, test):
    """('cp'|'strip'|'rewrite', src, dst) for a command that makes a file a later check
    may read; None otherwise (negative and in-place runs make nothing to check)."""
    if stage[0] == "cp" and len(stage) == 3:
        return "cp", stage[1], stage[2]
    if len(stage) >= 4 and stage[1].endswith("strip_checks.py"):
        return "strip", stage[2], stage[3]
    if (len(stage) >= 3 and os.path.basename(stage[0]) == "kernelskill" and stage[1] == "rewrite"
            and "-o" in stage[:-1]):
        src, dst = stage[2], stage[stage.index("-o") + 1]
        if dst != src:
            return "rewrite", src, dst
    return None


def check_test(test, args, fc_name):
    """Returns (checks found, [problems])."""
    runs = run_lines(test)
    if not any("rewrite" in r for _, r in runs):
        return 0, []
    tmp = tempfile.mkdtemp(prefix="ks-selfcheck-")
    try:
        return check_runs(test, runs, args, fc_name, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_runs(test, runs, args, fc_name, tmp):
    sub = Subst(args, test, os.path.join(tmp, "t"))
    same = lambda a, b: os.path.abspath(a) == os.path.abspath(b)
    # Pass 1, static: which command made each file, and which checks read a rewrite's output.
    steps, checks = [], []
    last = {}  # path -> index in steps of the latest command that wrote it
    for lineno, raw in runs:
        stage, stages = first_stage(sub(raw))
        if not stage:
            continue
        fc = filecheck_of(stage, fc_name)
        if fc and len(stages) == 1:
            made = last.get(fc[2])
            if made is not None and steps[made][1] == "rewrite":
                checks.append((lineno, fc, made))
            continue
        c = classify(stage, test)
        if c:
            deps = [last[c[1]]] if c[1] in last else []
            steps.append((lineno, c[0], c[1], c[2], stage, deps))
            last[c[2]] = len(steps) - 1
    # Which commands the checks need, transitively; and where each file came from.
    need = set()
    todo = [m for _, _, m in checks]
    while todo:
        i = todo.pop()
        if i not in need:
            need.add(i)
            todo += steps[i][5]
    origin = []
    for i, (_, kind, src, dst, _, deps) in enumerate(steps):
        if kind == "strip":
            origin.append("stripped")
        elif same(src, test):
            origin.append("self")
        else:
            origin.append(origin[deps[0]] if deps else "other")
    # Pass 2: replay the needed commands in order, keeping each rewrite's input.
    snaps = {}
    for i, (lineno, kind, src, dst, stage, deps) in enumerate(steps):
        if i not in need:
            continue
        if kind == "rewrite":
            snaps[i] = os.path.join(tmp, "input-%d" % i)
            if os.path.exists(src):
                shutil.copyfile(src, snaps[i])
            else:
                open(snaps[i], "w").close()
        # Output discarded: a failing command is the lit test's business; a file it did
        # not make is read as empty by the check below, which then fails as it should.
        subprocess.run(stage, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=300)
    problems = []
    for lineno, (checkfile, prefixes, out), made in checks:
        rline = steps[made][0]
        label = "%s:%d: %s" % (test, lineno, ",".join(prefixes))
        if origin[made] == "self":
            problems.append("%s: checks a rewrite of the test file itself (RUN line %d); its CHECK "
                            "comments are copied into the output -- rewrite a %%strip-checks copy "
                            "or an Inputs/ file" % (label, rline))
            continue
        p = subprocess.run([args.filecheck, checkfile, "--check-prefixes=" + ",".join(prefixes),
                            "--input-file=" + snaps[made]], capture_output=True, text=True, timeout=120)
        if p.returncode == 0:
            problems.append("%s: passes on the rewrite's unmodified input (RUN line %d): it cannot "
                            "fail" % (label, rline))
        elif args.verbose:
            print("ok   %s fails on the input" % label)
    return len(checks), problems


def tests_under(paths):
    for p in paths:
        if os.path.isfile(p):
            yield os.path.abspath(p)
            continue
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for f in sorted(files):
                if f.endswith(SUFFIXES):
                    yield os.path.abspath(os.path.join(root, f))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernelskill", required=True)
    ap.add_argument("--filecheck", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--source-dir", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--datadir", help="KS_DATADIR for the replayed rewrites")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    for tool in (args.kernelskill, args.filecheck):
        if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
            sys.stderr.write("selfcheck_rewrites: not an executable: %s\n" % tool)
            return 2
    fc_name = os.path.basename(args.filecheck)
    # As lit.cfg.py: no user configuration, no LLM.
    for var in list(os.environ):
        if var.startswith("KS_LLM_") or var in ("KS_SKILLS_PATH", "KS_STORE", "KS_PROMPTS_DIR", "KS_MODE", "KS_NVCC"):
            del os.environ[var]
    if args.datadir:
        os.environ["KS_DATADIR"] = args.datadir
    total, problems, files = 0, [], 0
    for test in tests_under(args.paths):
        n, probs = check_test(test, args, fc_name)
        files += 1 if n else 0
        total += n
        problems += probs
    for p in problems:
        print("FAIL " + p)
    print("selfcheck_rewrites: %d rewrite checks in %d tests, %d can not fail" % (total, files, len(problems)))
    if total == 0:
        print("selfcheck_rewrites: found no FileCheck of a rewrite's output: nothing was checked")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
