"""Residual add through a per-channel layer scale (x + gamma * branch), bf16."""

import torch
import torch.nn as nn

batch_size = 4
tokens = 50
dim = 64
init_values = 0.1

SHAPES = {
    "default": {"batch_size": 4, "tokens": 50, "dim": 64},
    # ViT-L (CaiT, DeiT-III): 197 tokens of 1024
    "gpu": {"batch_size": 256, "tokens": 197, "dim": 1024},
}


class LayerScale(nn.Module):
    def __init__(self, dim, init_values):
        super().__init__()
        self.gamma = nn.Parameter(init_values * torch.ones(dim, dtype=torch.bfloat16))

    def forward(self, x):
        return x * self.gamma


class Model(nn.Module):
    def __init__(self, dim, init_values):
        super().__init__()
        self.ls = LayerScale(dim, init_values)

    def forward(self, x, branch):
        return x + self.ls(branch)


def get_inputs():
    shape = (batch_size, tokens, dim)
    return [torch.randn(shape, dtype=torch.bfloat16), torch.randn(shape, dtype=torch.bfloat16)]


def get_init_inputs():
    return [dim, init_values]
