# PyTorch eager equivalent of the adamw task (convention: docs/suite.md): the same
# in-place tensor operations as torch.optim.AdamW's single-tensor path (one
# parameter, capturable=False, amsgrad=False, maximize=False).
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from suite_common import task_inputs  # noqa: E402


def forward(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, weight_decay, step, n):
    param.mul_(1 - lr * weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    denom = (exp_avg_sq.sqrt() / math.sqrt(bias_correction2)).add_(eps)
    param.addcdiv_(exp_avg, denom, value=-step_size)
    return {"param": param, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq}


def make_inputs(dims=None, device="cuda", seed=0):
    return task_inputs(__file__, dims, device, seed)
