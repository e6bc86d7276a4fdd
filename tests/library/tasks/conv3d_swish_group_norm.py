"""Small twin of KernelBench level 2 60 and 61: a 3-D convolution, swish, a GroupNorm whose
affine is not the identity, and hardswish after it, in the group norm's row kernel."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, groups, eps):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, padding=1)
        self.group_norm = nn.GroupNorm(num_groups=groups, num_channels=out_channels, eps=eps)
        with torch.no_grad():
            self.group_norm.weight.uniform_(0.5, 1.5)
            self.group_norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        x = self.conv(x)
        x = torch.sigmoid(x) * x
        return torch.nn.functional.hardswish(self.group_norm(x))


def get_inputs():
    return [torch.rand(2, 3, 3, 4, 5)]


def get_init_inputs():
    return [3, 16, 3, 4, 1e-5]
