"""nn.Linear, GroupNorm over its features, hardtanh: the GEMM stores, one row kernel per
group normalises, applies the per-channel affine and the clamp."""

import torch
import torch.nn as nn

BATCH = 10
IN = 30
OUT = 48
GROUPS = 4
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features, num_groups):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)
        with torch.no_grad():  # a non-trivial affine
            self.group_norm.weight.uniform_(0.5, 1.5)
            self.group_norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        x = self.gemm(x)
        x = self.group_norm(x)
        return torch.nn.functional.hardtanh(x, min_val=-0.8, max_val=0.9)


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT, GROUPS]
