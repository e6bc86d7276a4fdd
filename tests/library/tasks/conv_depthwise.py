"""Small twin of KernelBench level 1 82-85: a depthwise 2-D convolution (groups = channels),
asymmetric kernel, strided and padded."""

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
    return [torch.rand(2, 6, 9, 8)]


def get_init_inputs():
    return [6, 6, (3, 2), (2, 1), (1, 0), 1, 6]
