"""Small twin of KernelBench level1 89_cumsum: inclusive cumsum along dim 1 (the
exact cumsum family takes it first; the graph path must cover it too)."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumsum(x, dim=self.dim)


def get_inputs():
    return [torch.rand(5, 300)]


def get_init_inputs():
    return [1]
