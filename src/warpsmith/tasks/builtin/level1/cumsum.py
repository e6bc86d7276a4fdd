"""Inclusive cumulative sum along the last dimension of a large fp32 matrix."""

import torch
import torch.nn as nn

ROWS = 32768
COLS = 16384

SHAPES = {
    "small": {"ROWS": 37, "COLS": 129},
    # 5.4e8 elements: 2.1 GB read + 2.1 GB written ≈ 4.3 GB, 2.3 ms eager measured.
    "gpu": {"ROWS": 32768, "COLS": 16384},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 1.5 + 0.2]


def get_init_inputs():
    return []
