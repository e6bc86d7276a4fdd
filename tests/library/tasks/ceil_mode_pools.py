import torch
import torch.nn as nn


class Model(nn.Module):
    """Pools with ceil_mode=True (KernelBench level 3's SqueezeNet): the last window starts
    inside the input and runs past its end. A max pool, an average pool whose padded taps
    count (its last window clipped to the padded input), one whose only real taps count."""

    def __init__(self, in_channels, channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, channels, kernel_size=3, padding=1)
        self.max = nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)
        self.avg = nn.AvgPool2d(kernel_size=3, stride=2, padding=1, ceil_mode=True)
        self.avg_real = nn.AvgPool2d(kernel_size=2, stride=2, ceil_mode=True,
                                     count_include_pad=False)

    def forward(self, x):
        return self.avg_real(self.avg(self.max(torch.relu(self.conv(x)))))


def get_inputs():
    return [torch.randn(2, 4, 17, 17)]


def get_init_inputs():
    return [4, 16]
