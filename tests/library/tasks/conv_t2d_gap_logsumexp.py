"""Small twin of KernelBench level 2 42: a transposed 2-D convolution, the mean over the image,
a learned (C, 1, 1) bias, logsumexp over the channels, a sum and a scale."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = torch.mean(self.conv_transpose(x), dim=(2, 3), keepdim=True)
        x = torch.logsumexp(x + self.bias, dim=1, keepdim=True)
        return torch.sum(x, dim=(2, 3)) * 10.0


def get_inputs():
    return [torch.rand(2, 4, 5, 6)]


def get_init_inputs():
    return [4, 16, 3, (16, 1, 1)]
