"""nn.Linear, avg_pool1d over its features (windows of 4), GELU, a scaling and the max over
the pooled features."""

import torch
import torch.nn as nn

BATCH = 10
IN = 20
OUT = 48
SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_features, out_features, pool_kernel_size, scale_factor):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.avg_pool = nn.AvgPool1d(kernel_size=pool_kernel_size)
        self.scale_factor = scale_factor

    def forward(self, x):
        x = self.matmul(x)
        x = self.avg_pool(x.unsqueeze(1)).squeeze(1)
        x = torch.nn.functional.gelu(x)
        x = x * self.scale_factor
        return torch.max(x, dim=1).values


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT, 4, 2.0]
