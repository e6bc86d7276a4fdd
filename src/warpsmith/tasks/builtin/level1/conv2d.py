"""2-D convolution (3x3, padding 1, with bias) over an NCHW tensor in strict fp32."""

import torch
import torch.nn as nn

BATCH = 16
IN_CHANNELS = 64
OUT_CHANNELS = 128
HEIGHT = 224
WIDTH = 224
KERNEL_SIZE = 3

SHAPES = {
    "small": {"BATCH": 2, "IN_CHANNELS": 3, "OUT_CHANNELS": 5, "HEIGHT": 17, "WIDTH": 13},
    # 2*B*Cout*H*W*Cin*9 = 118 GFLOP at ~51 TFLOP/s strict fp32: 3.1 ms measured; 617 MB moved.
    "gpu": {"BATCH": 16, "IN_CHANNELS": 64, "OUT_CHANNELS": 128, "HEIGHT": 224, "WIDTH": 224},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH) * 1.5 + 0.2]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE]
