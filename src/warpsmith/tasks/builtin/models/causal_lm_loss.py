"""LM head and cross-entropy with the label shift: logits[:, :-1] against labels[:, 1:], bf16."""

import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 2
seq_len = 24
hidden_size = 64
vocab_size = 512
ignore_index = -100

SHAPES = {
    "default": {"batch_size": 2, "seq_len": 24, "hidden_size": 64, "vocab_size": 512},
    # Llama-2-7B's head: 4096 -> 32000 over 2048 tokens
    "gpu": {"batch_size": 2, "seq_len": 1024, "hidden_size": 4096, "vocab_size": 32000},
}


class Model(nn.Module):
    def __init__(self, hidden_size, vocab_size):
        super().__init__()
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False, dtype=torch.bfloat16)
        self.vocab_size = vocab_size

    def forward(self, hidden_states, labels):
        logits = self.lm_head(hidden_states).float()
        shift_logits = logits[..., :-1, :].contiguous()
        shift_labels = labels[..., 1:].contiguous()
        return F.cross_entropy(shift_logits.view(-1, self.vocab_size), shift_labels.view(-1),
                               ignore_index=ignore_index)


def get_inputs():
    hidden = torch.randn(batch_size, seq_len, hidden_size, dtype=torch.bfloat16)
    labels = torch.randint(0, vocab_size, (batch_size, seq_len))
    labels[:, :3] = ignore_index  # a prompt that is not trained on
    return [hidden, labels]


def get_init_inputs():
    return [hidden_size, vocab_size]
