"""Small twin of KernelBench level 2 50: a strided transposed 3-D convolution, a scale, a 2×2×2
average pool, a learned (C, 1, 1, 1) bias and a second scale: the convolution with the first
scale fused, then the pool with the bias and the scale in its epilogue."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, scale1, scale2,
                 bias_shape):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding)
        self.scale1 = nn.Parameter(torch.tensor(scale1))
        self.avg_pool = nn.AvgPool3d(kernel_size=2)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.scale2 = nn.Parameter(torch.tensor(scale2))

    def forward(self, x):
        x = self.conv_transpose(x) * self.scale1
        x = self.avg_pool(x)
        return (x + self.bias) * self.scale2


def get_inputs():
    return [torch.rand(2, 3, 3, 4, 4)]


def get_init_inputs():
    return [3, 16, 3, 2, 1, 0.5, 1.5, (16, 1, 1, 1)]
