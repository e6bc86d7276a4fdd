"""Small twin of KernelBench level 2 91 and 49: a strided transposed 2-D convolution, softmax
over the channels, a learned bias, a scale and sigmoid."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding,
                 bias_shape, scaling_factor):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding,
                                                 output_padding=output_padding)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = torch.softmax(self.conv_transpose(x), dim=1)
        return torch.sigmoid((x + self.bias) * self.scaling_factor)


def get_inputs():
    return [torch.rand(2, 4, 4, 3)]


def get_init_inputs():
    return [4, 16, 3, 2, 1, 1, (16, 1, 1), 2.0]
