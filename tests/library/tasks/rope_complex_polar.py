"""Interleaved rotary embedding on (B, H, S, D) heads in fp16, its rotations made in forward
by torch.polar from a table of angles cut to the sequence (issue 30: complex arithmetic)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, head_dim, max_positions):
        super().__init__()
        inv = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2).float() / head_dim))
        self.register_buffer("angles", torch.outer(torch.arange(max_positions).float(), inv))

    def forward(self, x):
        seq = x.shape[2]
        angles = self.angles[:seq]
        rot = torch.polar(torch.ones_like(angles), angles)
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * rot).flatten(3).to(x.dtype)


def get_inputs():
    return [torch.randn(2, 3, 20, 12, dtype=torch.float16)]


def get_init_inputs():
    return [12, 64]
