# PyTorch eager equivalent of the sum_dim task (convention: docs/suite.md).
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from suite_common import task_inputs  # noqa: E402


def forward(x, y, batch, reduce, inner):
    return {"y": torch.sum(x, dim=1)}


def make_inputs(dims=None, device="cuda", seed=0):
    return task_inputs(__file__, dims, device, seed)
