"""Small twin of KernelBench level 2 8: a 3-D convolution divided by a constant, a 2×2×2 max
pool, a global average pool, a learned (C, 1, 1, 1) bias (read once per row of the mean) and a
sum over the channels."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, divisor, pool_size, bias_shape,
                 sum_dim):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.divisor = divisor
        self.max_pool = nn.MaxPool3d(pool_size)
        self.global_avg_pool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.sum_dim = sum_dim

    def forward(self, x):
        x = self.max_pool(self.conv(x) / self.divisor)
        x = self.global_avg_pool(x) + self.bias
        return torch.sum(x, dim=self.sum_dim)


def get_inputs():
    return [torch.rand(2, 3, 6, 7, 6)]


def get_init_inputs():
    return [3, 16, 3, 2.0, 2, (16, 1, 1, 1), 1]
