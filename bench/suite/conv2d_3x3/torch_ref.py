# PyTorch eager equivalent of the conv2d_3x3 task (convention: docs/suite.md).
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from suite_common import task_inputs  # noqa: E402

# The task is fp32: keep cuBLAS/cuDNN off TF32, which the tolerance would reject.
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def forward(x, w, y, batch, cin, cout, height, width):
    return {"y": F.conv2d(x, w, padding=1)}


def make_inputs(dims=None, device="cuda", seed=0):
    return task_inputs(__file__, dims, device, seed)
