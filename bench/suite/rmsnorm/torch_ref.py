# PyTorch eager equivalent of the rmsnorm task (convention: docs/suite.md).
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from suite_common import task_inputs  # noqa: E402


def forward(x, weight, y, eps, rows, cols):
    return {"y": F.rms_norm(x, (cols,), weight, eps)}


def make_inputs(dims=None, device="cuda", seed=0):
    return task_inputs(__file__, dims, device, seed)
