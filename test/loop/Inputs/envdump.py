#!/usr/bin/env python3
# envdump.py — a stand-in for nvcc (KS_NVCC) that writes the environment it
# was given to $ENVDUMP and fails: shows what the Reviewer's children see.
import os
import sys

with open(os.environ["ENVDUMP"], "a") as f:
    for k in sorted(os.environ):
        f.write(k + "=" + os.environ[k] + "\n")
sys.exit(1)
