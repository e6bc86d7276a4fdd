"""T5's relative position bias as an additive mask before the softmax: a (2 * max_dist + 1,
H) table indexed by the clamped key − query distance, computed in forward from torch.arange,
then permuted to (H, Q, K) (issue 30). The index is a gather at a computed address inside
the softmax's kernel. fp32."""

import torch
import torch.nn as nn

batch_size = 2
heads = 8
q_len = 20
k_len = 24


class Model(nn.Module):
    def __init__(self, heads, max_dist):
        super().__init__()
        self.max_dist = max_dist
        self.table = nn.Parameter(torch.randn(2 * max_dist + 1, heads))

    def forward(self, scores):
        q = torch.arange(scores.shape[-2], device=scores.device)[:, None]
        k = torch.arange(scores.shape[-1], device=scores.device)[None, :]
        rel = (k - q).clamp(-self.max_dist, self.max_dist) + self.max_dist
        bias = self.table[rel].permute(2, 0, 1)
        return torch.softmax(scores + bias[None], dim=-1)


def get_inputs():
    return [torch.randn(batch_size, heads, q_len, k_len)]


def get_init_inputs():
    return [heads, 8]  # max_dist: the table's reach, not a data size
