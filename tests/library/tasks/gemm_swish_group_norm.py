"""nn.Linear, swish and a learned bias in the GEMM's epilogue, then GroupNorm last."""

import torch
import torch.nn as nn

BATCH = 11
IN = 20
OUT = 32
GROUPS = 8
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features, num_groups):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(torch.randn(out_features))
        self.group_norm = nn.GroupNorm(num_groups, out_features)

    def forward(self, x):
        x = self.matmul(x)
        x = torch.sigmoid(x) * x
        x = x + self.bias
        return self.group_norm(x)


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT, GROUPS]
