import torch
import torch.nn as nn


class Model(nn.Module):
    """A ResNet stem (KernelBench level 3's ResNet18/101, RegNet): a convolution, training-mode
    BatchNorm (batch statistics), ReLU, then a max pool of that computed value."""

    def __init__(self, in_channels, channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, channels, kernel_size=7, stride=2, padding=3,
                              bias=False)
        self.bn = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        return self.pool(self.relu(self.bn(self.conv(x))))


def get_inputs():
    return [torch.randn(2, 3, 20, 20)]


def get_init_inputs():
    return [3, 16]
