"""Pointwise arithmetic over two same-shaped inputs, with scalars on either side."""

import torch
import torch.nn as nn

ROWS = 37
COLS = 129
SHAPES = {"small": {"ROWS": 37, "COLS": 129}}


class Model(nn.Module):
    def forward(self, a, b):
        return (torch.sigmoid(a) * b - 0.5 * a / (1.0 + b * b) + torch.sqrt(torch.abs(b))
                + torch.rsqrt(1.0 + a * a) + (2.0 - a).pow(3) + torch.log(1.0 + b.pow(2))
                - torch.reciprocal(2.0 + torch.abs(a)) + torch.sub(a, b, alpha=0.25)
                + torch.add(a, 3.0, alpha=2.0) - (-b) + (a / 3.0 - 1.5))


def get_inputs():
    return [torch.randn(ROWS, COLS), torch.randn(ROWS, COLS) * 1.5 + 0.3]


def get_init_inputs():
    return []
