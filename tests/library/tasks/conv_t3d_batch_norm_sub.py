"""Small twin of KernelBench level 2 15 (and 77, a global average after it): a transposed
3-D convolution, BatchNorm3d in training mode, then each image's spatial mean subtracted (a
second reduction, of what the batch norm's kernel stored)."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, bias=True):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding, bias=bias)
        self.batch_norm = nn.BatchNorm3d(out_channels)

    def forward(self, x):
        x = self.batch_norm(self.conv_transpose(x))
        return x - torch.mean(x, dim=(2, 3, 4), keepdim=True)


def get_inputs():
    return [torch.rand(2, 4, 3, 4, 4)]


def get_init_inputs():
    return [4, 16, 3, 2, 1]
