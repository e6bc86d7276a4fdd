"""Elementwise relu(a + b) * c over three large fp32 tensors."""

import torch
import torch.nn as nn

ROWS = 16384
COLS = 16384

SHAPES = {
    "small": {"ROWS": 37, "COLS": 129},
    # each tensor 1.07 GB; fused moves 4.3 GB (~1 ms); eager add, relu, mul moves ~8.6 GB
    # (~2 ms).
    "gpu": {"ROWS": 16384, "COLS": 16384},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, a, b, c):
        return torch.relu(a + b) * c


def get_inputs():
    return [
        torch.randn(ROWS, COLS) * 1.5 + 0.1,
        torch.randn(ROWS, COLS) * 0.7 - 0.05,
        torch.randn(ROWS, COLS) * 2.0 + 0.1,
    ]


def get_init_inputs():
    return []
