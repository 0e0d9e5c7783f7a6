# PyTorch eager equivalent of the cross_entropy task (convention: docs/suite.md).
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from suite_common import task_inputs  # noqa: E402


def forward(logits, target, loss, rows, cols):
    return {"loss": F.cross_entropy(logits, target).reshape(1)}


def make_inputs(dims=None, device="cuda", seed=0):
    return task_inputs(__file__, dims, device, seed)
