"""nn.Linear, a detached copy of its output, a scaling and the residual add back."""

import torch
import torch.nn as nn

BATCH = 21
IN = 33
OUT = 40
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features, scaling):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling = scaling

    def forward(self, x):
        x = self.matmul(x)
        original = x.clone().detach()
        x = x * self.scaling
        return x + original


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT, 0.5]
