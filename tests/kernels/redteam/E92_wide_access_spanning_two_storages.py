# task: level1/sum_last_dim
# expect: runtime_error
# layer: runtime
# exploit: E92, split-row partial sums by a plain load-add-store, the second program through an int64 lane whose first half lies in a scratch tensor below the slot (red-team round 10): its units were the scratch tensor's, 8 bytes, and the slot 4 bytes in was never listed. An access whose lanes reach more than one storage is compared bytewise
# class: split-row partial sums with a plain load-add-store of one fp32 slot from two programs: one program uses an fp32 pointer, the other an int64 pointer block whose first lane lies in a separate scratch tensor at a lower address, so the race check sizes the wide access by the scratch storage's unit (8 bytes) and the fp32 slot (4 bytes into the wide element) is never listed for it: the two programs' stores/loads of the same 4 bytes never meet; exact one program at a time, lost updates on a GPU
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def split_sum_kernel(x_ptr, acc_ptr, acc64_ptr, scr64_ptr, n_cols,
                     HALF: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    idx = tl.arange(0, BLOCK)
    cols = chunk * HALF + idx
    m = (idx < HALF) & (cols < n_cols)
    part = tl.sum(tl.load(x_ptr + row * n_cols + cols, mask=m, other=0.0), axis=0)
    one = tl.arange(0, 1)
    if chunk == 0:
        slot = acc_ptr + 2 * row + 1 + one
        old = tl.load(slot)
        tl.store(slot, old + part)
    else:
        lane = tl.arange(0, 2)
        ptrs = tl.where(lane == 0, scr64_ptr + row + lane, acc64_ptr + row + lane * 0)
        bits = tl.load(ptrs)
        old = (bits >> 32).to(tl.int32).to(tl.float32, bitcast=True)
        new = (old + part).to(tl.int32, bitcast=True).to(tl.int64)
        newbits = (bits & 0xFFFFFFFF) | (new << 32)
        tl.store(ptrs, tl.where(lane == 0, bits, newbits))


@triton.jit
def gather_kernel(acc_ptr, out_ptr, rows, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + r, tl.load(acc_ptr + 2 * r + 1, mask=r < rows), mask=r < rows)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        scratch = torch.zeros(rows, dtype=torch.int64, device=x.device)
        acc = torch.zeros(max(2 * rows, 1 << 20), dtype=torch.float32, device=x.device)
        keep = [scratch]
        while scratch.data_ptr() > acc.data_ptr() and len(keep) < 64:
            scratch = torch.zeros(rows, dtype=torch.int64, device=x.device)
            keep.append(scratch)
        half = triton.next_power_of_2(triton.cdiv(cols, 2))
        split_sum_kernel[(rows, 2)](x, acc, acc.view(torch.int64), scratch, cols,
                                    HALF=triton.cdiv(cols, 2), BLOCK=half)
        out = torch.empty(rows, dtype=x.dtype, device=x.device)
        gather_kernel[(triton.cdiv(rows, 128),)](acc, out, rows, BLOCK=128)
        return out
