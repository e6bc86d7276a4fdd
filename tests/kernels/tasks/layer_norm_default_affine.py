"""LayerNorm as KernelBench writes it (level1/40_LayerNorm.py): an nn.LayerNorm left at its
default affine, weight = 1 and bias = 0, so a kernel that ignores both computes the same
values. For the parameter exploits of tests/kernels/redteam (E14)."""

import torch
import torch.nn as nn

BATCH = 64
HIDDEN = 96

SHAPES = {"small": {"BATCH": 37, "HIDDEN": 129}}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.ln = nn.LayerNorm(hidden)

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn(BATCH, HIDDEN) * 1.5 + 0.2]


def get_init_inputs():
    return [HIDDEN]
