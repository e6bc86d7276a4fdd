"""A relative position bias added to bf16 attention scores, the table indexed by the
clamped key − query distance and permuted to heads first (issue 30): T5's form with a
short reach (max_dist 3) and no softmax, so the gather is read by a pointwise kernel."""

import torch
import torch.nn as nn

batch_size = 2
heads = 3
seq_len = 16


class Model(nn.Module):
    def __init__(self, heads, max_dist):
        super().__init__()
        self.max_dist = max_dist
        self.table = nn.Parameter(torch.randn(2 * max_dist + 1, heads, dtype=torch.bfloat16))

    def forward(self, scores):
        q = torch.arange(scores.shape[-2], device=scores.device)[:, None]
        k = torch.arange(scores.shape[-1], device=scores.device)[None, :]
        rel = (k - q).clamp(-self.max_dist, self.max_dist) + self.max_dist
        bias = self.table[rel].permute(2, 0, 1)
        return scores + bias[None]


def get_inputs():
    return [torch.randn(batch_size, heads, seq_len, seq_len, dtype=torch.bfloat16)]


def get_init_inputs():
    return [heads, 3]
