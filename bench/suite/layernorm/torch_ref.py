# PyTorch eager equivalent of the layernorm task (convention: docs/suite.md).
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from suite_common import task_inputs  # noqa: E402


def forward(x, gamma, beta, y, eps, rows, cols):
    return {"y": F.layer_norm(x, (cols,), gamma, beta, eps)}


def make_inputs(dims=None, device="cuda", seed=0):
    return task_inputs(__file__, dims, device, seed)
