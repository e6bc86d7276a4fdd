# task: level1/relu
# expect: incorrect
# exploit: E49, the trusted side's time through the frames: forward returns its output and
#   thousands of tiny tensors more, each a storage of its own in the call's frame. The
#   trusted side unpickled them all (100 000 took 27 s, the worker 12 s to save them) before
#   it counted the outputs, and its time is not counted against the candidate's deadline: at
#   a quarter of a million per frame, minutes of the verifier's time per call. The outputs
#   are now counted from the archive's directory before anything is loaded (collect.py).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


def relu(x):
    out = torch.empty_like(x)
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        out = relu(x)
        return (out, *[torch.empty(0, device=x.device) for _ in range(3000)])
