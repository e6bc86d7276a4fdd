"""Small twin of KernelBench level 2 57, 69: a 2-D convolution, ReLU and hardswish written out
(x · clamp((x + 3) / 6, 0, 1))."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return x * torch.clamp((x + 3) / 6, 0, 1)


def get_inputs():
    return [torch.rand(2, 4, 7, 7)]


def get_init_inputs():
    return [4, 20, 3]
