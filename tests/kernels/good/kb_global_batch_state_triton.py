# task: tests/tasks/fixtures/kb_semantics/33_Global_Batch_State.py
# expect: passed
# why: its model reads the module-level batch_size as the reference's does, in __init__ and in
# forward; every shape the verifier checks (the declared one, the CPU's copy, the secret twin)
# sets it in the candidate's module too, the declared one back to the file's own after the twin
import torch
import torch.nn as nn
import triton
import triton.language as tl

batch_size = 8


@triton.jit
def add_kernel(x_ptr, h_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    h = tl.load(h_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + h, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.hidden = torch.linspace(-1.0, 1.0, batch_size * features).reshape(batch_size, features)

    def forward(self, x):
        x = x.contiguous()
        hidden = self.hidden.to(x.device)
        out = torch.empty_like(x)
        n = x.numel()
        add_kernel[(triton.cdiv(n, 256),)](x, hidden, out, n, BLOCK=256)
        return out.view(batch_size, -1)  # the size being checked, in forward too
