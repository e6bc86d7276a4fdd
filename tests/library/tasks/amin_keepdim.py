"""Min over the middle dim of a 3-D tensor, keeping the reduced dim."""

import torch
import torch.nn as nn

BATCH = 3
DIM1 = 67
DIM2 = 41
SHAPES = {"small": {"BATCH": 3, "DIM1": 67, "DIM2": 41}}


class Model(nn.Module):
    def forward(self, x):
        return torch.amin(x, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(BATCH, DIM1, DIM2)]


def get_init_inputs():
    return []
