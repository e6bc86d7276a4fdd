"""Small twin of KernelBench level 2 24: a 3-D convolution, the min over the depth, softmax
over the channels."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, dim):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.dim = dim

    def forward(self, x):
        x = torch.min(self.conv(x), dim=self.dim)[0]
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.rand(2, 3, 5, 6, 5)]


def get_init_inputs():
    return [3, 16, 3, 2]
