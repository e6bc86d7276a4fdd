"""Softplus (log(1 + exp(x))) over a large fp32 matrix."""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 32768
COLS = 16384

SHAPES = {
    "small": {"ROWS": 53, "COLS": 73},
    # 5.4e8 elements: 2.1 GB read + 2.1 GB written ≈ 4.3 GB, ~1.1 ms eager.
    "gpu": {"ROWS": 32768, "COLS": 16384},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, x):
        return F.softplus(x)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 3.0 + 0.2]


def get_init_inputs():
    return []
