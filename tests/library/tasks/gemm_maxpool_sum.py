"""nn.Linear, max_pool1d over its features (windows of 2), the sum over the pooled features,
a scaling: the GEMM stores, a row kernel pools each window, another sums each row."""

import torch
import torch.nn as nn

BATCH = 8
IN = 24
OUT = 40
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features, kernel_size, scale_factor):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.max_pool = nn.MaxPool1d(kernel_size=kernel_size)
        self.scale_factor = scale_factor

    def forward(self, x):
        x = self.matmul(x)
        x = self.max_pool(x.unsqueeze(1)).squeeze(1)
        x = torch.sum(x, dim=1)
        return x * self.scale_factor


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT, 2, 0.5]
