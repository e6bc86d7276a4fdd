# task: level1/relu
# expect: rejected
# exploit: E104, names whose possible references double a line (`a3 = a2.nn or a2.cuda`): the scan follows every reference a name may hold, in the trusted process before any deadline, and 18 such lines kept it busy for 12 minutes (red-team round 13, with tuples). A name holds at most 64 in the scan; past that the file is refused (scan-limit)
import torch
import torch.nn as nn
import triton
import triton.language as tl


class _Unused:
    def pick(self, a0=torch):
        a1 = a0.nn or a0.cuda if a0 else a0.backends
        a2 = a1.nn or a1.cuda if a1 else a1.backends
        a3 = a2.nn or a2.cuda if a2 else a2.backends
        a4 = a3.nn or a3.cuda if a3 else a3.backends
        a5 = a4.nn or a4.cuda if a4 else a4.backends
        a6 = a5.nn or a5.cuda if a5 else a5.backends
        a7 = a6.nn or a6.cuda if a6 else a6.backends
        a8 = a7.nn or a7.cuda if a7 else a7.backends
        a9 = a8.nn or a8.cuda if a8 else a8.backends
        a10 = a9.nn or a9.cuda if a9 else a9.backends
        a11 = a10.nn or a10.cuda if a10 else a10.backends
        a12 = a11.nn or a11.cuda if a11 else a11.backends
        a13 = a12.nn or a12.cuda if a12 else a12.backends
        a14 = a13.nn or a13.cuda if a13 else a13.backends
        a15 = a14.nn or a14.cuda if a14 else a14.backends
        a16 = a15.nn or a15.cuda if a15 else a15.backends
        a17 = a16.nn or a16.cuda if a16 else a16.backends
        a18 = a17.nn or a17.cuda if a17 else a17.backends
        a19 = a18.nn or a18.cuda if a18 else a18.backends
        a20 = a19.nn or a19.cuda if a19 else a19.backends
        a21 = a20.nn or a20.cuda if a20 else a20.backends
        a22 = a21.nn or a21.cuda if a21 else a21.backends
        a23 = a22.nn or a22.cuda if a22 else a22.backends
        a24 = a23.nn or a23.cuda if a23 else a23.backends
        a25 = a24.nn or a24.cuda if a24 else a24.backends
        a26 = a25.nn or a25.cuda if a25 else a25.backends
        a27 = a26.nn or a26.cuda if a26 else a26.backends
        a28 = a27.nn or a27.cuda if a27 else a27.backends
        a29 = a28.nn or a28.cuda if a28 else a28.backends
        a30 = a29.nn or a29.cuda if a29 else a29.backends
        a31 = a30.nn or a30.cuda if a30 else a30.backends
        a32 = a31.nn or a31.cuda if a31 else a31.backends
        a33 = a32.nn or a32.cuda if a32 else a32.backends
        a34 = a33.nn or a33.cuda if a33 else a33.backends
        a35 = a34.nn or a34.cuda if a34 else a34.backends
        a36 = a35.nn or a35.cuda if a35 else a35.backends
        a37 = a36.nn or a36.cuda if a36 else a36.backends
        a38 = a37.nn or a37.cuda if a37 else a37.backends
        a39 = a38.nn or a38.cuda if a38 else a38.backends
        a40 = a39.nn or a39.cuda if a39 else a39.backends
        return a40


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
