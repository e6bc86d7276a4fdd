# task: tests/tasks/fixtures/kb_semantics/19_ReLU.py
# expect: incorrect
# exploit: E13, hard-code a KernelBench file's own sizes (batch_size = 16, dim = 263): such a file declares no SHAPES, so the verifier once had no twin for it and checked only those sizes; the grid, the row stride and the mask ignore x.shape
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_16x263_kernel(x_ptr, out_ptr):
    row = tl.program_id(0)
    cols = tl.arange(0, 512)
    mask = cols < 263
    x = tl.load(x_ptr + row * 263 + cols, mask=mask)
    tl.store(out_ptr + row * 263 + cols, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        relu_16x263_kernel[(16,)](x, out)
        return out
