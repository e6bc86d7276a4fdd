"""Small twin of KernelBench level 2 46 and 65, with the pool's corner cases: a convolution, a
subtraction and tanh, then a padded 3×3 average pool that leaves the padding out of its count,
sigmoid and a sum over everything but the batch."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, subtract):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.subtract = subtract
        self.avgpool = nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)

    def forward(self, x):
        x = torch.tanh(self.conv(x) - self.subtract)
        x = torch.sigmoid(self.avgpool(x))
        return torch.sum(x, dim=[1, 2, 3])


def get_inputs():
    return [torch.rand(2, 3, 10, 9)]


def get_init_inputs():
    return [3, 16, 3, 0.5]
