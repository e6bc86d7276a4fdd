"""Leaky ReLU with a configurable negative slope over a large fp32 matrix."""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 32768
COLS = 16384
NEGATIVE_SLOPE = 0.05

SHAPES = {
    "small": {"ROWS": 41, "COLS": 131},
    # 5.4e8 elements: 2.1 GB read + 2.1 GB written ≈ 4.3 GB, ~1.1 ms eager.
    "gpu": {"ROWS": 32768, "COLS": 16384},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, negative_slope=self.negative_slope)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 1.5 + 0.1]


def get_init_inputs():
    return [NEGATIVE_SLOPE]
