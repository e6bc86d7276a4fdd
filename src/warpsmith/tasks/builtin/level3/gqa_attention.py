"""Grouped-query causal self-attention in fp16: N_HEADS query heads share N_KV_HEADS K/V heads."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 4
SEQ_LEN = 2048
D_MODEL = 4096
N_HEADS = 32
N_KV_HEADS = 8

SHAPES = {
    "small": {"BATCH": 2, "SEQ_LEN": 15, "D_MODEL": 78, "N_HEADS": 6, "N_KV_HEADS": 2},
    # 8192 tokens, head_dim 128: projections 2 * 8192 * 4096 * (4096 + 2048 + 4096) = 0.69 TFLOP,
    # attention 4 * 4 * 32 * 2048^2 * 128 = 0.27 TFLOP (half of it masked).
    # Measured 1.4 ms eager in fp16 on an H200.
    "gpu": {"BATCH": 4, "SEQ_LEN": 2048, "D_MODEL": 4096, "N_HEADS": 32, "N_KV_HEADS": 8},
}
DTYPE = "float16"


class Model(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads = n_heads
        self.n_kv_heads = n_kv_heads
        self.head_dim = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.head_dim, bias=False)
        self.kv_proj = nn.Linear(d_model, 2 * n_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(n_heads * self.head_dim, d_model, bias=False)
        # Unit-gain init: attention scores of order one rather than a near-uniform average.
        for lin in (self.q_proj, self.kv_proj, self.o_proj):
            nn.init.normal_(lin.weight, std=lin.in_features**-0.5)

    def forward(self, x):
        b, t, _ = x.shape
        hq, hkv, hd = self.n_heads, self.n_kv_heads, self.head_dim
        q = self.q_proj(x).view(b, t, hq, hd).transpose(1, 2)
        k, v = self.kv_proj(x).view(b, t, 2, hkv, hd).permute(2, 0, 3, 1, 4).unbind(0)
        # Each K/V head serves hq // hkv consecutive query heads.
        k = k[:, :, None].expand(b, hkv, hq // hkv, t, hd).reshape(b, hq, t, hd)
        v = v[:, :, None].expand(b, hkv, hq // hkv, t, hd).reshape(b, hq, t, hd)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(a.transpose(1, 2).reshape(b, t, hq * hd))


def get_inputs():
    return [torch.randn(BATCH, SEQ_LEN, D_MODEL) + 0.05]


def get_init_inputs():
    return [D_MODEL, N_HEADS, N_KV_HEADS]
