# PyTorch eager equivalent of the sgemm_2048 task (convention: docs/suite.md).
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from suite_common import task_inputs  # noqa: E402

# The task is fp32: keep cuBLAS/cuDNN off TF32, which the tolerance would reject.
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def forward(a, b, c, n):
    return {"c": torch.matmul(a, b)}


def make_inputs(dims=None, device="cuda", seed=0):
    return task_inputs(__file__, dims, device, seed)
