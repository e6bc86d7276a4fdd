import torch
import torch.nn as nn


class Model(nn.Module):
    """MobileNetV1's tail (KernelBench level 3): a depthwise and a pointwise convolution, each
    with training-mode BatchNorm and ReLU, an average pool over the whole map (a pool of a
    value a row kernel computes), then `view(N, -1)` into nn.Linear."""

    def __init__(self, channels, out_channels, num_classes):
        super().__init__()
        self.dw = nn.Conv2d(channels, channels, 3, 1, 1, groups=channels, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.pw = nn.Conv2d(channels, out_channels, 1, 1, 0, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.pool = nn.AvgPool2d(4)
        self.fc = nn.Linear(out_channels, num_classes)

    def forward(self, x):
        x = torch.relu(self.bn1(self.dw(x)))
        x = torch.relu(self.bn2(self.pw(x)))
        x = self.pool(x)
        return self.fc(x.view(x.size(0), -1))


def get_inputs():
    return [torch.randn(2, 16, 4, 4)]


def get_init_inputs():
    return [16, 32, 10]
