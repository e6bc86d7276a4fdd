"""Fused QKV projection split into q, k, v heads, with per-head RMSNorm on q and k, bf16."""

import torch
import torch.nn as nn

batch_size = 2
seq_len = 16
hidden_size = 64
num_heads = 4
num_kv_heads = 2
head_dim = 16

SHAPES = {
    "default": {
        "batch_size": 2, "seq_len": 16, "hidden_size": 64, "num_heads": 4, "num_kv_heads": 2,
        "head_dim": 16,
    },
    # Qwen3-8B: hidden 4096, 32 query and 8 K/V heads of 128, 2 x 2048 tokens
    "gpu": {
        "batch_size": 2, "seq_len": 2048, "hidden_size": 4096, "num_heads": 32, "num_kv_heads": 8,
        "head_dim": 128,
    },
}


class HeadRMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim, dtype=torch.bfloat16))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


class Model(nn.Module):
    def __init__(self, hidden_size, num_heads, num_kv_heads, head_dim):
        super().__init__()
        self.q_size = num_heads * head_dim
        self.kv_size = num_kv_heads * head_dim
        self.head_dim = head_dim
        self.qkv_proj = nn.Linear(hidden_size, self.q_size + 2 * self.kv_size, bias=False,
                                  dtype=torch.bfloat16)
        self.q_norm = HeadRMSNorm(head_dim)
        self.k_norm = HeadRMSNorm(head_dim)

    def forward(self, hidden_states):
        bsz, q_len, _ = hidden_states.shape
        qkv = self.qkv_proj(hidden_states)
        q, k, v = qkv.split([self.q_size, self.kv_size, self.kv_size], dim=-1)
        q = self.q_norm(q.view(bsz, q_len, -1, self.head_dim)).transpose(1, 2)
        k = self.k_norm(k.view(bsz, q_len, -1, self.head_dim)).transpose(1, 2)
        v = v.view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        return q, k, v


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden_size, dtype=torch.bfloat16)]


def get_init_inputs():
    return [hidden_size, num_heads, num_kv_heads, head_dim]
