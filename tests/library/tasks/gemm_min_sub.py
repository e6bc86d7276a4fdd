"""nn.Linear, the minimum with a learned scalar, minus that scalar (a 0-d parameter)."""

import torch
import torch.nn as nn

BATCH = 18
IN = 30
OUT = 50
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features, constant):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.constant = nn.Parameter(torch.tensor(constant))

    def forward(self, x):
        x = self.linear(x)
        x = torch.min(x, self.constant)
        return x - self.constant


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT, 0.2]
