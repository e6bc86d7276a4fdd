"""Gemma-style attention logits: tanh softcapping, then a sliding-window causal mask built
from torch.arange in forward, in bf16 (issue 30)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, window, cap):
        super().__init__()
        self.window, self.cap = window, cap

    def forward(self, scores):
        q = torch.arange(scores.shape[-2], device=scores.device)[:, None]
        k = torch.arange(scores.shape[-1], device=scores.device)[None, :]
        keep = (k <= q) & (q - k < self.window)
        capped = self.cap * torch.tanh(scores / self.cap)
        return capped.masked_fill(~keep, -1e4)


def get_inputs():
    return [torch.randn(2, 3, 12, 20, dtype=torch.bfloat16) * 30]


def get_init_inputs():
    return [5, 30.0]
