"""Softmax over the last dimension of a large bf16 matrix."""

import torch
import torch.nn as nn

ROWS = 32768
COLS = 32768

SHAPES = {
    "small": {"ROWS": 41, "COLS": 257},
    # 1.07e9 elements: 2.1 GB read + 2.1 GB written ≈ 4.3 GB, ~2 ms eager (~50% of bandwidth).
    "gpu": {"ROWS": 32768, "COLS": 32768},
}
DTYPE = "bfloat16"


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 2.0 + 0.2]


def get_init_inputs():
    return []
