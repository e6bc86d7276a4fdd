"""Interleaved rotary embedding through view_as_complex with a complex64 frequency buffer."""

import torch
import torch.nn as nn

batch_size = 2
seq_len = 24
num_heads = 4
half_head_dim = 8  # head_dim = 2 * half_head_dim: pairs (x[2i], x[2i+1]) are rotated together

SHAPES = {
    "default": {"batch_size": 2, "seq_len": 24, "num_heads": 4, "half_head_dim": 8},
    # Llama-2-7B: 32 heads of 128, 2048 positions
    "gpu": {"batch_size": 4, "seq_len": 2048, "num_heads": 32, "half_head_dim": 64},
}


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
    t = torch.arange(end, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)  # complex64


class Model(nn.Module):
    def __init__(self, head_dim, max_seq_len):
        super().__init__()
        self.register_buffer("freqs_cis", precompute_freqs_cis(head_dim, max_seq_len))

    def forward(self, xq, xk):
        seqlen = xq.shape[1]
        xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
        xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
        freqs_cis = self.freqs_cis[:seqlen].view(1, seqlen, 1, xq_.shape[-1])
        xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
        xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
        return xq_out.type_as(xq), xk_out.type_as(xk)


def get_inputs():
    head_dim = 2 * half_head_dim
    xq = torch.randn(batch_size, seq_len, num_heads, head_dim, dtype=torch.bfloat16)
    xk = torch.randn(batch_size, seq_len, num_heads, head_dim, dtype=torch.bfloat16)
    return [xq, xk]


def get_init_inputs():
    return [2 * half_head_dim, 2 * seq_len]
