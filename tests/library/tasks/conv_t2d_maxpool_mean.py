"""Small twin of KernelBench level 2 10: a transposed 2-D convolution, a 2×2 max pool,
hardtanh, the mean over the image (keepdim) and tanh: the convolution, the pool with hardtanh
in its epilogue, a row kernel for the mean."""

import torch
import torch.nn as nn

SHAPES = {"small": {}}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, pool, pool_stride,
                 lo, hi):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                 stride=stride, padding=padding)
        self.maxpool = nn.MaxPool2d(kernel_size=pool, stride=pool_stride)
        self.hardtanh = nn.Hardtanh(min_val=lo, max_val=hi)

    def forward(self, x):
        x = self.maxpool(self.conv_transpose(x))
        x = self.hardtanh(x)
        x = torch.mean(x, dim=(2, 3), keepdim=True)
        return torch.tanh(x)


def get_inputs():
    return [torch.rand(2, 4, 7, 6)]


def get_init_inputs():
    return [4, 16, 3, 1, 1, 2, 2, -0.2, 0.2]
