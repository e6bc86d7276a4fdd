"""A dense 3x3 convolution over channels-last activations (B, H, W, C) permuted to NCHW, as
vision models that keep NHWC tensors write it, with a ReLU after it (issue 30): the implicit
GEMM reads the input at its permuted strides. fp32."""

import torch
import torch.nn as nn

batch_size = 2
height = 9
width = 10
channels = 16
out_channels = 32


class Model(nn.Module):
    def __init__(self, channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, out_channels, kernel_size=3, padding=1, stride=2)

    def forward(self, x):
        return torch.relu(self.conv(x.permute(0, 3, 1, 2)))


def get_inputs():
    return [torch.randn(batch_size, height, width, channels)]


def get_init_inputs():
    return [channels, out_channels]
