"""GroupNorm over an NCHW fp32 tensor with a learned per-channel weight and bias."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 64
CHANNELS = 256
GROUPS = 32
HEIGHT = 128
WIDTH = 128

SHAPES = {
    "small": {"BATCH": 3, "CHANNELS": 12, "GROUPS": 4, "HEIGHT": 7, "WIDTH": 9},
    # 2.7e8 elements: 1.07 GB read + 1.07 GB written ≈ 2.1 GB, 1.3 ms eager measured.
    "gpu": {"BATCH": 64, "CHANNELS": 256, "GROUPS": 32, "HEIGHT": 128, "WIDTH": 128},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, groups, channels, eps=1e-5):
        super().__init__()
        # Random affine parameters (not the ones/zeros default) so that a kernel which
        # ignores the weight or the bias cannot pass.
        self.weight = nn.Parameter(torch.randn(channels) * 0.5 + 1.0)
        self.bias = nn.Parameter(torch.randn(channels) * 0.5)
        self.groups = groups
        self.eps = eps

    def forward(self, x):
        return F.group_norm(x, self.groups, self.weight, self.bias, self.eps)


def get_inputs():
    # Each channel gets its own scale, so the per-group statistics differ widely.
    scale = torch.rand(BATCH, CHANNELS, 1, 1) * 2.0 + 0.25
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH) * scale + 0.2]


def get_init_inputs():
    return [GROUPS, CHANNELS]
