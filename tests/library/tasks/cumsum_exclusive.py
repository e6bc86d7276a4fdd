"""Small twin of KernelBench level1 92_cumsum_exclusive: cumsum of x without its last element,
after a zero (an exclusive scan), spelled as KernelBench spells it."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        cumsum = torch.cumsum(x.narrow(dim=self.dim, start=0, length=x.size(self.dim) - 1),
                              dim=self.dim)
        zeros = torch.zeros_like(x.select(self.dim, 0).unsqueeze(self.dim))
        return torch.cat((zeros, cumsum), dim=self.dim)


def get_inputs():
    return [torch.rand(5, 300)]


def get_init_inputs():
    return [1]
