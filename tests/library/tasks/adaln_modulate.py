"""DiT-style adaLN modulation: shift, scale and gate chunked from a conditioning vector per
sample, applied to a normalised token stream with a residual (issue 30)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, h, emb):
        shift, scale, gate = emb.chunk(3, dim=1)
        return x + gate.unsqueeze(1) * (h * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1))


def get_inputs():
    return [torch.randn(2, 16, 64), torch.randn(2, 16, 64), torch.randn(2, 192)]


def get_init_inputs():
    return []
