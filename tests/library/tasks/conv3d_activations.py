"""Small twin of KernelBench level 2 7, 47, 48, 90: a 3-D convolution, then ReLU, leaky ReLU,
GELU, sigmoid and a learned bias, in one kernel."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = torch.relu(self.conv(x))
        x = torch.nn.functional.leaky_relu(x, negative_slope=0.01)
        x = torch.nn.functional.gelu(x)
        return torch.sigmoid(x) + self.bias


def get_inputs():
    return [torch.rand(2, 3, 4, 5, 6)]


def get_init_inputs():
    return [3, 16, 3, (16, 1, 1, 1)]
