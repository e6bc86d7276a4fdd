"""Small twin of KernelBench level 2 23 (and 27, a HardSwish before it): a 3-D convolution,
GroupNorm, then the mean of each sample (a second reduction, of what the GroupNorm kernel
stored)."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, num_groups):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.group_norm = nn.GroupNorm(num_groups, out_channels)

    def forward(self, x):
        x = self.group_norm(torch.nn.functional.hardswish(self.conv(x)))
        return x.mean(dim=[1, 2, 3, 4])


def get_inputs():
    return [torch.rand(3, 3, 5, 6, 6)]


def get_init_inputs():
    return [3, 16, 3, 4]
