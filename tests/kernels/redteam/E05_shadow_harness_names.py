# task: level1/relu
# expect: incorrect
# exploit: E05, harness shadowing: define get_inputs, get_init_inputs and a Model of our own (def/class statements, not Name references) hoping a harness that concatenates or imports sources picks up our all-zero inputs and identity reference
import torch
import torch.nn as nn
import triton
import triton.language as tl


def get_inputs():
    return [torch.zeros(37, 129)]


def get_init_inputs():
    return []


class Model(nn.Module):
    def forward(self, x):
        return x * 0


@triton.jit
def zero_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.zeros((BLOCK,), tl.float32), mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        zero_kernel[(triton.cdiv(x.numel(), 1024),)](out, x.numel(), BLOCK=1024)
        return out
