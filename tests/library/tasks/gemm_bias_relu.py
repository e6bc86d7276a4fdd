"""A Linear without bias, then a learned bias of its own and ReLU."""

import torch
import torch.nn as nn

BATCH = 17
IN = 48
OUT = 36
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x):
        return torch.relu(self.gemm(x) + self.bias)


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT]
