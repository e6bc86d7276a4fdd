"""Log-probabilities of the sampled tokens only: log_softmax in fp32, then gather, bf16 logits."""

import torch
import torch.nn as nn

batch_size = 4
seq_len = 16
vocab_size = 512

SHAPES = {
    "default": {"batch_size": 4, "seq_len": 16, "vocab_size": 512},
    # GRPO's log-probabilities: 4 completions of 1024 tokens, vocabulary 32000
    "gpu": {"batch_size": 4, "seq_len": 1024, "vocab_size": 32000},
}


class Model(nn.Module):
    def forward(self, logits, index):
        logps = torch.log_softmax(logits.float(), dim=-1)
        return torch.gather(logps, dim=-1, index=index.unsqueeze(-1)).squeeze(-1)


def get_inputs():
    logits = torch.randn(batch_size, seq_len, vocab_size, dtype=torch.bfloat16) * 3
    index = torch.randint(0, vocab_size, (batch_size, seq_len))
    return [logits, index]


def get_init_inputs():
    return []
