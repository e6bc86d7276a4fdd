"""ResNet basic block in fp32 (eval BatchNorm): ReLU(BN(conv(ReLU(BN(conv(x))))) + x)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 32
CHANNELS = 128
HEIGHT = 56
WIDTH = 56

SHAPES = {
    "small": {"BATCH": 2, "CHANNELS": 7, "HEIGHT": 9, "WIDTH": 11},
    # Two 3x3 convs, 2 * 2 * 32 * 56 * 56 * 128 * 128 * 9 = 59 GFLOP of strict fp32, activations
    # of 51 MB each. Measured 1.6 ms eager on an H200 (TF32 off).
    "gpu": {"BATCH": 32, "CHANNELS": 128, "HEIGHT": 56, "WIDTH": 56},
}
DTYPE = "float32"
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
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        _randomize_bn(self.bn1)
        _randomize_bn(self.bn2)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH) + 0.1]


def get_init_inputs():
    return [CHANNELS]
