"""Diffusion timestep embedding: sinusoids from arange, cat, Linear-SiLU-Linear, bf16."""

import math

import torch
import torch.nn as nn

batch_size = 16
num_freqs = 32  # the sinusoidal embedding has 2 * num_freqs channels
time_embed_dim = 96
max_period = 10000

SHAPES = {
    "default": {"batch_size": 16, "num_freqs": 32, "time_embed_dim": 96},
    # DiT-XL's embedder (256 sinusoids -> 1152) for 8192 timesteps (one per frame or token)
    "gpu": {"batch_size": 8192, "num_freqs": 128, "time_embed_dim": 1152},
}


class Model(nn.Module):
    def __init__(self, num_freqs, time_embed_dim):
        super().__init__()
        self.num_freqs = num_freqs
        self.linear_1 = nn.Linear(2 * num_freqs, time_embed_dim, dtype=torch.bfloat16)
        self.act = nn.SiLU()
        self.linear_2 = nn.Linear(time_embed_dim, time_embed_dim, dtype=torch.bfloat16)

    def forward(self, timesteps):
        half = self.num_freqs
        exponent = -math.log(max_period) * torch.arange(
            0, half, dtype=torch.float32, device=timesteps.device) / half
        args = timesteps[:, None].float() * torch.exp(exponent)[None, :]
        emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
        emb = emb.to(self.linear_1.weight.dtype)
        return self.linear_2(self.act(self.linear_1(emb)))


def get_inputs():
    return [torch.rand(batch_size) * 1000]


def get_init_inputs():
    return [num_freqs, time_embed_dim]
