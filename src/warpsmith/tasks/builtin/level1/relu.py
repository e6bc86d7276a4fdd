"""ReLU over a large fp32 matrix."""

import torch
import torch.nn as nn

ROWS = 32768
COLS = 16384

SHAPES = {
    "small": {"ROWS": 37, "COLS": 129},
    "gpu": {"ROWS": 32768, "COLS": 16384},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 2.0 + 0.1]


def get_init_inputs():
    return []
