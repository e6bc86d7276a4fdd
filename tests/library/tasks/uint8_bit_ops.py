"""Bitwise or, xor, not and a left shift that wraps on uint8 (issue 30)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return ((a ^ b) | (a << 3)) & ~b


def get_inputs():
    return [torch.randint(0, 256, (6, 50), dtype=torch.uint8),
            torch.randint(0, 256, (6, 50), dtype=torch.uint8)]


def get_init_inputs():
    return []
