"""A sum of many pointwise functions of one input: every unary form the library fuses."""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 37
COLS = 129
SHAPES = {"small": {"ROWS": 37, "COLS": 129}}


class Model(nn.Module):
    def forward(self, x):
        return (F.gelu(x) + torch.tanh(x) + F.mish(x) + F.elu(x) + F.hardswish(x)
                + F.hardsigmoid(x) + torch.clamp(x, -0.5, 0.7) + F.selu(x) + F.relu6(x)
                + torch.erf(x) + torch.exp(-x * x) + torch.sin(x) * torch.cos(x)
                + torch.clamp_min(x, 0.1) + torch.clamp(x, max=0.2) + F.softplus(x, 2.0, 5.0))


def get_inputs():
    return [torch.randn(ROWS, COLS) * 2.0]


def get_init_inputs():
    return []
