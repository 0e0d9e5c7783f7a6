# PyTorch eager equivalent of the sgemm_tf32 task (convention: docs/suite.md).
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from suite_common import task_inputs  # noqa: E402

# The task admits TF32: PyTorch eager runs cuBLAS with TF32 tensor-op math, the
# reference a TF32 GEMM of KernelSkill is compared with.
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True


def forward(a, b, c, n):
    return {"c": torch.matmul(a, b)}


def make_inputs(dims=None, device="cuda", seed=0):
    return task_inputs(__file__, dims, device, seed)
