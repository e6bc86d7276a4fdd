"""Per-token cross-entropy with label smoothing over a large vocabulary (log_softmax + NLL)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TOKENS = 4096
VOCAB = 128256
LABEL_SMOOTHING = 0.1

SHAPES = {
    "small": {"TOKENS": 37, "VOCAB": 131},
    # logits 4096*128256 fp32 = 2.1 GB; fused reads them once (~0.5 ms); eager log_softmax
    # (read + write), smoothing sum and gather move ~6.3 GB (~1.5 ms).
    "gpu": {"TOKENS": 4096, "VOCAB": 128256},
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, label_smoothing):
        super().__init__()
        self.label_smoothing = label_smoothing

    def forward(self, logits, targets):
        # One loss per token (no reduction), so the output has spread.
        return F.cross_entropy(
            logits, targets, reduction="none", label_smoothing=self.label_smoothing
        )


def get_inputs():
    return [
        torch.randn(TOKENS, VOCAB) * 2.0 + 0.1,
        torch.randint(0, VOCAB, (TOKENS,)),
    ]


def get_init_inputs():
    return [LABEL_SMOOTHING]
