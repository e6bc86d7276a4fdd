"""Causal attention with ALiBi biases built in forward from torch.arange, fp16."""

import math

import torch
import torch.nn as nn

batch_size = 2
num_heads = 4
seq_len = 32
head_dim = 16

SHAPES = {
    "default": {"batch_size": 2, "num_heads": 4, "seq_len": 32, "head_dim": 16},
    # BLOOM/MPT-7B-like heads: 32 x 128, 4 x 1024 tokens, scores materialised in fp32
    "gpu": {"batch_size": 4, "num_heads": 32, "seq_len": 1024, "head_dim": 128},
}


def alibi_slopes(n_heads):
    start = 2 ** (-(2 ** -(math.log2(n_heads) - 3)))
    return torch.tensor([start * start**i for i in range(n_heads)], dtype=torch.float32)


class Model(nn.Module):
    def __init__(self, num_heads):
        super().__init__()
        self.register_buffer("slopes", alibi_slopes(num_heads))

    def forward(self, q, k, v):
        seq = q.shape[-2]
        pos = torch.arange(seq, device=q.device)
        distance = (pos[None, :] - pos[:, None]).float()  # key minus query: <= 0 when causal
        bias = self.slopes[:, None, None] * distance[None]
        scores = torch.matmul(q.float(), k.float().transpose(-1, -2)) / math.sqrt(q.shape[-1])
        scores = scores + bias[None]
        scores = scores.masked_fill(pos[None, :] > pos[:, None], float("-inf"))
        probs = torch.softmax(scores, dim=-1).to(q.dtype)
        return torch.matmul(probs, v)


def get_inputs():
    shape = (batch_size, num_heads, seq_len, head_dim)
    return [torch.randn(shape, dtype=torch.float16) for _ in range(3)]


def get_init_inputs():
    return [num_heads]
