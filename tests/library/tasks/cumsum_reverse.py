"""Small twin of KernelBench level1 91_cumsum_reverse: flip, cumsum, flip (a reverse
scan; no data moved)."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.cumsum(x.flip(self.dim), dim=self.dim).flip(self.dim)


def get_inputs():
    return [torch.rand(5, 300)]


def get_init_inputs():
    return [1]
