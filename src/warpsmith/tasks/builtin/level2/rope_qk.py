"""Rotary position embedding (rotate-half form) applied to q and k, packed into one output, bf16."""

import torch
import torch.nn as nn

BATCH = 16
SEQ_LEN = 4096
Q_HEADS = 32
KV_HEADS = 8
HEAD_DIM = 128
ROPE_BASE = 10000.0

SHAPES = {
    "small": {"BATCH": 2, "SEQ_LEN": 13, "Q_HEADS": 5, "KV_HEADS": 3, "HEAD_DIM": 18},
    # q 537 MB + k 134 MB bf16; fused reads them plus the 1 MB cos/sin tables and writes 671 MB
    # (~0.35 ms); eager (slice, neg, cat, 2 muls, add per tensor, then cat) moves ~6 GB (~1.5 ms).
    "gpu": {"BATCH": 16, "SEQ_LEN": 4096, "Q_HEADS": 32, "KV_HEADS": 8, "HEAD_DIM": 128},
}
DTYPE = "bfloat16"


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Model(nn.Module):
    def __init__(self, seq_len, head_dim, base):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
        positions = torch.arange(seq_len).float()
        freqs = torch.outer(positions, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        # (seq, 1, head_dim): broadcasts over batch and heads of (batch, seq, heads, head_dim).
        self.register_buffer("cos", emb.cos()[:, None, :], persistent=False)
        self.register_buffer("sin", emb.sin()[:, None, :], persistent=False)

    def forward(self, q, k):
        cos = self.cos.to(q.dtype)
        sin = self.sin.to(q.dtype)
        q_rot = q * cos + rotate_half(q) * sin
        k_rot = k * cos + rotate_half(k) * sin
        # (batch, seq, q_heads + kv_heads, head_dim), as a fused QK-RoPE kernel would write it.
        return torch.cat((q_rot, k_rot), dim=2)


def get_inputs():
    return [
        torch.randn(BATCH, SEQ_LEN, Q_HEADS, HEAD_DIM) * 1.5 + 0.05,
        torch.randn(BATCH, SEQ_LEN, KV_HEADS, HEAD_DIM) * 1.2 - 0.05,
    ]


def get_init_inputs():
    return [SEQ_LEN, HEAD_DIM, ROPE_BASE]
