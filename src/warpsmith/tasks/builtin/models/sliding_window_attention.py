"""Causal sliding-window attention: the mask built in forward from positions, bf16."""

import math

import torch
import torch.nn as nn

batch_size = 2
num_heads = 4
seq_len = 40
head_dim = 16
window = 12

SHAPES = {
    "default": {"batch_size": 2, "num_heads": 4, "seq_len": 40, "head_dim": 16, "window": 12},
    # Mistral-7B's heads (32 of 128), 4 x 1024 tokens, a 256-token window
    "gpu": {"batch_size": 4, "num_heads": 32, "seq_len": 1024, "head_dim": 128, "window": 256},
}


class Model(nn.Module):
    def __init__(self, window):
        super().__init__()
        self.window = window

    def forward(self, q, k, v):
        q_len, k_len = q.shape[-2], k.shape[-2]
        q_pos = torch.arange(q_len, device=q.device)[:, None]
        k_pos = torch.arange(k_len, device=q.device)[None, :]
        allowed = (k_pos <= q_pos) & (q_pos - k_pos < self.window)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
        scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
        probs = scores.float().softmax(dim=-1).to(v.dtype)
        return probs @ v


def get_inputs():
    shape = (batch_size, num_heads, seq_len, head_dim)
    return [torch.randn(shape, dtype=torch.bfloat16) for _ in range(3)]


def get_init_inputs():
    return [window]
