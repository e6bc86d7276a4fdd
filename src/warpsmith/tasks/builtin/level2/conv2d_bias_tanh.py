"""Conv2d (3x3, padding 1, no bias) + per-channel bias + tanh, in fp16."""

import torch
import torch.nn as nn

BATCH = 128
IN_CHANNELS = 256
OUT_CHANNELS = 256
HEIGHT = 64
WIDTH = 64
KERNEL_SIZE = 3

SHAPES = {
    "small": {"BATCH": 2, "IN_CHANNELS": 3, "OUT_CHANNELS": 5, "HEIGHT": 17, "WIDTH": 13},
    # conv: 2*128*256*64*64*256*9 = 619 GFLOP (~1-1.5 ms fp16); bias add and tanh each re-read
    # the 268 MB conv output (~0.25 ms): ~1.5 ms eager.
    "gpu": {"BATCH": 128, "IN_CHANNELS": 256, "OUT_CHANNELS": 256, "HEIGHT": 64, "WIDTH": 64},
}
DTYPE = "float16"


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(
            in_channels, out_channels, kernel_size, padding=kernel_size // 2, bias=False
        )
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1) * 0.2)

    def forward(self, x):
        return torch.tanh(self.conv(x) + self.bias)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH) * 1.5 + 0.05]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE]
