"""nn.Linear, then subtract, multiply and ReLU: the whole chain in the GEMM's epilogue."""

import torch
import torch.nn as nn

BATCH = 19
IN = 37
OUT = 45
SHAPES = {"small": {"BATCH": 19, "IN": 37, "OUT": 45}, "wide": {"BATCH": 5, "IN": 20, "OUT": 70}}


class Model(nn.Module):
    def __init__(self, in_features, out_features, subtract, multiply):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.subtract = subtract
        self.multiply = multiply

    def forward(self, x):
        x = self.linear(x)
        x = x - self.subtract
        x = x * self.multiply
        return torch.relu(x)


def get_inputs():
    return [torch.randn(BATCH, IN)]


def get_init_inputs():
    return [IN, OUT, 0.3, 1.7]
