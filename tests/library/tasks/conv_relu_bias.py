"""Small twin of KernelBench level 2 1: a 2-D convolution, ReLU and a learned (C, 1, 1) bias:
one kernel, both fused into the epilogue."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return torch.relu(self.conv(x)) + self.bias


def get_inputs():
    return [torch.rand(2, 3, 8, 9)]


def get_init_inputs():
    return [3, 16, 3, (16, 1, 1)]
