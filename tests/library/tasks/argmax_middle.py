"""Small twin of KernelBench level1 51_Argmax_over_a_dimension: argmax over the middle dim of a
3-D tensor (the exact argmax family takes it first; the graph path must cover it too)."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.argmax(x, dim=self.dim)


def get_inputs():
    return [torch.rand(3, 67, 41)]


def get_init_inputs():
    return [1]
