"""Small twin of KernelBench level 2 34: a transposed 3-D convolution, LayerNorm over the
last dim (of size out_channels, as the task has it), GELU and a scale."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, eps,
                 scaling_factor):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding)
        self.layer_norm = nn.LayerNorm(out_channels, eps=eps)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = self.layer_norm(self.conv_transpose(x))
        return torch.nn.functional.gelu(x) * self.scaling_factor


def get_inputs():
    return [torch.rand(1, 4, 1, 2, 8)]


def get_init_inputs():
    return [4, 16, 4, 2, 1, 1e-5, 1.5]
