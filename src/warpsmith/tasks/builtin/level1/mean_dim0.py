"""Mean over the first dimension (a column reduction) of a large fp32 matrix."""

import torch
import torch.nn as nn

ROWS = 16384
COLS = 65536

SHAPES = {
    "small": {"ROWS": 129, "COLS": 67},
    # 1.07e9 elements: 4.3 GB read, 262 KB written, ~1.1 ms eager.
    "gpu": {"ROWS": 16384, "COLS": 65536},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, x):
        return torch.mean(x, dim=0)


def get_inputs():
    # Each column gets its own offset: with one shared offset every column mean would sit
    # within a few percent of it at the gpu shape and a constant would nearly pass.
    offset = torch.randn(COLS) * 0.5 + 0.2
    return [torch.randn(ROWS, COLS) * 1.5 + offset]


def get_init_inputs():
    return []
