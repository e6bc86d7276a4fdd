"""Argmin over the middle dim of a 3-D tensor (column tiles, first index on ties)."""

import torch
import torch.nn as nn

BATCH = 3
DIM1 = 67
DIM2 = 41
SHAPES = {"small": {"BATCH": 3, "DIM1": 67, "DIM2": 41}}


class Model(nn.Module):
    def forward(self, x):
        return torch.argmin(x, dim=1)


def get_inputs():
    return [torch.randn(BATCH, DIM1, DIM2)]


def get_init_inputs():
    return []
