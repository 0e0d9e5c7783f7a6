#!/usr/bin/env python3
# A stand-in for `kernelskill` in bench/run-suite's flow tests (no GPU): answers
# --version, and `optimize TASK --out DIR --json ... [--resume --rounds K]` by
# writing a run folder the way lib/agents/loop.c does (journal.jsonl records,
# evidence/<hash>.json with the Reviewer's roofline block, the best source) and
# printing ks_loop_result_json's document. FAKE_KS_MODES="task=mode,..." picks
# what each task does:
#   ok          seed 400 us, round 1 accepted, closing review 2.0x, exit 0
#   seedstands  rounds finish with nothing accepted, exit 0
#   hang        round 1 accepted, then hangs in round 2 with a child process in
#               its own process group (as the Reviewer's children are); on
#               --resume it stops and runs the closing review (3.0x)
#   hang0       the seed reviewed, then hangs before any round ends
#   seedfail    the seed does not compile, exit 1
#   slowclose   as ok, but the closing review takes $FAKE_KS_CLOSE_S seconds (5)
# Every call is appended to $FAKE_KS_LOG when set (with FAKE_KS_LOG_ENV=1, also
# the call's CUDA_VISIBLE_DEVICES and KS_GPU_LOCK).
import json
import os
import subprocess
import sys
import time

SEED, BEST = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"


def rec(out, event, rnd, **kw):
    kw.update({"ks_journal": 1, "event": event, "round": rnd})
    with open(os.path.join(out, "journal.jsonl"), "a") as f:
        f.write(json.dumps(kw) + "\n")


def evidence(out, h, us):
    os.makedirs(os.path.join(out, "evidence"), exist_ok=True)
    doc = {"ks_evidence": 1, "roofline": {"dram_gbps_ceiling": 4000.0, "fp32_gflops_ceiling": 60000.0,
                                          "ceilings_cached": True, "roofline_pct": 33.3, "median_us_used": us}}
    with open(os.path.join(out, "evidence", h + ".json"), "w") as f:
        json.dump(doc, f)


def report(out, task):
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("# fake report of %s\n" % task)


def result(task, out, status, speedup, seed_us, best_us, passed, rounds, skills, stop, best_hash=BEST):
    print(json.dumps({"ks_optimize": 1, "task": task, "out": out, "status": status, "seed_hash": SEED,
                      "best_hash": best_hash, "best": os.path.join(out, "seed.cu"), "seed_us": seed_us,
                      "best_us": best_us, "speedup": speedup, "passed": passed, "rounds": rounds,
                      "accepted": len(skills), "skills": ", ".join(skills), "stop": stop}, indent=2))


def park(out):
    """Tells the runner's test clock (KS_SUITE_TEST_CLOCK) that this loop waits:
    its time may move on."""
    open(os.path.join(out, "parked"), "w").close()


def virtual_now():
    with open(os.environ["KS_SUITE_TEST_CLOCK"]) as f:
        return float(f.read() or 0)


def wait_virtual(out, secs):
    """A closing review that takes SECS of the runner's (virtual) time: parked
    until the test clock has moved on by SECS, or killed before."""
    if not os.environ.get("KS_SUITE_TEST_CLOCK"):
        time.sleep(secs)
        return
    until = virtual_now() + secs
    park(out)
    while virtual_now() < until:
        time.sleep(0.02)
    os.unlink(os.path.join(out, "parked"))


def main(a):
    if a[:1] == ["--version"]:
        print("kernelskill 9.9.9-fake")
        return 0
    if os.environ.get("FAKE_KS_LOG"):
        with open(os.environ["FAKE_KS_LOG"], "a") as f:
            f.write(" ".join(a) + "\n")
            if os.environ.get("FAKE_KS_LOG_ENV"):
                f.write("env %s CUDA_VISIBLE_DEVICES=%s KS_GPU_LOCK=%s\n" % (
                    os.path.basename(os.path.dirname(a[1])) if len(a) > 1 else "?",
                    os.environ.get("CUDA_VISIBLE_DEVICES", "unset"), os.environ.get("KS_GPU_LOCK", "unset")))
    if a[:1] != ["optimize"]:
        return 2
    task = os.path.basename(os.path.dirname(a[1]))
    out = a[a.index("--out") + 1]
    modes = dict(kv.split("=") for kv in os.environ.get("FAKE_KS_MODES", "").split(",") if kv)
    mode = modes.get(task, "ok")
    if "--resume" in a:
        k = int(a[a.index("--rounds") + 1])
        rec(out, "stop", k, reason="round budget spent (%d)" % k, best=BEST)
        rec(out, "final", k, hash=BEST, verdict="accepted", speedup=3.0, median_us=100.0, seed_us=300.0)
        open(os.path.join(out, "seed.cu"), "w").write("// best of %s\n" % task)
        report(out, task)
        result(task, out, "done", 3.0, 300.0, 100.0, True, k, ["mem.vectorize-128"], "round budget spent (%d)" % k)
        return 0
    os.makedirs(out, exist_ok=True)
    rec(out, "start", 0, task=task, source="bench/suite/%s/seed.cu" % task, seed=SEED, rounds=4, version="fake")
    if mode == "seedfail":
        rec(out, "review", 0, hash=SEED, verdict="compile_error", diagnosis="seed.cu:3: error: fake")
        result(task, out, "seed_failed", 0, 0, 0, False, 0, [], None, SEED)
        return 1
    rec(out, "review", 0, hash=SEED, verdict="ok", median_us=400.0, noise_pct=0.1)
    evidence(out, SEED, 400.0)
    if mode == "hang0":
        park(out)
        time.sleep(300)
        return 0
    if mode == "seedstands":
        for r in (1, 2):
            rec(out, "decision", r, parent=SEED, skill="mem.restrict-const", verdict="kept", best=SEED)
        rec(out, "stop", 2, reason="no skill left", best=SEED)
        open(os.path.join(out, "seed.cu"), "w").write("// seed of %s\n" % task)
        report(out, task)
        result(task, out, "done", 1.0, 400.0, 400.0, True, 2, [], "no skill left", SEED)
        return 0
    # relu's winner carries the parameters its candidate was made with (a sweep's choice)
    rec(out, "decision", 1, parent=SEED, skill="mem.vectorize-128", verdict="accepted", best=BEST, best_us=200.0,
        total_speedup=2.0, params={"threads": "256"} if task == "relu" else {})
    evidence(out, BEST, 200.0)
    if mode == "hang":
        rec(out, "plan", 2, parent=BEST, chosen="mem.coarsen")
        child = subprocess.Popen(["sleep", "300"], start_new_session=True)
        open(os.path.join(out, "child.pid"), "w").write("%d\n" % child.pid)
        park(out)
        time.sleep(300)
        return 0
    rec(out, "stop", 1, reason="round budget spent (1)", best=BEST)
    if mode == "slowclose":
        wait_virtual(out, float(os.environ.get("FAKE_KS_CLOSE_S", "5")))
    rec(out, "final", 1, hash=BEST, verdict="accepted", speedup=2.0, median_us=200.0, seed_us=400.0)
    open(os.path.join(out, "seed.cu"), "w").write("// best of %s\n" % task)
    report(out, task)
    result(task, out, "done", 2.0, 400.0, 200.0, True, 1, ["mem.vectorize-128"], "round budget spent (1)")
    return 0


sys.exit(main(sys.argv[1:]))
