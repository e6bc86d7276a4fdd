"""Llama-style pre-norm decoder layer in bf16: RMSNorm, causal attention, RMSNorm, SwiGLU MLP."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
SEQ_LEN = 2048
D_MODEL = 4096
N_HEADS = 32
D_FF = 11008

SHAPES = {
    "small": {"BATCH": 2, "SEQ_LEN": 13, "D_MODEL": 39, "N_HEADS": 3, "D_FF": 97},
    # Llama-7B layer on 4096 tokens: projections 2 * 4096 * 4096 * (4 * 4096 + 3 * 11008) =
    # 1.66 TFLOP, attention 4 * 2 * 32 * 2048^2 * 128 = 0.14 TFLOP (half of it masked);
    # 0.4 GB of weights. Measured 2.9 ms eager in bf16 on an H200.
    "gpu": {"BATCH": 2, "SEQ_LEN": 2048, "D_MODEL": 4096, "N_HEADS": 32, "D_FF": 11008},
}
DTYPE = "bfloat16"


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(dim))

    def forward(self, x):
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return xf.to(x.dtype) * self.weight


class Model(nn.Module):
    def __init__(self, d_model, n_heads, d_ff):
        super().__init__()
        self.n_heads = n_heads
        self.attn_norm = RMSNorm(d_model)
        self.wqkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.wo = nn.Linear(d_model, d_model, bias=False)
        self.mlp_norm = RMSNorm(d_model)
        self.w_gate = nn.Linear(d_model, d_ff, bias=False)
        self.w_up = nn.Linear(d_model, d_ff, bias=False)
        self.w_down = nn.Linear(d_ff, d_model, bias=False)
        # Unit-gain init so attention is not uniform and each sub-block visibly moves x.
        for lin in (self.wqkv, self.wo, self.w_gate, self.w_up, self.w_down):
            nn.init.normal_(lin.weight, std=lin.in_features**-0.5)

    def forward(self, x):
        b, t, d = x.shape
        h = self.attn_norm(x)
        qkv = self.wqkv(h).view(b, t, 3, self.n_heads, d // self.n_heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(a.transpose(1, 2).reshape(b, t, d))
        h = self.mlp_norm(x)
        return x + self.w_down(F.silu(self.w_gate(h)) * self.w_up(h))


def get_inputs():
    return [torch.randn(BATCH, SEQ_LEN, D_MODEL) + 0.05]


def get_init_inputs():
    return [D_MODEL, N_HEADS, D_FF]
