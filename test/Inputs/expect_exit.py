# expect_exit.py N CMD ARGS... — run CMD, pass its output through, and succeed
# only if it exits with status N (lit's `not` only knows zero / non-zero).
import subprocess
import sys

want = int(sys.argv[1])
rc = subprocess.call(sys.argv[2:])
if rc != want:
    sys.stderr.write(f"expect_exit: {sys.argv[2]} exited {rc}, expected {want}\n")
    sys.exit(1)
