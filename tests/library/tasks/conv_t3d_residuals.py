"""Small twin of KernelBench level 2 20: a transposed 3-D convolution, then a bias and three
residual ops with a detached copy of its output, all on the accumulator."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding,
                 bias_shape):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding,
                                                 output_padding=output_padding)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = self.conv_transpose(x)
        original_x = x.clone().detach()
        x = x + self.bias
        x = x + original_x
        x = x * original_x
        return x + original_x


def get_inputs():
    return [torch.rand(2, 3, 3, 2, 3)]


def get_init_inputs():
    return [3, 16, 3, 2, 1, 1, (16, 1, 1, 1)]
