import torch
import torch.nn as nn


class Model(nn.Module):
    """A DenseNet block (KernelBench level 3's DenseNet121/201): each layer's training-mode
    BatchNorm reads the cat of every feature map so far (the cat written first, the row
    kernel reading that tensor), ReLU, a 3x3 convolution, Dropout(0.0); the block returns
    the cat of all."""

    def __init__(self, num_layers, num_input_features, growth_rate):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.Sequential(nn.BatchNorm2d(num_input_features + i * growth_rate),
                          nn.ReLU(inplace=True),
                          nn.Conv2d(num_input_features + i * growth_rate, growth_rate,
                                    kernel_size=3, padding=1, bias=False),
                          nn.Dropout(0.0))
            for i in range(num_layers)])

    def forward(self, x):
        features = [x]
        for layer in self.layers:
            features.append(layer(torch.cat(features, 1)))
        return torch.cat(features, 1)


def get_inputs():
    return [torch.randn(2, 8, 6, 6)]


def get_init_inputs():
    return [3, 8, 16]
