"""nn.Linear, the max over the features (keepdim), minus its own mean over that dim of size
1, GELU."""

import torch
import torch.nn as nn

BATCH = 15
IN = 28
OUT = 50
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features, max_dim):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.max_dim = max_dim

    def forward(self, x):
        x = self.gemm(x)
        x = torch.max(x, dim=self.max_dim, keepdim=True).values
        x = x - x.mean(dim=1, keepdim=True)
        return torch.nn.functional.gelu(x)


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT, 1]
