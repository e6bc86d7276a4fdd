# task: tests/tasks/fixtures/kb_semantics/33_Global_Batch_State.py
# expect: runtime_error
# why: a size written as a literal (8): the secret twin grows batch_size, the state stays 8 rows
#   and the kernel reads past its end (incorrect, from whatever lay there, until the
#   interpreter's accesses were checked: verify/child/bounds.py names the load now)
import torch
import torch.nn as nn
import triton
import triton.language as tl



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
        self.hidden = torch.linspace(-1.0, 1.0, 8 * features).reshape(8, features)

    def forward(self, x):
        x = x.contiguous()
        hidden = self.hidden.to(x.device)
        out = torch.empty_like(x)
        n = x.numel()
        add_kernel[(triton.cdiv(n, 256),)](x, hidden, out, n, BLOCK=256)
        return out
