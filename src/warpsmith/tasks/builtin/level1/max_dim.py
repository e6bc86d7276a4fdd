"""Max over the middle dimension of a 3-D fp32 tensor (values only)."""

import torch
import torch.nn as nn

BATCH = 128
DIM1 = 4096
DIM2 = 2048

SHAPES = {
    "small": {"BATCH": 3, "DIM1": 67, "DIM2": 41},
    # 1.07e9 elements: 4.3 GB read, 1 MB written, ~1.1 ms eager.
    "gpu": {"BATCH": 128, "DIM1": 4096, "DIM2": 2048},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, x):
        return torch.max(x, dim=1).values


def get_inputs():
    return [torch.randn(BATCH, DIM1, DIM2) * 1.5 + 0.2]


def get_init_inputs():
    return []
