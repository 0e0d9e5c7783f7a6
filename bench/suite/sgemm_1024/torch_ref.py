# PyTorch eager equivalent of the sgemm_1024 task (convention: docs/suite.md).
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from suite_common import task_inputs  # noqa: E402

# The task is fp32: keep cuBLAS off TF32, which the tolerance would reject.
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def forward(A, B, C, M, N, K):
    return {"C": torch.matmul(A, B)}


def make_inputs(dims=None, device="cuda", seed=0):
    return task_inputs(__file__, dims, device, seed)
