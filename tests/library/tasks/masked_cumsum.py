"""Small twin of KernelBench level1 93_masked_cumsum: cumsum of x * mask (a boolean mask) along
dim 1: the product is the scan's prologue."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x, mask):
        return torch.cumsum(x * mask, dim=self.dim)


def get_inputs():
    x = torch.rand(5, 300)
    return [x, torch.randint(0, 2, x.shape).bool()]


def get_init_inputs():
    return [1]
