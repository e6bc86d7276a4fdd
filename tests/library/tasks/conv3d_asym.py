"""Small twin of KernelBench level 1 54, 59, 60, 66: a 3-D convolution with an asymmetric
kernel and input."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups):
        super().__init__()
        self.conv = nn.Conv3d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding,
            dilation=dilation, groups=groups, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(2, 3, 5, 7, 6)]


def get_init_inputs():
    return [3, 16, (3, 2, 3), 1, 0, 1, 1]
