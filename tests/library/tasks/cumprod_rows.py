"""Small twin of KernelBench level1 90_cumprod: cumprod along dim 1."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumprod(x, dim=self.dim)


def get_inputs():
    return [torch.rand(5, 300) + 0.5]


def get_init_inputs():
    return [1]
