# summary.py RUN_DIR [REQUESTS.jsonl] — one line per journal record that the
# LLM tests check (candidates, generate, decisions), and per request what
# kind of prompt it was, for FileCheck.
import json
import sys

with open(sys.argv[1] + "/journal.jsonl") as f:
    for line in f:
        r = json.loads(line)
        ev = r.get("event")
        if ev in ("candidate", "generate"):
            print(ev, r.get("round"), r.get("agent", "rule"), r.get("verdict"), (r.get("diagnosis") or r.get("reason") or "")[:1000].replace("\n", " "))
        elif ev == "decision":
            print("decision", r.get("round"), r.get("verdict"))
if len(sys.argv) > 2:
    with open(sys.argv[2]) as f:
        for line in f:
            req = json.loads(line)["request"]
            user = req["messages"][1]["content"]
            kind = "repair" if "The code failed with:" in user else "generate" if "Specification:" in user else "optimize"
            print("request", kind, "undeclared_bias" if "undeclared_bias" in user else "-")
