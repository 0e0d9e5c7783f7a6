# Checks bench/suite/runner/torch_time.py's GPU lock against the Reviewer's
# (lib/review/review.c gpu_lock_acquire): the same default file name, "off"
# disables it, and a held lock blocks until it is released or the deadline passes.
#   lock_check.py RUNNER_DIR SCRATCH_DIR
import fcntl
import os
import sys
import time

sys.path.insert(0, sys.argv[1])
import torch_time  # noqa: E402

scratch = sys.argv[2]
uid = os.getuid()
os.environ.pop("KS_GPU_LOCK", None)
os.environ.pop("CUDA_VISIBLE_DEVICES", None)
print("default", torch_time.default_lock_path().replace("-%d-" % uid, "-UID-"))
os.environ["CUDA_VISIBLE_DEVICES"] = "0,GPU-1f/x"
print("devices", torch_time.default_lock_path().replace("-%d-" % uid, "-UID-"))
os.environ["KS_GPU_LOCK"] = "off"
print("off", torch_time.default_lock_path())
path = os.path.join(scratch, "gpu.lock")
os.environ["KS_GPU_LOCK"] = path
print("env", torch_time.default_lock_path() == path)

held = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(held, fcntl.LOCK_EX)
t0 = time.time()
try:
    with torch_time.GpuLock(path, time.time() + 0.5):
        print("held lock taken: wrong")
except TimeoutError as e:
    # Not before the deadline (a lower bound holds however loaded the machine is).
    print("timeout, not before the deadline: %s, says so: %s" % (time.time() - t0 >= 0.5, "deadline" in str(e)))
os.close(held)
with torch_time.GpuLock(path, None):  # no deadline: a free lock is taken, however long that takes
    print("free lock taken")
    other = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        print("exclusive: no")
    except OSError:
        print("exclusive: yes")
    os.close(other)
other = os.open(path, os.O_RDWR)
fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
print("released: yes")
