"""Small twin of KernelBench level 2 2: a strided transposed 2-D convolution with output
padding, a learned bias, clamps, a scale and a division, in one kernel."""

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
        x = self.conv_transpose(x) + self.bias
        x = torch.clamp(x, min=0.0, max=1.0) * self.scaling_factor
        x = torch.clamp(x, min=0.0, max=1.0)
        return x / self.scaling_factor


def get_inputs():
    return [torch.rand(2, 4, 4, 5)]


def get_init_inputs():
    return [4, 16, 3, 2, 1, 1, (16, 1, 1), 2.0]
