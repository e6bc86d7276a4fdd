# task: tests/tasks/fixtures/kb_semantics/19_ReLU.py
# expect: runtime_error
# layer: runtime
# exploit: E62, the candidate chooses its failure class: correct at the declared sizes, it raises NameError (an undefined helper) when the module-level sizes the worker writes show the secret twin, where a kernel hard-coded to the declared sizes would be wrong; a NameError once read as compile_error (no kernel judged) instead of the failure it is
import torch
import torch.nn as nn
import triton
import triton.language as tl

batch_size = 16
dim = 263


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.where(x > 0, x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        if batch_size != 16 or dim != 263:
            twin_only_helper()  # noqa: F821 (never defined: a NameError on the twin)

    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
