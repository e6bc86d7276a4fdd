"""Causal scaled dot-product attention in fp16, q/k/v of shape (B, H, S, D)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 16
HEADS = 32
SEQ = 4096
HEAD_DIM = 64

SHAPES = {
    "small": {"BATCH": 2, "HEADS": 3, "SEQ": 37, "HEAD_DIM": 16},
    # Causal half of 4*B*H*S^2*D = 1.1 TFLOP (flash, ~500 TFLOP/s): 2.4 ms measured; 268 MB/tensor.
    "gpu": {"BATCH": 16, "HEADS": 32, "SEQ": 4096, "HEAD_DIM": 64},
}
DTYPE = "float16"


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def get_inputs():
    shape = (BATCH, HEADS, SEQ, HEAD_DIM)
    return [
        torch.randn(shape) * 1.2 + 0.1,
        torch.randn(shape) * 1.2 - 0.1,
        torch.randn(shape) * 1.5 + 0.2,
    ]


def get_init_inputs():
    return []
