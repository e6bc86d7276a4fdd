"""Mixture-of-experts GELU MLP layer in bf16 with dense softmax gating over stacked experts."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 4
SEQ_LEN = 2048
D_MODEL = 2048
D_EXPERT = 2048
N_EXPERTS = 8

SHAPES = {
    "small": {"BATCH": 3, "SEQ_LEN": 13, "D_MODEL": 37, "D_EXPERT": 29, "N_EXPERTS": 5},
    # 8192 tokens through all 8 experts: 2 * 2 * 8 * 8192 * 2048 * 2048 = 1.1 TFLOP; [8, 8192,
    # 2048] bf16 intermediates of 0.27 GB each. Measured 2.8 ms eager in bf16 on an H200.
    "gpu": {"BATCH": 4, "SEQ_LEN": 2048, "D_MODEL": 2048, "D_EXPERT": 2048, "N_EXPERTS": 8},
}
DTYPE = "bfloat16"


class Model(nn.Module):
    def __init__(self, d_model, d_expert, n_experts):
        super().__init__()
        self.router = nn.Parameter(torch.randn(n_experts, d_model) * d_model**-0.5)
        self.w_in = nn.Parameter(torch.randn(n_experts, d_model, d_expert) * d_model**-0.5)
        self.b_in = nn.Parameter(0.1 * torch.randn(n_experts, 1, d_expert))
        self.w_out = nn.Parameter(torch.randn(n_experts, d_expert, d_model) * d_expert**-0.5)
        self.b_out = nn.Parameter(0.1 * torch.randn(n_experts, 1, d_model))

    def forward(self, x):
        b, t, d = x.shape
        tokens = x.reshape(b * t, d)
        # Gates in fp32: [tokens, experts], each row sums to one.
        gates = torch.softmax(F.linear(tokens, self.router).float(), dim=-1).to(x.dtype)
        h = F.gelu(torch.matmul(tokens, self.w_in) + self.b_in)  # [experts, tokens, d_expert]
        y = torch.matmul(h, self.w_out) + self.b_out  # [experts, tokens, d_model]
        out = (y * gates.t().unsqueeze(-1)).sum(dim=0)  # [tokens, d_model]
        return out.view(b, t, d)


def get_inputs():
    return [torch.randn(BATCH, SEQ_LEN, D_MODEL) + 0.05]


def get_init_inputs():
    return [D_MODEL, D_EXPERT, N_EXPERTS]
