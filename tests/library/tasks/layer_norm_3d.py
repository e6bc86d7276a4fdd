"""Small twin of KernelBench level1 40_LayerNorm: nn.LayerNorm over the last three dims."""

import torch
import torch.nn as nn
import torch.nn.functional as F  # noqa: F401

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, *args):
        super().__init__()
        self.args = args
        self.ln = nn.LayerNorm(args[0])

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.rand(3, 4, 5, 6)]


def get_init_inputs():
    return [(4, 5, 6)]
