"""GEGLU over a projected input: its two halves by chunk, the gate through GELU (issue 30)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, h):
        x, gate = h.chunk(2, dim=-1)
        return x * F.gelu(gate)


def get_inputs():
    return [torch.randn(2, 8, 192)]


def get_init_inputs():
    return []
