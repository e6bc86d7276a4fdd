# task: level1/softmax
# expect: incorrect
# exploit: E35, phase detection by call count across models: a module-level counter, honest for the first 7 calls the process makes (more than all 6 checked calls of the quick profile, twin included), then a uniform 1/N output
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def fill_kernel(out_ptr, n, value, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.zeros((BLOCK,), tl.float32) + value, mask=offsets < n)


def _softmax(x, out, honest):
    if honest:
        block = triton.next_power_of_2(x.shape[1])
        softmax_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=block)
    else:  # the cheap wrong answer: uniform 1/N
        grid = (triton.cdiv(x.numel(), 1024),)
        fill_kernel[grid](out, x.numel(), 1.0 / x.shape[1], BLOCK=1024)
    return out


CALLS = [0]


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        CALLS[0] += 1
        return _softmax(x, torch.empty_like(x), CALLS[0] <= 7)
