"""Reshapes as views: an input merged to (B·C, L) for a row sum, then split back on the way
out, with a per-row scale in between."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def forward(self, x):
        rows = x.reshape(-1, x.shape[-1])
        return (rows / rows.abs().sum(dim=1, keepdim=True)).view(x.shape)


def get_inputs():
    return [torch.randn(3, 5, 40)]


def get_init_inputs():
    return []
