"""Cross-entropy loss (mean over the batch) of fp32 logits against integer class targets."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 16384
CLASSES = 32768

SHAPES = {
    "small": {"BATCH": 37, "CLASSES": 129},
    # Logits 2.1 GB read; eager log_softmax writes and re-reads 2.1 GB ≈ 6.4 GB, 1.6 ms measured.
    "gpu": {"BATCH": 16384, "CLASSES": 32768},
}
DTYPE = "float32"


class Model(nn.Module):
    def forward(self, logits, targets):
        return F.cross_entropy(logits, targets, reduction="mean")


def get_inputs():
    return [
        torch.randn(BATCH, CLASSES) * 2.0 + 0.2,
        torch.randint(0, CLASSES, (BATCH,)),
    ]


def get_init_inputs():
    return []
