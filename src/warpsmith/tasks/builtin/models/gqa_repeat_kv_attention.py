"""Grouped-query causal attention: k and v repeated per query group by expand+reshape, bf16."""

import math

import torch
import torch.nn as nn

batch_size = 2
num_heads = 4
num_key_value_heads = 2
seq_len = 32
head_dim = 16

SHAPES = {
    "default": {
        "batch_size": 2, "num_heads": 4, "num_key_value_heads": 2, "seq_len": 32, "head_dim": 16,
    },
    # Gemma-2-9B: 16 query heads over 8 K/V heads of 256, 2 x 2048 tokens (the group ratio of
    # the default shape: the library's repeat_kv copies a traced count of 2)
    "gpu": {
        "batch_size": 2, "num_heads": 16, "num_key_value_heads": 8, "seq_len": 2048,
        "head_dim": 256,
    },
}


def repeat_kv(hidden_states, n_rep):
    batch, kv_heads, slen, dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, kv_heads, n_rep, slen, dim)
    return hidden_states.reshape(batch, kv_heads * n_rep, slen, dim)


class Model(nn.Module):
    def __init__(self, num_heads, num_key_value_heads):
        super().__init__()
        self.num_key_value_groups = num_heads // num_key_value_heads

    def forward(self, query, key, value):
        key = repeat_kv(key, self.num_key_value_groups)
        value = repeat_kv(value, self.num_key_value_groups)
        scores = torch.matmul(query, key.transpose(2, 3)) / math.sqrt(query.shape[-1])
        q_len, k_len = query.shape[-2], key.shape[-2]
        causal = torch.ones(q_len, k_len, dtype=torch.bool, device=query.device).triu(1)
        scores = scores.masked_fill(causal, torch.finfo(scores.dtype).min)
        probs = nn.functional.softmax(scores, dim=-1, dtype=torch.float32).to(query.dtype)
        return torch.matmul(probs, value)


def get_inputs():
    q = torch.randn(batch_size, num_heads, seq_len, head_dim, dtype=torch.bfloat16)
    k = torch.randn(batch_size, num_key_value_heads, seq_len, head_dim, dtype=torch.bfloat16)
    v = torch.randn(batch_size, num_key_value_heads, seq_len, head_dim, dtype=torch.bfloat16)
    return [q, k, v]


def get_init_inputs():
    return [num_heads, num_key_value_heads]
