"""Mixture-of-experts router: fp32 gate logits, softmax, top-k, renormalised weights and ids."""

import torch
import torch.nn as nn
import torch.nn.functional as F

num_tokens = 64
hidden_size = 64
num_experts = 16
top_k = 2

SHAPES = {
    "default": {"num_tokens": 64, "hidden_size": 64, "num_experts": 16, "top_k": 2},
    # Mixtral-8x7B: hidden 4096, 8 experts, top 2, 16384 tokens
    "gpu": {"num_tokens": 16384, "hidden_size": 4096, "num_experts": 8, "top_k": 2},
}


class Model(nn.Module):
    def __init__(self, hidden_size, num_experts, top_k):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_experts, hidden_size, dtype=torch.bfloat16)
                                   * hidden_size**-0.5)
        self.top_k = top_k

    def forward(self, hidden_states):
        # the router runs in fp32 even in a bf16 model: near-ties would flip expert choices
        logits = F.linear(hidden_states.float(), self.weight.float())
        scores = logits.softmax(dim=-1)
        topk_weight, topk_idx = torch.topk(scores, k=self.top_k, dim=-1, sorted=True)
        topk_weight = topk_weight / topk_weight.sum(dim=-1, keepdim=True)
        return topk_weight.to(hidden_states.dtype), topk_idx


def get_inputs():
    return [torch.randn(num_tokens, hidden_size, dtype=torch.bfloat16)]


def get_init_inputs():
    return [hidden_size, num_experts, top_k]
