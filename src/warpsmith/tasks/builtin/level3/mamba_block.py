"""Mamba-style selective state-space block in fp32, with the scan as a loop over time steps."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 8
SEQ_LEN = 256
D_MODEL = 1024
D_INNER = 2048
D_STATE = 16
DT_RANK = 64
D_CONV = 4

SHAPES = {
    "small": {
        "BATCH": 2,
        "SEQ_LEN": 13,
        "D_MODEL": 11,
        "D_INNER": 21,
        "D_STATE": 5,
        "DT_RANK": 3,
        "D_CONV": 4,
    },
    # 2048 tokens: projections 2 * 2048 * (1024 * 4096 + 2048 * 96 + 64 * 2048 + 2048 * 1024)
    # = 27 GFLOP of strict fp32 (~0.6 ms); discretised A and B*x are [8, 256, 2048, 16] fp32,
    # 0.27 GB each, as are the stacked states; the scan is 256 sequential launches of one small
    # kernel, launch-bound. Measured 6.6 ms eager on an H200.
    "gpu": {
        "BATCH": 8,
        "SEQ_LEN": 256,
        "D_MODEL": 1024,
        "D_INNER": 2048,
        "D_STATE": 16,
        "DT_RANK": 64,
        "D_CONV": 4,
    },
}
DTYPE = "float32"


class Model(nn.Module):
    def __init__(self, d_model, d_inner, d_state, dt_rank, d_conv):
        super().__init__()
        self.d_inner = d_inner
        self.d_state = d_state
        self.dt_rank = dt_rank
        self.in_proj = nn.Linear(d_model, 2 * d_inner, bias=False)
        self.conv1d = nn.Conv1d(d_inner, d_inner, d_conv, groups=d_inner, padding=d_conv - 1)
        self.x_proj = nn.Linear(d_inner, dt_rank + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(dt_rank, d_inner)
        # Mamba-like init: A = -(1..d_state) with jitter; dt = softplus(bias) log-uniform in
        # [1e-2, 0.5] (Mamba uses [1e-3, 0.1]) so the scan is a visible share of the output.
        log_lo, log_hi = math.log(1e-2), math.log(0.5)
        dt = torch.exp(torch.rand(d_inner) * (log_hi - log_lo) + log_lo)
        with torch.no_grad():
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))
        a = torch.arange(1, d_state + 1).float().repeat(d_inner, 1)
        self.A_log = nn.Parameter(torch.log(a) + 0.1 * torch.randn(d_inner, d_state))
        self.D = nn.Parameter(1.0 + 0.1 * torch.randn(d_inner))
        self.out_proj = nn.Linear(d_inner, d_model, bias=False)
        # Unit-gain projections and conv, so dt, B and C vary with the input (the selective part);
        # x_proj at twice that, so B and C are O(1) and the scan is a real share of the output.
        for lin in (self.in_proj, self.dt_proj, self.out_proj):
            nn.init.normal_(lin.weight, std=lin.in_features**-0.5)
        nn.init.normal_(self.x_proj.weight, std=2.0 * d_inner**-0.5)
        nn.init.normal_(self.conv1d.weight, std=d_conv**-0.5)

    def forward(self, x):
        b, seqlen, _ = x.shape
        xs, z = self.in_proj(x).chunk(2, dim=-1)  # [b, seqlen, d_inner] each
        xs = self.conv1d(xs.transpose(1, 2))[..., :seqlen].transpose(1, 2)  # causal depthwise conv
        xs = F.silu(xs)
        dt, bmat, cmat = self.x_proj(xs).split([self.dt_rank, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(self.dt_proj(dt))  # [b, seqlen, d_inner]
        a = -torch.exp(self.A_log)  # [d_inner, d_state]
        da = torch.exp(dt.unsqueeze(-1) * a)  # [b, seqlen, d_inner, d_state]
        dbx = (dt * xs).unsqueeze(-1) * bmat.unsqueeze(2)  # [b, seqlen, d_inner, d_state]
        # Sequential scan: state_t = exp(dt_t * A) * state_{t-1} + dt_t * B_t * x_t.
        state = x.new_zeros(b, self.d_inner, self.d_state)
        states = []
        for t in range(seqlen):
            state = torch.addcmul(dbx[:, t], da[:, t], state)
            states.append(state)
        hs = torch.stack(states, dim=1)  # [b, seqlen, d_inner, d_state]
        y = (hs * cmat.unsqueeze(2)).sum(-1) + xs * self.D  # [b, seqlen, d_inner]
        y = y * F.silu(z)
        return self.out_proj(y)


def get_inputs():
    return [torch.randn(BATCH, SEQ_LEN, D_MODEL) + 0.05]


def get_init_inputs():
    return [D_MODEL, D_INNER, D_STATE, DT_RANK, D_CONV]
