#!/usr/bin/env python3
# envdump.py — a stand-in for nvcc (KS_NVCC) that prints the environment it
# was given and fails: the Reviewer shows a failed compile's output, so the
# test sees what the Reviewer's children see (they cannot write outside their
# work folder under ks-isolate, so the output is the channel).
import os
import sys

for k in sorted(os.environ):
    print(k + "=" + os.environ[k])
sys.exit(1)
