"""Small twin of KernelBench level 1 57, 65, 69, 71, 78: a transposed 2-D convolution,
stride 1, padded, asymmetric kernel."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups):
        super().__init__()
        self.conv = nn.ConvTranspose2d(
            in_channels, out_channels, kernel_size, stride=stride, padding=padding,
            dilation=dilation, groups=groups, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(2, 5, 6, 7)]


def get_init_inputs():
    return [5, 16, (3, 5), 1, (1, 2), 1, 1]
