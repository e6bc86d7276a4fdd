"""Numerically stable row-wise logsumexp written as explicit max, sub, exp, sum, log, fp32."""

import torch
import torch.nn as nn

ROWS = 16384
COLS = 32768

SHAPES = {
    "small": {"ROWS": 37, "COLS": 129},
    # x is 2.1 GB; fused reads it once (~0.5 ms); eager max, sub, exp, sum each pass over it
    # (~6-8 GB, ~1.7 ms).
    "gpu": {"ROWS": 16384, "COLS": 32768},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, x):
        row_max = x.amax(dim=1, keepdim=True)
        return (row_max + torch.log(torch.exp(x - row_max).sum(dim=1, keepdim=True))).squeeze(1)


def get_inputs():
    # A per-row offset so rows differ: the logsumexp of a wide i.i.d. row is nearly constant.
    return [torch.randn(ROWS, COLS) * 2.0 + torch.randn(ROWS, 1) * 3.0 + 0.1]


def get_init_inputs():
    return []
