import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """A ShuffleNet unit (KernelBench level 3's ShuffleNetUnit, ShuffleNet): grouped 1x1
    convolutions around a depthwise 3x3, each with training-mode BatchNorm, and a channel
    shuffle (view into groups, transpose, view back) of the second BatchNorm's output: that
    value written first, the shuffle then views of a tensor the next convolution reads."""

    def __init__(self, in_channels, out_channels, groups):
        super().__init__()
        mid = out_channels // 4
        self.groups = groups
        self.conv1 = nn.Conv2d(in_channels, mid, 1, groups=groups, bias=False)
        self.bn1 = nn.BatchNorm2d(mid)
        self.conv2 = nn.Conv2d(mid, mid, 3, padding=1, groups=mid, bias=False)
        self.bn2 = nn.BatchNorm2d(mid)
        self.conv3 = nn.Conv2d(mid, out_channels, 1, groups=groups, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        b, c, h, w = out.size()
        out = out.view(b, self.groups, c // self.groups, h, w).transpose(1, 2).contiguous()
        out = out.view(b, -1, h, w)
        out = F.relu(self.bn3(self.conv3(out)))
        return out + x


def get_inputs():
    return [torch.randn(2, 48, 6, 6)]


def get_init_inputs():
    return [48, 48, 3]
