"""Small twin of KernelBench level 1 72: a transposed 3-D convolution, strided, padded per
dim, grouped, with output padding."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups):
        super().__init__()
        self.conv = nn.ConvTranspose3d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding,
            dilation=dilation, groups=groups, output_padding=1, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(2, 4, 3, 4, 3)]


def get_init_inputs():
    return [4, 8, (3, 3, 2), 2, (1, 0, 1), 1, 2]
