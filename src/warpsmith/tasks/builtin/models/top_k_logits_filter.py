"""Sampling prep: temperature, keep the top-k logits (the rest -inf), softmax, fp32."""

import torch
import torch.nn as nn

batch_size = 16
vocab_size = 1000
top_k = 50
temperature = 0.7

SHAPES = {
    "default": {"batch_size": 16, "vocab_size": 1000},
    # sampling 64 sequences over Llama-3's 128256 vocabulary, top 50
    "gpu": {"batch_size": 64, "vocab_size": 128256},
}


class Model(nn.Module):
    def __init__(self, top_k, temperature):
        super().__init__()
        self.top_k = top_k
        self.temperature = temperature

    def forward(self, logits):
        logits = logits / self.temperature
        v, _ = torch.topk(logits, min(self.top_k, logits.size(-1)))
        logits = logits.masked_fill(logits < v[:, [-1]], float("-inf"))
        return torch.softmax(logits, dim=-1)


def get_inputs():
    return [torch.randn(batch_size, vocab_size) * 2]


def get_init_inputs():
    return [top_k, temperature]
