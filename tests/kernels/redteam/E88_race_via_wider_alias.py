# task: level1/sum_last_dim
# expect: runtime_error
# layer: runtime
# exploit: E88, split-row partial sums with a plain load-add-store, the second program reaching the same four bytes through an int64 view whose element began 4 bytes before (red-team round 9): accesses compared by their first byte never met. The race check compares the units of memory each access covers
# class: cross-program race hidden from the race check: split-row partial sums by a plain
# read-modify-write; program 0 loads/stores the fp32 slot at address X, program 1 loads/stores
# the same bytes through an int64 view starting at X-4 (a pad slot). The race check compares
# start addresses only, so no two programs "touch the same address".
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_sum_kernel(x_ptr, acc_ptr, wide_ptr, n_cols, HALF: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    part = tl.program_id(1)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, HALF, BLOCK):
        cols = part * HALF + k + tl.arange(0, BLOCK)
        s += tl.load(x_ptr + row * n_cols + cols, mask=(cols < n_cols) & (k + tl.arange(0, BLOCK) < HALF), other=0.0)
    mine = tl.sum(s, axis=0)
    slot = acc_ptr + 2 * row + 1 + tl.arange(0, 1)          # fp32 value at X
    if part == 0:
        old = tl.load(slot)
        tl.store(slot, old + mine)
    else:
        wide = wide_ptr + row + tl.arange(0, 1)  # int64 view: starts at X-4, 8 bytes
        v = tl.load(wide)
        hi = (v >> 32).to(tl.int32).to(tl.float32, bitcast=True)
        new = (hi + mine).to(tl.int32, bitcast=True).to(tl.int64)
        tl.store(wide, (v & 0xFFFFFFFF) | (new << 32))


@triton.jit
def gather_kernel(acc_ptr, out_ptr, rows, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + r, tl.load(acc_ptr + 2 * r + 1, mask=r < rows, other=0.0), mask=r < rows)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        acc = torch.zeros(2 * rows, dtype=torch.float32, device=x.device)
        half = triton.next_power_of_2(triton.cdiv(cols, 2))
        partial_sum_kernel[(rows, 2)](x, acc, acc.view(torch.int64), cols, HALF=half, BLOCK=min(half, 256))
        out = torch.empty(rows, dtype=x.dtype, device=x.device)
        gather_kernel[(triton.cdiv(rows, 128),)](acc, out, rows, BLOCK=128)
        return out
