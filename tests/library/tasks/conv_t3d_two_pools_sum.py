"""Small twin of KernelBench level 2 78: a transposed 3-D convolution, a 2×2×2 max pool, a
3×3×3 max pool and a sum over the channels: four kernels, each pool reading what the kernel
before it stored."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding)
        self.max_pool1 = nn.MaxPool3d(kernel_size=2)
        self.max_pool2 = nn.MaxPool3d(kernel_size=3)

    def forward(self, x):
        x = self.max_pool2(self.max_pool1(self.conv_transpose(x)))
        return torch.sum(x, dim=1, keepdim=True)


def get_inputs():
    return [torch.rand(2, 3, 4, 5, 4)]


def get_init_inputs():
    return [3, 16, 3, 2, 1]
