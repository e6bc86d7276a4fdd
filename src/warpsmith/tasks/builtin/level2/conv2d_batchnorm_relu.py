"""Conv2d (3x3, padding 1) + inference-mode BatchNorm2d + ReLU, strict fp32."""

import torch
import torch.nn as nn

BATCH = 32
IN_CHANNELS = 64
OUT_CHANNELS = 128
HEIGHT = 112
WIDTH = 112
KERNEL_SIZE = 3

SHAPES = {
    "small": {"BATCH": 2, "IN_CHANNELS": 3, "OUT_CHANNELS": 5, "HEIGHT": 17, "WIDTH": 13},
    # conv: 2*32*128*112*112*64*9 = 59 GFLOP (~1.5-2.5 ms strict fp32); BN and ReLU each
    # re-read the 205 MB conv output: ~2-3 ms eager.
    "gpu": {"BATCH": 32, "IN_CHANNELS": 64, "OUT_CHANNELS": 128, "HEIGHT": 112, "WIDTH": 112},
}
DTYPE = "float32"
MODE = "eval"  # inference BatchNorm: the running statistics set below, not the batch's


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.bn = nn.BatchNorm2d(out_channels)
        # Non-trivial running statistics and affine parameters so BN is not the identity.
        with torch.no_grad():
            self.bn.running_mean.copy_(torch.randn(out_channels) * 0.1)
            self.bn.running_var.copy_(torch.rand(out_channels) + 0.5)
            self.bn.weight.copy_(torch.randn(out_channels) * 0.2 + 1.0)
            self.bn.bias.copy_(torch.randn(out_channels) * 0.1)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH) * 1.5 + 0.05]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE]
