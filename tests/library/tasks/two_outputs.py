"""Two outputs: a block's scaled output and its activation, as a tuple (issue 30)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x, y):
        h = x + y
        return h * self.scale, torch.sigmoid(h)


def get_inputs():
    return [torch.randn(4, 96), torch.randn(4, 96)]


def get_init_inputs():
    return [96]
