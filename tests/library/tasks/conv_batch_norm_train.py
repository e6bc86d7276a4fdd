"""Small twin of KernelBench level 2 73 (and 52, an activation before it): a convolution,
BatchNorm2d in training mode (per-channel statistics over the batch and the image: the
reduced dims on both sides of the channel) and a scale."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, scaling_factor):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bn = nn.BatchNorm2d(out_channels)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = torch.tanh(self.conv(x))
        return self.bn(x) * self.scaling_factor


def get_inputs():
    return [torch.rand(3, 4, 10, 9)]


def get_init_inputs():
    return [4, 16, 3, 2.0]
