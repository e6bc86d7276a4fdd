"""Multi-label loss: binary_cross_entropy_with_logits with a per-label pos_weight, per sample."""

import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 64
num_labels = 96

SHAPES = {
    "default": {"batch_size": 64, "num_labels": 96},
    # a multi-label head of 2048 tags over a batch of 8192
    "gpu": {"batch_size": 8192, "num_labels": 2048},
}


class Model(nn.Module):
    def __init__(self, num_labels):
        super().__init__()
        self.register_buffer("pos_weight", 1.0 + torch.rand(num_labels))

    def forward(self, logits, targets):
        loss = F.binary_cross_entropy_with_logits(logits, targets, pos_weight=self.pos_weight,
                                                  reduction="none")
        return loss.mean(dim=-1)


def get_inputs():
    logits = torch.randn(batch_size, num_labels) * 2
    targets = (torch.rand(batch_size, num_labels) < 0.3).float()
    return [logits, targets]


def get_init_inputs():
    return [num_labels]
