"""A reverse exclusive scan written with arithmetic: the reversed cumsum of x·scale, minus
x·scale (a constructor scalar), so the epilogue reads x again at the flipped positions."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        rev = torch.cumsum(x.flip(1) * self.scale, dim=1).flip(1)
        return rev - x * self.scale


def get_inputs():
    return [torch.rand(4, 200)]


def get_init_inputs():
    return [0.75]
