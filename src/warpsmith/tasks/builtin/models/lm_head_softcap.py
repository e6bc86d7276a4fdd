"""Final logits with soft-capping (tanh(x / cap) * cap) after the LM head, bf16."""

import torch
import torch.nn as nn

batch_size = 2
seq_len = 16
hidden_size = 64
vocab_size = 512
final_logit_softcapping = 30.0

SHAPES = {
    "default": {"batch_size": 2, "seq_len": 16, "hidden_size": 64, "vocab_size": 512},
    # a 4096 -> 32000 head over 2048 tokens
    "gpu": {"batch_size": 2, "seq_len": 1024, "hidden_size": 4096, "vocab_size": 32000},
}


class Model(nn.Module):
    def __init__(self, hidden_size, vocab_size, softcap):
        super().__init__()
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False, dtype=torch.bfloat16)
        self.softcap = softcap

    def forward(self, hidden_states):
        logits = self.lm_head(hidden_states)
        logits = logits / self.softcap
        logits = torch.tanh(logits)
        return logits * self.softcap


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden_size, dtype=torch.bfloat16) * 4]


def get_init_inputs():
    return [hidden_size, vocab_size, final_logit_softcapping]
