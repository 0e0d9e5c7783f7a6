# Run a command; print "exit N" and its stderr on one line (lit inputs).
import subprocess
import sys

r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print("exit", r.returncode, " ".join(r.stderr.split()))
