"""Small twin of KernelBench level 1 75 and 81: a transposed 2-D convolution, strided
(2, 3), padded, dilated and grouped, with a bias."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups):
        super().__init__()
        self.conv = nn.ConvTranspose2d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding,
            dilation=dilation, groups=groups, bias=True)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(2, 8, 5, 4)]


def get_init_inputs():
    return [8, 32, (3, 5), (2, 3), (1, 2), (2, 1), 2]
