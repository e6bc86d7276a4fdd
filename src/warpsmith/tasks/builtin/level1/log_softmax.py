"""Log-softmax over the last dimension of a large fp32 matrix."""

import torch
import torch.nn as nn

ROWS = 16384
COLS = 32768

SHAPES = {
    "small": {"ROWS": 67, "COLS": 131},
    # 5.4e8 elements: 2.1 GB read + 2.1 GB written ≈ 4.3 GB, ~2 ms eager (~50% of bandwidth).
    "gpu": {"ROWS": 16384, "COLS": 32768},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, x):
        return torch.log_softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 2.0 + 0.2]


def get_init_inputs():
    return []
