"""nn.Linear minus a learned vector, the mean over the features, logsumexp and GELU of that
one value per row, plus the forward's own input (as wide as the output): the reductions
over dims of size 1 are pointwise, so one row kernel does all after the GEMM."""

import torch
import torch.nn as nn

BATCH = 14
IN = 44
OUT = 44
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.subtract = nn.Parameter(torch.randn(out_features) * 0.02)

    def forward(self, x):
        original_x = x.clone().detach()
        x = self.gemm(x)
        x = x - self.subtract
        x = torch.mean(x, dim=1, keepdim=True)
        x = torch.logsumexp(x, dim=1, keepdim=True)
        x = torch.nn.functional.gelu(x)
        return x + original_x


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT]
