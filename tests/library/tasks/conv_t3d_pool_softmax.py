"""Small twin of KernelBench level 2 89: a transposed 3-D convolution with output padding, a
padded max pool, softmax over the channels, a learned per-channel subtraction, swish and the
max over the channels."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding,
                 pool_kernel_size, pool_stride, pool_padding):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding,
                                                 output_padding=output_padding)
        self.max_pool = nn.MaxPool3d(kernel_size=pool_kernel_size, stride=pool_stride,
                                     padding=pool_padding)
        self.subtract = nn.Parameter(torch.randn(out_channels))

    def forward(self, x):
        x = self.max_pool(self.conv_transpose(x))
        x = torch.softmax(x, dim=1)
        x = x - self.subtract.view(1, -1, 1, 1, 1)
        x = torch.sigmoid(x) * x
        return torch.max(x, dim=1)[0]


def get_inputs():
    return [torch.rand(2, 3, 3, 4, 3)]


def get_init_inputs():
    return [3, 16, 3, 2, 1, 1, 3, 2, 1]
