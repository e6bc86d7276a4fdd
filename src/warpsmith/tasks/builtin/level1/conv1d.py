"""1-D convolution (kernel 3, padding 1, with bias) in strict fp32."""

import torch
import torch.nn as nn

BATCH = 32
IN_CHANNELS = 256
OUT_CHANNELS = 256
LENGTH = 8192
KERNEL_SIZE = 3

SHAPES = {
    "small": {"BATCH": 2, "IN_CHANNELS": 5, "OUT_CHANNELS": 7, "LENGTH": 67},
    # 2*B*Cout*L*Cin*K = 103 GFLOP at ~51 TFLOP/s strict fp32: 2.7 ms measured; 537 MB moved.
    "gpu": {"BATCH": 32, "IN_CHANNELS": 256, "OUT_CHANNELS": 256, "LENGTH": 8192},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, LENGTH) * 1.5 + 0.2]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE]
