"""Small twin of KernelBench level 1 64, 74, 79: a transposed 1-D convolution, strided,
padded and dilated."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups):
        super().__init__()
        self.conv = nn.ConvTranspose1d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding,
            dilation=dilation, groups=groups, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(2, 4, 13)]


def get_init_inputs():
    return [4, 16, 3, 2, 1, 2, 1]
