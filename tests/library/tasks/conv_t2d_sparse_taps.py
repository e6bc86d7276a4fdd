"""Small twin of KernelBench level 1 81: a transposed 2-D convolution whose stride (5) exceeds
its dilated kernel's taps (3 taps, dilation 2): by output phase, some phases have no tap at all
and store the bias alone."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation):
        super().__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                   stride=stride, padding=padding,
                                                   dilation=dilation, bias=True)

    def forward(self, x):
        return self.conv_transpose2d(x)


def get_inputs():
    return [torch.rand(2, 4, 3, 4)]


def get_init_inputs():
    return [4, 16, 3, 5, 1, 2]
