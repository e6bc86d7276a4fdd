"""Small twin of KernelBench level 2 36 (and 25, 32): a strided transposed 2-D convolution,
the min over the channels, a sum over the height, GELU and a learned bias."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding,
                 bias_shape):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride,
                                                 padding, output_padding)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = torch.min(self.conv_transpose(x), dim=1, keepdim=True)[0]
        x = torch.sum(x, dim=2, keepdim=True)
        return torch.nn.functional.gelu(x) + self.bias


def get_inputs():
    return [torch.rand(2, 4, 4, 5)]


def get_init_inputs():
    return [4, 16, 3, 2, 1, 1, (1, 1, 1)]
