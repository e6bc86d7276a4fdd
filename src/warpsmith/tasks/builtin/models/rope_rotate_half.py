"""Rotary position embedding on q and k with rotate_half (cat of the negated upper half), bf16."""

import torch
import torch.nn as nn

batch_size = 2
num_heads = 4
seq_len = 32
half_head_dim = 8  # head_dim = 2 * half_head_dim: rotary pairs need an even head size
rope_theta = 10000.0

SHAPES = {
    "default": {"batch_size": 2, "num_heads": 4, "seq_len": 32, "half_head_dim": 8},
    # Llama-7B: 32 heads of 128, 2048 positions
    "gpu": {"batch_size": 4, "num_heads": 32, "seq_len": 2048, "half_head_dim": 64},
}


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    def __init__(self, head_dim, max_positions, theta):
        super().__init__()
        inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.max_positions = max_positions

    def forward(self, q, k, position_ids):
        freqs = position_ids[:, :, None].float() * self.inv_freq[None, None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos().to(q.dtype)[:, None]
        sin = emb.sin().to(q.dtype)[:, None]
        q_embed = (q * cos) + (rotate_half(q) * sin)
        k_embed = (k * cos) + (rotate_half(k) * sin)
        return q_embed, k_embed


def get_inputs():
    head_dim = 2 * half_head_dim
    q = torch.randn(batch_size, num_heads, seq_len, head_dim, dtype=torch.bfloat16)
    k = torch.randn(batch_size, num_heads, seq_len, head_dim, dtype=torch.bfloat16)
    # each sequence continues a cache of its own length
    offsets = torch.randint(0, 4 * seq_len, (batch_size, 1))
    position_ids = torch.arange(seq_len).unsqueeze(0) + offsets
    return [q, k, position_ids]


def get_init_inputs():
    return [2 * half_head_dim, seq_len, rope_theta]
