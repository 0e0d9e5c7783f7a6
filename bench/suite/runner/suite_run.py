# bench/run-suite's engine: one run of the benchmark suite on the GPU machine.
# Runs `kernelskill optimize` on every task of bench/suite at once (their GPU
# work is serialized by the Reviewer's GPU lock, their compiles overlap), times
# PyTorch eager under the same lock, cuts the loop at a time limit and sends the
# best so far through the closing review (`--resume --rounds K`), and writes the
# raw JSON (after every finished task), docs/results.md and the PNG.
# Without a GPU, --dry-run checks everything that runs there; --report-from
# regenerates the page and the plot from a raw JSON.
import argparse
import concurrent.futures
import datetime
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(SUITE))
sys.path.insert(0, HERE)
sys.path.insert(0, SUITE)

import report  # noqa: E402
import torch_time  # noqa: E402  (no torch import at module level)
from suite_common import eval_expr, load_task  # noqa: E402

CORRECT = ("ok", "accepted", "slower", "noise")  # lib/agents/loop.c is_correct()


class Clock:
    """The run's sense of time: the wall clock; or, for the tests, with
    KS_SUITE_TEST_CLOCK=FILE, a virtual clock that starts at 0 and moves on by a
    sleep's length only while every running loop is parked (its run folder holds
    a file `parked`, which the test's stand-in loop writes before it hangs or
    waits) or has exited. What happens before a cut or a deadline then follows
    the order of events, not the speed of a loaded machine. The virtual time is
    written to FILE for the stand-ins that wait on it."""

    def __init__(self, path=None):
        self.path, self.v = path, 0.0
        if path:
            self._publish()

    def _publish(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            f.write("%.3f\n" % self.v)
        os.replace(tmp, self.path)

    def now(self):
        return self.v if self.path else time.time()

    def sleep(self, dt, jobs=()):
        if not self.path:
            time.sleep(dt)
            return
        time.sleep(0.02)
        if all(j.quiet() for j in jobs):
            self.v += dt
            self._publish()


CLOCK = Clock(os.environ.get("KS_SUITE_TEST_CLOCK") or None)


def log(msg):
    print("run-suite: %s" % msg, file=sys.stderr, flush=True)


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def write_json(path, doc):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_journal(run_dir):
    """Records of journal.jsonl; a torn last line (a killed run) is skipped."""
    out = []
    try:
        with open(os.path.join(run_dir, "journal.jsonl")) as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    except OSError:
        pass
    return out


# ---- tasks ------------------------------------------------------------------

def suite_tasks(names):
    all_names = sorted(f for f in os.listdir(SUITE) if os.path.isfile(os.path.join(SUITE, f, "task.json")))
    if not names:
        return all_names
    bad = [n for n in names if n not in all_names]
    if bad:
        raise SystemExit("run-suite: no such task: %s (have: %s)" % (", ".join(bad), " ".join(all_names)))
    return names


def task_cost(name):
    """(bytes, flops) of a task from its task.json."""
    t = load_task(os.path.join(SUITE, name))
    dims = dict(t["dims"])
    return float(eval_expr(t["cost"]["bytes"], dims)), float(eval_expr(t["cost"]["flops"], dims))


def order_tasks(names):
    """The start order. First the task with the shortest roofline time on
    nominal H200 figures (4 TB/s, 50 TFLOP/s; order only): it runs alone until
    the device's ceilings are cached (--stagger), so the wait is short. Then the
    most flops first, so the slowest loops start earliest when --jobs < tasks."""
    def est(n):
        nbytes, flops = task_cost(n)
        return max(nbytes / 4e12, flops / 5e13)
    if not names:
        return []
    first = min(names, key=lambda n: (est(n), n))
    return [first] + sorted((n for n in names if n != first), key=lambda n: (-task_cost(n)[1], n))


# ---- processes ----------------------------------------------------------------

def descendants(pid):
    """Every process below pid (from /proc), deepest last."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
            ppid = int(st[st.rindex(")") + 2:].split()[1])
            kids.setdefault(ppid, []).append(int(d))
        except (OSError, ValueError, IndexError):
            pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in kids.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def kill_tree(proc):
    """SIGKILL a child we started and everything below it. The Reviewer puts its
    children (nvcc, ks-harness) in their own process groups, so the groups of
    all descendants are killed too."""
    pids = descendants(proc.pid)
    groups = set()
    for p in [proc.pid] + pids:
        try:
            groups.add(os.getpgid(p))
        except OSError:
            pass
    for p in [proc.pid] + pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    for g in groups:
        if g > 1 and g != os.getpgid(0):
            try:
                os.killpg(g, signal.SIGKILL)
            except OSError:
                pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


class Job:
    def __init__(self, name, argv, log_path, out_path, env):
        self.name, self.argv = name, argv
        self.t0 = CLOCK.now()
        if CLOCK.path and "--out" in argv:  # a folder parked by a loop cut before is not this one's
            try:
                os.unlink(os.path.join(ROOT, argv[argv.index("--out") + 1], "parked"))
            except OSError:
                pass
        self.out_f = open(out_path, "w")
        self.err_f = open(log_path, "a")
        self.proc = subprocess.Popen(argv, stdout=self.out_f, stderr=self.err_f, stdin=subprocess.DEVNULL,
                                     env=env, cwd=ROOT, start_new_session=True)
        self.killed = None

    def poll(self):
        return self.proc.poll()

    def kill(self, why):
        self.killed = why
        kill_tree(self.proc)

    def close(self):
        self.out_f.close()
        self.err_f.close()
        return CLOCK.now() - self.t0

    def quiet(self):
        """Exited, or parked (the test clock's stand-ins say so; see Clock)."""
        if self.proc.poll() is not None:
            return True
        out = self.argv[self.argv.index("--out") + 1] if "--out" in self.argv else None
        return bool(out) and os.path.exists(os.path.join(ROOT, out, "parked"))


# ---- one task's record ---------------------------------------------------------

def skill_text(d):
    """An accepted decision's skill with the parameters its candidate was made with
    (the sweep's winner, e.g. gemm-tiled's config), as the journal recorded them."""
    params = d.get("params")
    if not isinstance(params, dict) or not params:
        return d.get("skill", "?")
    return "%s (%s)" % (d.get("skill", "?"), ", ".join("%s=%s" % (k, v) for k, v in sorted(params.items())))


def collect(name, run_dir, stdout_path, rc, seconds, killed):
    """The task's record from the optimize JSON (when it printed one), the
    journal and the evidence files of the run folder."""
    nbytes, flops = task_cost(name)
    rec = {"name": name, "run_dir": run_dir, "exit": rc, "seconds": round(seconds, 1),
           "cost_bytes": nbytes, "cost_flops": flops, "correct": False}
    res = read_json(stdout_path) if stdout_path else None
    j = read_journal(run_dir)
    ev = {}
    for r in j:
        ev.setdefault(r.get("event"), []).append(r)
    start = (ev.get("start") or [{}])[0]
    review = next((r for r in ev.get("review", []) if r.get("round", 0) == 0), None)
    decisions = ev.get("decision", [])
    accepted = [d for d in decisions if d.get("verdict") == "accepted"]
    seed_hash = start.get("seed") or (res or {}).get("seed_hash")
    best_hash = accepted[-1].get("best") if accepted else seed_hash
    if res and res.get("best_hash"):
        best_hash = res["best_hash"]
    final = next((r for r in reversed(ev.get("final", [])) if r.get("hash") == best_hash), None)
    stop = (ev.get("stop") or [{}])[-1]
    rec.update(rounds=len(decisions), accepted=len(accepted), skills=", ".join(skill_text(d) for d in accepted),
               stop=stop.get("reason") or (res or {}).get("stop"), seed_hash=seed_hash, best_hash=best_hash)
    seed_ok = review is not None and review.get("verdict") in CORRECT
    if review is not None and not seed_ok:
        rec["note"] = "the seed failed its review: %s" % (review.get("diagnosis") or review.get("verdict"))
    if seed_ok:
        rec["seed_us"] = review.get("median_us")
        rec["seed_review_us"] = review.get("median_us")
    finished = stop.get("reason") is not None
    if (finished or killed) and not accepted and seed_ok:
        # Nothing accepted (before the cut, for a killed loop): the seed stands,
        # as reviewed in round 0.
        rec.update(best_us=rec.get("seed_us"), speedup=1.0, correct=True, timing="round-0 review of the seed")
        if killed:
            rec["note"] = "no change accepted before the cut: the seed stands"
    elif final is not None:
        rec["final_verdict"] = final.get("verdict")
        rec["correct"] = final.get("verdict") in CORRECT
        if "median_us" in final:
            rec.update(seed_us=final.get("seed_us"), best_us=final.get("median_us"), speedup=final.get("speedup"),
                       timing="closing review (best and seed interleaved)")
        if not rec["correct"]:
            rec["note"] = "the closing review failed: %s" % (final.get("reason") or final.get("verdict"))
    elif accepted:
        # Killed before its closing review: the best so far, not verified against the seed.
        rec.update(unverified_best_us=accepted[-1].get("best_us"),
                   unverified_speedup=accepted[-1].get("total_speedup"))
    if res is not None and rc == 0 and not res.get("passed"):
        rec["correct"] = False
    if killed:
        status = "cut" if rec["correct"] else "timeout"
        rec["note"] = ("%s; " % rec["note"] if rec.get("note") else "") + killed
    elif rc == 0 and rec["correct"]:
        status = "ok"
    elif rc == 1:
        status = "failed"
        if res and res.get("diagnosis") and not rec.get("note"):
            rec["note"] = res["diagnosis"]
    elif rc == 2:
        status = "error"
        rec["note"] = rec.get("note") or "usage or environment error (exit 2): see the log"
    else:
        status = "error"
        rec["note"] = rec.get("note") or "exit %s" % rc
    rec["status"] = status
    # Ceilings and the Reviewer's own roofline position, from the evidence files.
    for key, h in (("seed", seed_hash), ("best", best_hash)):
        doc = read_json(os.path.join(run_dir, "evidence", "%s.json" % h)) if h else None
        roof = (doc or {}).get("roofline") or {}
        if "roofline_pct" in roof:
            rec.setdefault("evidence_roofline_pct", {})[key] = roof["roofline_pct"]
        if "dram_gbps_ceiling" in roof and "ceilings" not in rec:
            rec["ceilings"] = {"dram_gbps": roof["dram_gbps_ceiling"], "fp32_gflops": roof.get("fp32_gflops_ceiling"),
                               "cached": roof.get("ceilings_cached"),
                               "source": "%s evidence/%s.json" % (name, h)}
    best_src = (res or {}).get("best")
    if not best_src and start.get("source"):
        cand = os.path.join(run_dir, os.path.basename(start["source"]))
        best_src = cand if os.path.isfile(cand) else None
    rec["best_source"] = best_src
    return rec


def closing(run_dir):
    """True once the loop has stopped planning (its "stop" record): it is in its
    closing review or writing its report."""
    return any(r.get("event") == "stop" for r in read_journal(run_dir))


def salvage_rounds(run_dir):
    """K for `--resume --rounds K` on a killed run that had accepted a change:
    the last finished round (the loop then stops and runs its closing review).
    None when there is nothing to close (no accepted change: the seed stands)."""
    j = read_journal(run_dir)
    rounds = [r.get("round", 0) for r in j if r.get("event") == "decision"]
    if not any(r.get("event") == "decision" and r.get("verdict") == "accepted" for r in j):
        return None
    return max(rounds)


# ---- environment -----------------------------------------------------------------

def sh(argv, timeout=30, env=None):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, str(e)


def gpu_info():
    """The GPUs this run may use: nvidia-smi's list, narrowed to
    CUDA_VISIBLE_DEVICES when it is set (nvidia-smi ignores it)."""
    rc, out = sh(["nvidia-smi", "--query-gpu=index,name,driver_version,memory.total,uuid", "--format=csv,noheader"])
    if rc != 0 or not out:
        return None
    gpus = []
    for line in out.splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) >= 2 and f[0].isdigit():
            gpus.append({"index": f[0], "name": f[1], "driver": f[2] if len(f) > 2 else "?",
                         "memory": f[3] if len(f) > 3 else "?", "uuid": f[4] if len(f) > 4 else ""})
    if not gpus:
        return None
    cvd = os.environ.get("CUDA_VISIBLE_DEVICES")
    if cvd is not None and cvd.strip():
        want = [x.strip() for x in cvd.split(",") if x.strip()]
        by = {g["index"]: g for g in gpus}
        by.update({g["uuid"]: g for g in gpus if g["uuid"]})
        gpus = [dict(by[w], index=w) if w in by else {"index": w, "name": gpus[0]["name"], "driver": gpus[0]["driver"],
                                                      "memory": "?", "uuid": ""} for w in want]
    return gpus


def assign_gpus(tasks, n):
    """Tasks to GPU slots 0..n-1, longest first onto the least loaded slot; the
    weight is the bytes a review moves and generates on the host, plus the
    naive GEMM's flops as byte-equivalents (order and balance only)."""
    load, out = [0.0] * n, {}
    for name in sorted(tasks, key=lambda t: (-(task_cost(t)[0] + task_cost(t)[1] / 100), t)):
        g = min(range(n), key=lambda i: (load[i], i))
        out[name] = g
        nbytes, flops = task_cost(name)
        load[g] += nbytes + flops / 100
    return out


def nvcc_version():
    rc, out = sh(["nvcc", "--version"])
    m = re.search(r"release ([0-9.]+), (V[0-9.]+)", out or "")
    return "%s (nvcc %s)" % (m.group(1), m.group(2)) if rc == 0 and m else "?"


def slug(s):
    s = re.sub(r"(?i)^nvidia\s+", "", s or "gpu").lower()
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-") or "gpu"


def ks_env(build):
    env = dict(os.environ)
    lib = os.path.join(build, "lib")
    env["LD_LIBRARY_PATH"] = ":".join(x for x in (lib, "/usr/local/cuda/lib64",
                                                  "/usr/local/cuda/targets/x86_64-linux/lib",
                                                  env.get("LD_LIBRARY_PATH", "")) if x)
    for k in list(env):  # the offline loop: no LLM, whatever the caller's shell says
        if k.startswith("KS_LLM_"):
            env.pop(k)
    return env


def fix_soname(build):
    """A carried build tree may lose symlinks: recreate libkernelskill.so.0."""
    lib = os.path.join(build, "lib")
    link = os.path.join(lib, "libkernelskill.so.0")
    if os.path.isdir(lib) and not os.path.exists(link):
        cands = sorted(f for f in os.listdir(lib) if f.startswith("libkernelskill.so.0."))
        if cands:
            try:
                if os.path.islink(link):
                    os.unlink(link)
                os.symlink(cands[0], link)
            except OSError:
                pass


# ---- dry run ------------------------------------------------------------------

def dry_run(o, tasks, ks, env):
    """Everything that runs without a GPU: tasks parse (ours and the product's
    loader), each loop's static plan, the references' entry points, the commands."""
    import ast
    problems = 0
    have_ks = os.access(ks, os.X_OK)
    if not have_ks:
        log("%s not found: the product's checks are skipped (build it, or give --build)" % ks)

    def one(name):
        msgs = []
        tj = os.path.join(SUITE, name, "task.json")
        try:
            nbytes, flops = task_cost(name)
        except Exception as e:  # noqa: BLE001 - reported per task
            return name, ["%s: %s" % (tj, e)], None
        try:
            tree = ast.parse(open(os.path.join(SUITE, name, "torch_ref.py")).read())
            fns = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            for need in ("forward", "make_inputs"):
                if need not in fns:
                    msgs.append("bench/suite/%s/torch_ref.py: no %s()" % (name, need))
        except (OSError, SyntaxError) as e:
            msgs.append("bench/suite/%s/torch_ref.py: %s" % (name, e))
        plan = None
        if have_ks:
            p = subprocess.run([ks, "task", "check", tj], capture_output=True, text=True, env=env, cwd=ROOT)
            if p.returncode != 0:
                msgs.append((p.stderr or p.stdout).strip())
            p = subprocess.run([ks, "optimize", tj, "--dry-run", "--json"], capture_output=True, text=True,
                               env=env, cwd=ROOT)
            if p.returncode != 0:
                msgs.append("optimize --dry-run: exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
            else:
                try:
                    d = json.loads(p.stdout)
                    plan = "%s (%d candidate%s)" % (d.get("skill") or "no skill applies", len(d.get("candidates", [])),
                                                    "" if len(d.get("candidates", [])) == 1 else "s")
                except ValueError:
                    msgs.append("optimize --dry-run --json: not JSON")
        return name, msgs, (nbytes, flops, plan)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(o.jobs, 4))) as ex:
        results = list(ex.map(one, tasks))
    for name, msgs, info in results:
        if msgs:
            problems += 1
            for m in msgs:
                print("%s: %s" % (name, m))
        else:
            nbytes, flops, plan = info
            print("%-20s ok: %8.1f MB %10.3g flops; round 1 would try: %s" % (
                name, nbytes / 1e6, flops, plan if plan else "(not checked)"))
    print()
    print("would run, %d at once (GPU work serialized by the lock %s):" % (min(o.jobs, len(tasks)),
                                                                           torch_time.default_lock_path()))
    print("  " + " ".join(shlex.quote(x) for x in optimize_argv(o, ks, "bench/suite/TASK/task.json", "WORK/runs/TASK")))
    if not o.no_torch:
        print("  python3 bench/suite/runner/torch_time.py --out WORK/torch-GPU.json --runs %d TASK_DIR... (one per GPU)"
              % o.torch_runs)
    print("time plan: loops cut at %d s, closing reviews of cut loops until %d s, report by %d s" % (
        o.deadline - o.salvage_reserve, o.deadline - 5, o.deadline))
    return 1 if problems else 0


def optimize_argv(o, ks, task_json, run_dir, resume_rounds=None):
    a = [ks, "optimize", task_json, "--out", run_dir, "--json", "--llm", "off",
         "--rounds", str(resume_rounds if resume_rounds else o.rounds), "--sweep", str(o.sweep),
         "--runs", str(o.runs), "--trials", str(o.trials)]
    if resume_rounds:
        a.append("--resume")
    return a


# ---- the run ------------------------------------------------------------------------

def gpu_envs(env, gpus, n):
    """Per GPU slot: the environment of its processes (CUDA_VISIBLE_DEVICES when
    more than one GPU is used) and its lock file, named as the Reviewer names it
    from that environment (lib/review/review.c), so the loops and the PyTorch
    timings of one GPU share one lock, and GPUs do not wait for each other."""
    user_lock = os.environ.get("KS_GPU_LOCK")
    out = []
    for g in gpus[:n]:
        e = dict(env)
        if n > 1:
            e["CUDA_VISIBLE_DEVICES"] = g["index"]
        if user_lock is not None and user_lock not in ("", "off") and n > 1:
            e["KS_GPU_LOCK"] = "%s.%s" % (user_lock, re.sub(r"[^A-Za-z0-9]", "_", g["index"]))
        else:
            saved = {k: os.environ.get(k) for k in ("CUDA_VISIBLE_DEVICES", "KS_GPU_LOCK")}
            for k in saved:
                if e.get(k) is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = e[k]
            lock = torch_time.default_lock_path()
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            e["KS_GPU_LOCK"] = lock or "off"
        out.append(e)
    return out


def run(o, tasks, ks, env, argv_text):
    t0 = CLOCK.now()
    started = utc_now()
    gpus = gpu_info()
    if gpus is None:
        log("no GPU answers nvidia-smi: nothing run (try --dry-run)")
        return 2
    if not os.access(ks, os.X_OK):
        log("%s not found or not executable (give --build DIR)" % ks)
        return 2
    n_gpu = max(1, min(o.gpus or len(gpus), len(gpus)))
    envs = gpu_envs(env, gpus, n_gpu)
    gpu_of = assign_gpus(tasks, n_gpu)
    work = os.path.abspath(o.work or "/tmp/ks-suite-%s" % started.strftime("%Y%m%d-%H%M%S"))
    runs_dir = os.path.join(work, "runs")
    if os.path.isdir(runs_dir) and os.listdir(runs_dir):
        log("%s already holds runs: give another --work" % runs_dir)
        return 2
    os.makedirs(runs_dir, exist_ok=True)
    name0 = gpus[0]["name"]
    stamp = "%s-%s" % (started.strftime("%Y-%m-%d"), slug(name0))
    results_json = os.path.abspath(o.results or os.path.join(ROOT, "bench", "results", stamp + ".json"))
    copies = os.path.splitext(results_json)[0]
    rc_v, ks_ver = sh([ks, "--version"], env=env)  # the build's lib/ on the library path
    used = gpus[:n_gpu]
    doc = {
        "ks_suite_results": 1,
        "started": started.strftime("%Y-%m-%d %H:%M:%S UTC"),
        "command": argv_text,
        "options": {"rounds": o.rounds, "sweep": o.sweep, "runs": o.runs, "trials": o.trials, "jobs": o.jobs,
                    "gpus": n_gpu, "deadline_s": o.deadline, "torch_runs": o.torch_runs, "llm": "off"},
        "env": {"gpu": name0 if n_gpu == 1 else "%d x %s" % (n_gpu, name0), "driver": gpus[0]["driver"],
                "gpu_memory": gpus[0]["memory"], "gpus": used, "cuda": nvcc_version(),
                "kernelskill": ks_ver.replace("kernelskill ", "") if rc_v == 0 else "?",
                "python": sys.version.split()[0], "cpus": os.cpu_count(),
                "gpu_locks": [e["KS_GPU_LOCK"] for e in envs], "work": work},
        "tasks": [],
    }
    log("%s, driver %s; %d tasks on %d GPU%s, %d loops at once; work folder %s; raw JSON %s" % (
        name0, gpus[0]["driver"], len(tasks), n_gpu, "" if n_gpu == 1 else "s", o.jobs, work, results_json))

    records = {}

    def save(final=False):
        # In name order (the run order is by flops).
        doc["tasks"] = [records.get(n) or {"name": n, "status": "running", "correct": False} for n in sorted(tasks)
                        if n in records or not final]
        doc["wall_s"] = round(CLOCK.now() - t0, 1)
        ce = next((r["ceilings"] for r in doc["tasks"] if r.get("ceilings")), None)
        if ce:
            doc["ceilings"] = ce
        write_json(results_json, doc)

    def record(name, rec):
        rec["gpu"] = used[gpu_of[name]]["index"]
        records[name] = rec

    # PyTorch eager, one process per GPU (its tasks), under that GPU's lock.
    torch_procs = []
    if not o.no_torch:
        for g in range(n_gpu):
            mine = [n for n in tasks if gpu_of[n] == g]
            if not mine:
                continue
            tj = os.path.join(work, "torch-%d.json" % g)
            targv = [sys.executable, os.path.join(HERE, "torch_time.py"), "--out", tj, "--runs", str(o.torch_runs),
                     "--deadline", "%.3f" % (time.time() + (t0 + o.deadline - 20 - CLOCK.now()))] + [os.path.join(SUITE, n) for n in mine]
            torch_procs.append((Job("torch", targv, os.path.join(work, "torch-%d.log" % g),
                                    os.path.join(work, "torch-%d.out" % g), envs[g]), tj))

    phase_end = t0 + o.deadline - o.salvage_reserve
    pending, running, killed_dirs = list(tasks), {}, {}
    first_on = {}  # GPU slot -> (its first loop, start time)
    save()
    while pending or running:
        now = CLOCK.now()
        for name in list(pending):
            if len(running) >= o.jobs or now >= phase_end - o.min_start:
                break
            g = gpu_of[name]
            # Stagger: a GPU's first loop runs alone until the device's ceilings
            # are cached (else every loop measures them), at most --stagger s.
            if g in first_on and ceilings_pending(envs[g], runs_dir, first_on[g][0], first_on[g][1] + o.stagger,
                                                  n_gpu):
                continue
            if g not in first_on:
                first_on[g] = (name, now)
            rd = os.path.join(runs_dir, name)
            argv = optimize_argv(o, ks, os.path.join("bench", "suite", name, "task.json"), rd)
            running[name] = Job(name, argv, os.path.join(work, name + ".log"), os.path.join(work, name + ".json"),
                                envs[g])
            pending.remove(name)
            log("start %s%s" % (name, "" if n_gpu == 1 else " on GPU %s" % used[g]["index"]))
        if pending and now >= phase_end - o.min_start and len(running) < o.jobs:
            for name in pending:
                record(name, {"name": name, "status": "not_started", "correct": False,
                              "note": "not started: the time limit came first"})
            pending = []
        for name, job in list(running.items()):
            rc = job.poll()
            if rc is None:
                if now - job.t0 > o.task_timeout:
                    job.kill("killed after the per-task limit of %d s" % o.task_timeout)
                elif now > phase_end and not closing(os.path.join(runs_dir, name)):
                    job.kill("cut at the run's time limit (%d s after the start)" % (o.deadline - o.salvage_reserve))
                elif now > phase_end and now > t0 + o.deadline - 5:
                    # A loop already in its closing review at the cut runs on
                    # (cutting it would only repeat that review), up to here.
                    job.kill("its closing review was cut at the deadline (%d s)" % o.deadline)
                else:
                    continue
                rc = job.proc.returncode
            secs = job.close()
            rd = os.path.join(runs_dir, name)
            record(name, collect(name, rd, os.path.join(work, name + ".json") if not job.killed else None,
                                 rc, secs, job.killed))
            if job.killed:
                killed_dirs[name] = (rd, job.killed, secs)
            del running[name]
            r = records[name]
            log("%s: %s in %.0f s%s" % (name, r["status"], secs, ", %.2fx vs seed" % r["speedup"]
                                        if isinstance(r.get("speedup"), (int, float)) else ""))
            save()
        CLOCK.sleep(0.2, list(running.values()))

    # Closing reviews of the cut loops: the best so far against the seed.
    sal = {}
    end = t0 + o.deadline - 5
    for name, (rd, why, secs) in killed_dirs.items():
        k = salvage_rounds(rd)
        if k is None or CLOCK.now() >= end - 0.5:  # no time left: the loop's own record stands
            continue
        argv = optimize_argv(o, ks, os.path.join("bench", "suite", name, "task.json"), rd, resume_rounds=k)
        sal[name] = (Job(name, argv, os.path.join(work, name + ".log"), os.path.join(work, name + ".resume.json"),
                         envs[gpu_of[name]]), k, why, secs)
        log("closing review of %s's best after round %d" % (name, k))
    while sal:
        for name, (job, k, why, secs) in list(sal.items()):
            rc = job.poll()
            if rc is None and CLOCK.now() < end:
                continue
            if rc is None:
                job.kill("closing review cut at the deadline")
                rc = job.proc.returncode
            s2 = job.close()
            rd = os.path.join(runs_dir, name)
            if job.killed:
                rec = collect(name, rd, None, rc, secs + s2, why + "; its closing review was cut too")
            else:
                rec = collect(name, rd, os.path.join(work, name + ".resume.json"), rc, secs + s2, None)
                if rec["status"] == "ok":
                    rec["status"] = "cut"
                rec["note"] = "%s; closed after round %d" % (why, k) + (
                    "; %s" % rec["note"] if rec.get("note") else "")
            record(name, rec)
            log("%s: %s after its closing review" % (name, rec["status"]))
            del sal[name]
            save()
        CLOCK.sleep(0.2, [j for j, _, _, _ in sal.values()])

    # PyTorch timings.
    ttasks, terr = {}, []
    for job, tj in torch_procs:
        while job.poll() is None and CLOCK.now() < t0 + o.deadline - 2:
            CLOCK.sleep(0.2, [job])
        if job.poll() is None:
            job.kill("deadline")
        job.close()
        tdoc = read_json(tj) or {}
        ttasks.update(tdoc.get("tasks") or {})
        if tdoc.get("torch"):
            doc["env"]["torch"], doc["env"]["torch_cuda"] = tdoc.get("torch"), tdoc.get("torch_cuda")
        else:
            terr.append(tdoc.get("error") or "the PyTorch process wrote nothing (see %s)" % (
                os.path.splitext(tj)[0] + ".log"))
    if o.no_torch:
        doc["env"]["torch_error"] = "not measured (--no-torch)"
    elif not doc["env"].get("torch"):
        doc["env"]["torch_error"] = terr[0] if terr else "no PyTorch process ran"
    for n in tasks:
        r = records.get(n)
        if r is None:
            continue
        if o.no_torch:
            r["torch"] = {"error": "not measured (--no-torch)"}
        else:
            r["torch"] = ttasks.get(n) or {"error": doc["env"].get("torch_error") or
                                           "not measured (the PyTorch process did not reach it)"}
    doc["finished"] = utc_now().strftime("%Y-%m-%d %H:%M:%S UTC")

    # Small copies of each run's report and best source next to the raw JSON.
    for n in tasks:
        r = records.get(n) or {}
        rd = r.get("run_dir")
        if not rd:
            continue
        for src, dst in ((os.path.join(rd, "report.md"), "%s.report.md" % n),
                         (r.get("best_source"), "%s.best.cu" % n)):
            if src and os.path.isfile(src) and os.path.getsize(src) <= o.copy_limit:
                os.makedirs(copies, exist_ok=True)
                shutil.copyfile(src, os.path.join(copies, dst))
    save(final=True)
    md, png = os.path.abspath(o.md), os.path.abspath(o.png)
    report.write(doc, os.path.relpath(results_json, ROOT), md, png)
    log("wrote %s, %s and %s in %.0f s" % (results_json, md, png, CLOCK.now() - t0))
    if o.export:
        export(o.export, [results_json, md, png] + ([copies] if os.path.isdir(copies) else []), work)
    s = report.summarize(doc)
    log("geomean vs seeds %s (%d tasks), vs PyTorch %s (%d tasks), fast_1 %d of %d" % (
        report._x(s["geomean_seed"]), s["n_seed"], report._x(s["geomean_torch"]), s["n_torch"], s["fast1"], s["n"]))
    return 0 if s["n_correct"] == s["n"] else 1


def ceilings_pending(env, runs_dir, first, until, n_gpu=1):
    """True while a GPU's first loop may still be measuring the device's
    ceilings (fewer cached ceilings files than GPUs, and its seed review not
    journaled yet), until the given time."""
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or "/tmp", ".cache")
    try:
        d = os.path.join(base, "kernelskill")
        if sum(1 for f in os.listdir(d) if f.startswith("ceilings-") and f.endswith(".json")) >= n_gpu:
            return False
    except OSError:
        pass
    if any(r.get("event") in ("review", "stop") for r in read_journal(os.path.join(runs_dir, first))):
        return False
    return CLOCK.now() < until


def merge_docs(docs, names):
    """One raw record from runs of disjoint task subsets (a suite too long for
    one command on one GPU). The page then says it was merged, from which runs."""
    seen, tasks = {}, []
    for doc, name in zip(docs, names):
        for t in doc.get("tasks", []):
            if t.get("name") in seen:
                raise ValueError("task %s is in both %s and %s: merge runs of disjoint task sets" % (
                    t.get("name"), seen[t["name"]], name))
            seen[t.get("name")] = name
            tasks.append(dict(t, part=name))
    first = docs[0]
    out = {
        "ks_suite_results": 1,
        "started": min(d.get("started", "?") for d in docs),
        "finished": max(d.get("finished", d.get("started", "?")) for d in docs),
        "wall_s": sum(d.get("wall_s", 0) or 0 for d in docs),
        "command": " ; ".join(d.get("command", "?") for d in docs),
        "options": first.get("options", {}),
        "env": dict(first.get("env", {})),
        "merged_from": names,
        "tasks": sorted(tasks, key=lambda t: t.get("name", "")),
    }
    if first.get("ceilings"):
        out["ceilings"] = first["ceilings"]
    diffs = []
    for key in ("options",):
        if any(d.get(key) != first.get(key) for d in docs[1:]):
            diffs.append("the parts ran with different options: %s" % "; ".join(
                "%s: %s" % (n, d.get(key)) for d, n in zip(docs, names)))
    for key in ("gpu", "driver", "cuda", "kernelskill", "torch"):
        vals = sorted({str((d.get("env") or {}).get(key)) for d in docs})
        if len(vals) > 1:
            diffs.append("%s differs between the parts: %s" % (key, ", ".join(vals)))
    if diffs:
        out["merge_notes"] = diffs
    return out


def export(dest, paths, work):
    """For the device machine's $OUT (few files, shallow): suite-results.tar.gz
    with the outputs at their repository paths (extract it in the repository
    root), suite-logs.tar.gz with the work folder's logs, journals and reports,
    and loose copies of the page and the plot to look at."""
    import tarfile
    os.makedirs(dest, exist_ok=True)
    with tarfile.open(os.path.join(dest, "suite-results.tar.gz"), "w:gz") as tf:
        for p in paths:
            rel = os.path.relpath(p, ROOT)
            tf.add(p, arcname=os.path.basename(p) if rel.startswith("..") else rel)
    with tarfile.open(os.path.join(dest, "suite-logs.tar.gz"), "w:gz") as tf:
        for root, _dirs, files in os.walk(work):
            for f in files:
                full = os.path.join(root, f)
                rel = os.path.relpath(full, work)
                if (os.sep not in rel and f.endswith((".log", ".json"))) or f in ("journal.jsonl", "report.md"):
                    tf.add(full, arcname=os.path.join("suite-work", rel))
    for p in paths:
        if p.endswith((".md", ".png")) and os.path.isfile(p) and os.path.dirname(os.path.abspath(p)) != \
                os.path.abspath(dest):
            shutil.copyfile(p, os.path.join(dest, os.path.basename(p)))
    log("exported suite-results.tar.gz and suite-logs.tar.gz to %s" % dest)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(
        prog="bench/run-suite",
        description="One run of the benchmark suite: seeds vs kernelskill optimize vs PyTorch eager vs the roofline.")
    ap.add_argument("--build", default=None, help="build tree with bin/ and lib/ (default: build, or the folder "
                    "above --kernelskill's bin/)")
    ap.add_argument("--kernelskill", help="the kernelskill binary (default: BUILD/bin/kernelskill)")
    ap.add_argument("--tasks", help="comma-separated task names (default: all of bench/suite)")
    ap.add_argument("--jobs", type=int, default=21, help="optimize processes at once (default 21: every task)")
    ap.add_argument("--gpus", type=int, default=0,
                    help="GPUs to spread the tasks over (default: every visible one); each task's loop and PyTorch "
                         "timing run on one GPU, under that GPU's lock")
    ap.add_argument("--rounds", type=int, default=4, help="round budget per task (default 4)")
    ap.add_argument("--sweep", type=int, default=1,
                    help="sweep points per round (default 1: with ~30-55 s of GPU per review, a review buys more "
                         "as the next skill than as another parameter value)")
    ap.add_argument("--runs", type=int, default=50, help="timed runs per review (default 50, the minimum)")
    ap.add_argument("--trials", type=int, default=5, help="correctness trials per review (default 5)")
    ap.add_argument("--torch-runs", type=int, default=100, help="timed PyTorch calls per task (default 100)")
    ap.add_argument("--no-torch", action="store_true", help="skip the PyTorch eager timings")
    ap.add_argument("--deadline", type=int, default=540,
                    help="seconds from the start until the report must be written (default 540)")
    ap.add_argument("--salvage-reserve", type=int, default=150,
                    help="seconds before the deadline at which running loops are cut and their best so far goes "
                         "through the closing review (default 150: room for about 3 closing reviews per GPU)")
    ap.add_argument("--task-timeout", type=int, default=480, help="seconds one optimize may run (default 480)")
    ap.add_argument("--min-start", type=int, default=60,
                    help="no loop starts later than this many seconds before the cut (default 60)")
    ap.add_argument("--stagger", type=int, default=60,
                    help="the first loop runs alone until the ceilings are cached, at most this long (default 60)")
    ap.add_argument("--work", help="folder for run folders and logs (default /tmp/ks-suite-<time>)")
    ap.add_argument("--results", help="raw JSON (default bench/results/<date>-<gpu>.json)")
    ap.add_argument("--md", default=os.path.join(ROOT, "docs", "results.md"))
    ap.add_argument("--png", default=os.path.join(ROOT, "docs", "results.png"))
    ap.add_argument("--export", help="also pack the outputs (repository paths) and the logs into two .tar.gz "
                                     "files under this folder, e.g. $OUT on the device machine")
    ap.add_argument("--copy-limit", type=int, default=256 * 1024, help="largest report/source copied (bytes)")
    ap.add_argument("--dry-run", "--no-gpu", dest="dry_run", action="store_true",
                    help="no GPU: check the tasks, each loop's static plan and the commands; writes nothing")
    ap.add_argument("--report-from", metavar="JSON", nargs="+",
                    help="regenerate --md and --png from a raw JSON, run nothing; several JSONs (runs of disjoint "
                         "task subsets) are merged first, and the merged JSON is written to --results if given")
    o = ap.parse_args(argv)
    o.build_given = o.build is not None
    o.build = o.build or "build"
    if o.gpus < 0:
        ap.error("--gpus must be 0 (every visible GPU) or more")
    for k in ("jobs", "rounds", "sweep", "trials", "torch_runs", "deadline"):
        if getattr(o, k) < 1:
            ap.error("--%s must be at least 1" % k.replace("_", "-"))
    if o.runs < 50:
        ap.error("--runs must be at least 50 (the Reviewer's minimum)")
    if o.salvage_reserve >= o.deadline:
        ap.error("--salvage-reserve must be less than --deadline")

    if o.report_from:
        docs = []
        for path in o.report_from:
            doc = read_json(path)
            if not isinstance(doc, dict) or doc.get("ks_suite_results") != 1:
                print("run-suite: %s: not a bench/run-suite raw JSON (no \"ks_suite_results\": 1)" % path,
                      file=sys.stderr)
                return 1
            docs.append(doc)
        rels = [os.path.relpath(os.path.abspath(p), ROOT) for p in o.report_from]
        rels = [r if not r.startswith("..") else p for r, p in zip(rels, o.report_from)]
        if len(docs) > 1:
            try:
                doc = merge_docs(docs, rels)
            except ValueError as e:
                print("run-suite: %s" % e, file=sys.stderr)
                return 1
            src = " + ".join(rels)
            if o.results:
                src = os.path.relpath(os.path.abspath(o.results), ROOT)
                src = o.results if src.startswith("..") else src
            if o.results:
                write_json(os.path.abspath(o.results), doc)
        else:
            doc, src = docs[0], rels[0]
        report.write(doc, src, os.path.abspath(o.md), os.path.abspath(o.png) if o.png else None)
        log("wrote %s and %s from %s" % (o.md, o.png, ", ".join(o.report_from)))
        return 0

    tasks = suite_tasks([t for t in (o.tasks or "").split(",") if t])
    try:
        tasks = order_tasks(tasks)
    except Exception as e:  # noqa: BLE001 - a task file that does not load
        log("a task does not load: %s (run python3 bench/suite/check.py)" % e)
        return 1
    build = os.path.abspath(os.path.join(ROOT, o.build) if not os.path.isabs(o.build) else o.build)
    ks = os.path.abspath(o.kernelskill) if o.kernelskill else os.path.join(build, "bin", "kernelskill")
    if o.kernelskill and not o.build_given:
        build = os.path.dirname(os.path.dirname(ks))  # BUILD/bin/kernelskill
    fix_soname(build)
    env = ks_env(build)
    if o.dry_run:
        return dry_run(o, tasks, ks, env)
    argv_text = "bench/run-suite" + "".join(" " + shlex.quote(a) for a in argv)
    return run(o, tasks, ks, env, argv_text)
