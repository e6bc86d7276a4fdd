"""Small twin of KernelBench level 1 55, 56, 62, 63: a 2-D convolution, no bias, asymmetric
input and kernel."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups):
        super().__init__()
        self.conv = nn.Conv2d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding,
            dilation=dilation, groups=groups, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(2, 6, 10, 7)]


def get_init_inputs():
    return [6, 16, (3, 2), 1, 0, 1, 1]
