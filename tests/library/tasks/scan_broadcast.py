"""A weighted cumsum along the middle dim of a 3-D tensor (column tiles): x times a weight per
position (a (N, 1) parameter) and a per-line input scale (A, 1, C) after the scan."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(60, 1))

    def forward(self, x, scale):
        return torch.cumsum(x * self.weight, dim=1) * scale


def get_inputs():
    return [torch.rand(3, 60, 20), torch.rand(3, 1, 20)]


def get_init_inputs():
    return []
