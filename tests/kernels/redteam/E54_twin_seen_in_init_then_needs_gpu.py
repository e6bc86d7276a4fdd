# task: level1/relu
# expect: runtime_error
# exploit: E54, a kernel hard-coded to the declared sizes learns of the secret twin in __init__ (every model was built before call 0) and asks for CUDA at call 0: needs_gpu, no penalty. Models are now built at each shape's first call
import torch
import torch.nn as nn
import triton
import triton.language as tl

ROWS = 37  # level1/relu's small shape; the worker writes each shape's sizes here
COLS = 129
SEEN = []  # sizes each model was built with (every model is built before the first call)


@triton.jit
def relu_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < 4773  # hard-coded 37 * 129: wrong at any other size
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        SEEN.append((ROWS, COLS))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if any(s != (37, 129) for s in SEEN):
            torch.cuda.synchronize()  # the secret twin was built: "needs CUDA" at call 0
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(4773, 1024),)](x, out, BLOCK=1024)
        return out
