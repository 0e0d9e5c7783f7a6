# PyTorch eager timings for bench/run-suite: each task's torch_ref.forward on the
# task's own inputs (make_inputs), CUDA events around each call, a cold L2 before
# each timed call (the Reviewer's method: write max(4 x L2, 256 MiB) first), median
# of N runs. The GPU work of each task runs while holding the Reviewer's GPU lock
# (the same flock file), so it never overlaps a kernel timing of `kernelskill
# optimize` running at the same time. Results go to a JSON file, rewritten after
# every task, so a killed run keeps what was measured.
#
#   python3 torch_time.py --out FILE [--runs N] [--warmup N] [--lock PATH]
#                         [--deadline UNIX_TIME] TASK_DIR...
import argparse
import fcntl
import importlib.util
import json
import os
import signal
import statistics
import sys
import time


def default_lock_path():
    """The lock file the Reviewer uses (lib/review/review.c, gpu_lock_acquire):
    $KS_GPU_LOCK, else /tmp/kernelskill-gpu-<uid>-<CUDA_VISIBLE_DEVICES or all>.lock
    with every non-alphanumeric character replaced by '_'. None when off."""
    env = os.environ.get("KS_GPU_LOCK")
    if env is not None:
        return None if env in ("", "off") else env
    dev = os.environ.get("CUDA_VISIBLE_DEVICES") or "all"
    safe = "".join(c if c.isascii() and c.isalnum() else "_" for c in dev[:63])
    return "/tmp/kernelskill-gpu-%d-%s.lock" % (os.getuid(), safe)


class GpuLock:
    """Exclusive flock on the GPU lock file. A blocking flock, as the Reviewer's
    children take it (polling would lose every race to them); SIGALRM gives it up
    at the deadline."""

    def __init__(self, path, deadline=None):
        self.path, self.deadline, self.fd = path, deadline, None

    def __enter__(self):
        if not self.path:
            return self
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        wait = self.deadline - time.time() if self.deadline else 0
        if self.deadline and wait <= 0:
            self._close()
            raise TimeoutError("the deadline passed before the GPU lock was taken")

        def expired(signum, frame):
            raise TimeoutError("GPU lock %s not free before the deadline" % self.path)

        old = signal.signal(signal.SIGALRM, expired)
        try:
            if wait > 0:
                signal.setitimer(signal.ITIMER_REAL, wait)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except BaseException:
            self._close()
            raise
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        return self

    def _close(self):
        if self.fd is not None:
            os.close(self.fd)  # closing drops the flock
            self.fd = None

    def __exit__(self, *exc):
        self._close()
        return False


def load_ref(task_dir):
    path = os.path.join(task_dir, "torch_ref.py")
    name = "ks_torch_ref_" + os.path.basename(os.path.normpath(task_dir))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def time_task(torch, task_dir, runs, warmup, flush):
    """Median, quartiles and extremes (us) of forward(**make_inputs()) with a cold L2."""
    ref = load_ref(task_dir)
    inputs = ref.make_inputs(device="cuda", seed=0)
    for _ in range(warmup):
        ref.forward(**inputs)
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(runs)]
    for start, end in ev:
        flush.zero_()
        start.record()
        ref.forward(**inputs)
        end.record()
    torch.cuda.synchronize()
    us = sorted(start.elapsed_time(end) * 1000.0 for start, end in ev)
    q = statistics.quantiles(us, n=4) if len(us) >= 2 else [us[0]] * 3
    del inputs
    return {"median_us": statistics.median(us), "q1_us": q[0], "q3_us": q[2], "min_us": us[0],
            "max_us": us[-1], "runs": runs, "warmup": warmup}


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description="PyTorch eager timings of bench/suite tasks")
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--lock", default=None, help="GPU lock file (default: the Reviewer's)")
    ap.add_argument("--deadline", type=float, default=0, help="UNIX time after which no task is started")
    ap.add_argument("tasks", nargs="+")
    o = ap.parse_args(argv)
    lock = o.lock if o.lock is not None else default_lock_path()
    if lock == "off":
        lock = None
    doc = {"ks_torch_times": 1, "runs": o.runs, "warmup": o.warmup, "lock": lock, "tasks": {}}
    try:
        import torch
    except Exception as e:  # reported per task: the run goes on without PyTorch
        doc["error"] = "torch not importable: %s" % e
        write_json(o.out, doc)
        print("torch_time: %s" % doc["error"], file=sys.stderr)
        return 2
    doc["torch"] = torch.__version__
    doc["torch_cuda"] = torch.version.cuda
    if not torch.cuda.is_available():
        doc["error"] = "torch.cuda.is_available() is False"
        write_json(o.out, doc)
        print("torch_time: %s" % doc["error"], file=sys.stderr)
        return 2
    props = torch.cuda.get_device_properties(0)
    l2 = int(getattr(props, "L2_cache_size", 0) or 0)
    nflush = max(4 * l2, 256 << 20)
    doc.update({"gpu": props.name, "l2_bytes": l2, "l2_flush_bytes": nflush})
    flush = torch.empty(nflush // 4, dtype=torch.float32, device="cuda")
    write_json(o.out, doc)
    rc = 0
    for task_dir in o.tasks:
        name = os.path.basename(os.path.normpath(task_dir))
        if o.deadline and time.time() > o.deadline:
            doc["tasks"][name] = {"error": "not timed: the run's deadline passed"}
            write_json(o.out, doc)
            continue
        t0 = time.time()
        try:
            with GpuLock(lock, o.deadline or None):
                rec = time_task(torch, task_dir, o.runs, o.warmup, flush)
                torch.cuda.empty_cache()
        except Exception as e:  # one task's failure (OOM, an error in its reference) is recorded
            rec = {"error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")}
            rc = 1
            try:
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
            except Exception:
                pass
        rec["seconds"] = round(time.time() - t0, 3)
        doc["tasks"][name] = rec
        write_json(o.out, doc)
        print("torch_time: %s: %s" % (name, "%.2f us" % rec["median_us"] if "median_us" in rec else rec["error"]),
              file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
