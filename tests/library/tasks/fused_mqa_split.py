"""A fused multi-query projection split by sizes the constructor computes (issue 30): q of
`num_heads * head_dim`, k and v of one head each, fp16; k broadcast over q's heads. The
split's fraction of the width differs between the two shapes (2/3 at 4 heads, 3/4 at 6), so
its starts follow the constructor's arguments, as the weight's rows do: (num_heads + 2) *
head_dim."""

import torch
import torch.nn as nn

batch_size = 2
seq_len = 10
hidden_size = 24
num_heads = 4
head_dim = 8

SHAPES = {
    "small": {"batch_size": 2, "seq_len": 10, "hidden_size": 24, "num_heads": 4, "head_dim": 8},
    "wider": {"batch_size": 3, "seq_len": 7, "hidden_size": 40, "num_heads": 6, "head_dim": 8},
}


class Model(nn.Module):
    def __init__(self, hidden_size, num_heads, head_dim):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, head_dim
        self.qkv = nn.Linear(hidden_size, (num_heads + 2) * head_dim, bias=False,
                             dtype=torch.float16)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(x).split(
            [self.num_heads * self.head_dim, self.head_dim, self.head_dim], dim=-1)
        q = q.view(b, s, self.num_heads, self.head_dim)
        return q * k.view(b, s, 1, self.head_dim) + v.view(b, s, 1, self.head_dim)


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden_size, dtype=torch.float16)]


def get_init_inputs():
    return [hidden_size, num_heads, head_dim]
