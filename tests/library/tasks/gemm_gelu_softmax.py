"""nn.Linear and GELU in the GEMM, then a softmax over the features in a row kernel."""

import torch
import torch.nn as nn

BATCH = 16
IN = 40
OUT = 75
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = self.linear(x)
        x = torch.nn.functional.gelu(x)
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT]
