"""A weighted cumprod along the last dim: x times a weight per position ((N,), broadcast over
the rows) and a per-row input offset ((B, 1)) before the scan."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(120) * 0.5 + 0.75)

    def forward(self, x, offset):
        return torch.cumprod(x * self.weight + offset, dim=-1)


def get_inputs():
    return [torch.rand(5, 120) * 0.2 + 0.8, torch.rand(5, 1) * 0.1]


def get_init_inputs():
    return []
