"""MobileNet depthwise-separable block in fp16: dw 3x3 conv-BN-ReLU6, pw 1x1 conv-BN-ReLU6."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 256
IN_CHANNELS = 128
OUT_CHANNELS = 256
HEIGHT = 56
WIDTH = 56

SHAPES = {
    "small": {"BATCH": 2, "IN_CHANNELS": 7, "OUT_CHANNELS": 13, "HEIGHT": 11, "WIDTH": 9},
    # dw conv 2 * 256 * 128 * 56 * 56 * 9 = 1.8 GFLOP, pw conv 2 * 256 * 3136 * 128 * 256 =
    # 53 GFLOP; 0.2 GB in, 0.4 GB out, ~3 GB moved by the eager passes.
    # Measured 1.6 ms eager in fp16 on an H200.
    "gpu": {"BATCH": 256, "IN_CHANNELS": 128, "OUT_CHANNELS": 256, "HEIGHT": 56, "WIDTH": 56},
}
DTYPE = "float16"
MODE = "eval"  # inference BatchNorm: the running statistics set below, not the batch's


def _randomize_bn(bn):
    # Non-trivial affine parameters and running statistics (running_var kept positive).
    c = bn.num_features
    with torch.no_grad():
        bn.weight.copy_(1.0 + 0.2 * torch.randn(c))
        bn.bias.copy_(0.1 * torch.randn(c))
        bn.running_mean.copy_(0.1 * torch.randn(c))
        bn.running_var.copy_(0.5 + torch.rand(c))


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.depthwise = nn.Conv2d(
            in_channels, in_channels, 3, padding=1, groups=in_channels, bias=False
        )
        self.bn1 = nn.BatchNorm2d(in_channels)
        self.pointwise = nn.Conv2d(in_channels, out_channels, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        _randomize_bn(self.bn1)
        _randomize_bn(self.bn2)

    def forward(self, x):
        x = F.relu6(self.bn1(self.depthwise(x)))
        return F.relu6(self.bn2(self.pointwise(x)))


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH) * 2.0 + 0.1]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]
