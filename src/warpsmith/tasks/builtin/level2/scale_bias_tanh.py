"""Per-feature scale + per-feature bias + tanh over a large fp32 activation."""

import torch
import torch.nn as nn

ROWS = 32768
FEATURES = 8192

SHAPES = {
    "small": {"ROWS": 37, "FEATURES": 129},
    # x is 1.07 GB; fused reads and writes it once (~0.5 ms); eager mul, add, tanh moves
    # ~6.4 GB (~1.5 ms).
    "gpu": {"ROWS": 32768, "FEATURES": 8192},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(features) * 0.2 + 0.6)
        self.bias = nn.Parameter(torch.randn(features) * 0.3)

    def forward(self, x):
        return torch.tanh(x * self.scale + self.bias)


def get_inputs():
    return [torch.randn(ROWS, FEATURES) * 1.2 + 0.05]


def get_init_inputs():
    return [FEATURES]
