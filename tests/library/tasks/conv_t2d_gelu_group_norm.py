"""Small twin of KernelBench level 2 19 and 21: a transposed 2-D convolution, GELU and a
GroupNorm over (channels of a group × pixels): the convolution stores its activated output;
one row kernel per (image, group) normalises it in the view (N, G, C/G, H·W)."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, groups, num_groups):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                 stride=stride, groups=groups)
        self.group_norm = nn.GroupNorm(num_groups=num_groups, num_channels=out_channels)

    def forward(self, x):
        x = torch.nn.functional.gelu(self.conv_transpose(x))
        return self.group_norm(x)


def get_inputs():
    return [torch.rand(2, 4, 5, 4)]


def get_init_inputs():
    return [4, 16, 3, 2, 2, 4]
