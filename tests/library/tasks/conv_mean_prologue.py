"""A reduction computed just before a convolution (issue 30): the frequency axis of a
(B, C, F, T) feature map averaged away, then a padded Conv1d over time and SiLU. The mean is
the convolution's prologue: a row kernel writes it to a temporary the convolution reads."""

import torch
import torch.nn as nn

batch_size = 2
channels = 12
n_freq = 10
n_time = 21


class Model(nn.Module):
    def __init__(self, channels, out_channels, width):
        super().__init__()
        self.conv = nn.Conv1d(channels, out_channels, width, padding=width // 2)

    def forward(self, x):
        return nn.functional.silu(self.conv(x.mean(dim=2)))


def get_inputs():
    return [torch.randn(batch_size, channels, n_freq, n_time)]


def get_init_inputs():
    return [channels, 20, 3]
