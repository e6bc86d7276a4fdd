"""GEGLU projection as in diffusion transformers: one Linear, chunk in two, x * gelu(gate), fp16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 2
tokens = 32
dim_in = 48
dim_out = 64

SHAPES = {
    "default": {"batch_size": 2, "tokens": 32, "dim_in": 48, "dim_out": 64},
    # Stable Diffusion's GEGLU: 1280 -> 2 x 5120 over a 64x64 latent
    "gpu": {"batch_size": 2, "tokens": 4096, "dim_in": 1280, "dim_out": 5120},
}


class Model(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.proj = nn.Linear(dim_in, dim_out * 2, dtype=torch.float16)

    def forward(self, hidden_states):
        hidden_states, gate = self.proj(hidden_states).chunk(2, dim=-1)
        return hidden_states * F.gelu(gate)


def get_inputs():
    return [torch.randn(batch_size, tokens, dim_in, dtype=torch.float16)]


def get_init_inputs():
    return [dim_in, dim_out]
