"""Two outputs from one input, for exploits on multi-output tasks (tests/kernels/redteam)."""

import torch
import torch.nn as nn

ROWS = 64
COLS = 96

SHAPES = {"small": {"ROWS": 37, "COLS": 129}}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x), torch.sigmoid(x)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
