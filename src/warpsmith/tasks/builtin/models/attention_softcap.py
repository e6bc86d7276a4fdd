"""Attention with soft-capped scores (tanh(s / 50) * 50) before a fp32 softmax, bf16."""

import torch
import torch.nn as nn

batch_size = 2
num_heads = 4
seq_len = 32
head_dim = 16
attn_logit_softcapping = 50.0

SHAPES = {
    "default": {"batch_size": 2, "num_heads": 4, "seq_len": 32, "head_dim": 16},
    # Gemma-2-9B: 16 heads of 256, 2048 tokens
    "gpu": {"batch_size": 2, "num_heads": 16, "seq_len": 2048, "head_dim": 256},
}


class Model(nn.Module):
    def __init__(self, head_dim, softcap):
        super().__init__()
        self.scaling = head_dim**-0.5
        self.softcap = softcap

    def forward(self, query, key, value):
        attn_weights = torch.matmul(query, key.transpose(2, 3)) * self.scaling
        attn_weights = attn_weights / self.softcap
        attn_weights = torch.tanh(attn_weights)
        attn_weights = attn_weights * self.softcap
        attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32)
        return torch.matmul(attn_weights.to(query.dtype), value)


def get_inputs():
    shape = (batch_size, num_heads, seq_len, head_dim)
    return [torch.randn(shape, dtype=torch.bfloat16) * 3 for _ in range(3)]


def get_init_inputs():
    return [head_dim, attn_logit_softcapping]
