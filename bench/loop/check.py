"""check.py — helpers of bench/loop/run.sh: one markdown table row per task
from `kernelskill optimize --json` and its journal, and the journal's
invariant (no candidate hash evaluated twice).

  check.py row TASK RESULT.json RUNDIR   -> prints a row; exit 1 if the task failed
  check.py journal JOURNAL.jsonl         -> exit 1 if a hash was evaluated twice
"""
import json
import sys


def records(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except OSError:
        return []


def evaluated_twice(path):
    seen, twice = {}, []
    for i, r in enumerate(records(path), 1):
        if r.get("event") != "candidate" or r.get("verdict") == "refused" or not r.get("hash"):
            continue
        if r["hash"] in seen:
            twice.append("line %d: %s (first at line %d)" % (i, r["hash"], seen[r["hash"]]))
        else:
            seen[r["hash"]] = i
    return twice, len(seen)


def row(task, result_path, rundir):
    try:
        with open(result_path) as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        print("| %s | - | - | - | - | - | - | FAIL (no result: %s) |" % (task, e))
        return 1
    journal = rundir + "/journal.jsonl"
    recs = records(journal)
    final = [r for r in recs if r.get("event") == "final"]
    twice, n = evaluated_twice(journal)
    problems = []
    if res.get("status") != "done":
        problems.append("status " + str(res.get("status")))
    if not res.get("passed"):
        problems.append("result not correct")
    if res.get("best_hash") == res.get("seed_hash"):
        problems.append("no faster version")
    elif not final or final[-1].get("verdict") != "accepted":
        problems.append("closing review: %s" % (final[-1].get("verdict") if final else "missing"))
    if twice:
        problems.append("evaluated twice: " + "; ".join(twice))
    status = "ok" if not problems else "FAIL (" + ", ".join(problems) + ")"
    print("| %s | %.2f | %.2f | %.2fx | %d | %d | %s | %s |" % (
        task, res.get("seed_us", 0), res.get("best_us", 0), res.get("speedup", 0), res.get("rounds", 0), n,
        res.get("skills") or "none", status))
    return 0 if not problems else 1


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "row":
        return row(sys.argv[2], sys.argv[3], sys.argv[4])
    if len(sys.argv) == 3 and sys.argv[1] == "journal":
        if not records(sys.argv[2]):
            print("no journal records in " + sys.argv[2])
            return 1
        twice, n = evaluated_twice(sys.argv[2])
        print("%d candidates evaluated, %d evaluated twice%s" % (n, len(twice), (": " + "; ".join(twice)) if twice else ""))
        return 1 if twice else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
