"""A 2-D convolution with bias, stride, padding and an asymmetric kernel (KernelBench level 1
50, 62, 80 at a small size)."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation):
        super().__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride,
                                padding=padding, dilation=dilation, bias=True)

    def forward(self, x):
        return self.conv2d(x)


def get_inputs():
    return [torch.rand(2, 5, 11, 9)]


def get_init_inputs():
    return [5, 20, (3, 2), (2, 1), (1, 2), (1, 2)]
