"""A label shift before a per-token loss: logits of every position but the last against the
targets of every position but the first, as a causal LM's loss reads them (issue 30)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, logits, targets):
        pred = logits[:, :-1, :]
        gold = targets[:, 1:, :]
        return (pred - gold).abs()


def get_inputs():
    return [torch.randn(2, 17, 40), torch.randn(2, 17, 40)]


def get_init_inputs():
    return []
