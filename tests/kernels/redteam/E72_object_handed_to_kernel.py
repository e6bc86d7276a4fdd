# task: level1/softmax
# expect: runtime_error
# layer: runtime
# exploit: E72, a non-callable object of the candidate's class handed to a kernel, its .softmax() called there (the first E72 fix refused callables only: red-team round 6). The worker refuses any launch argument that is not data, a kernel or triton.language's own
# idea: the E72 fix (fc8aa1e) refuses CALLABLE launch arguments that are not kernels (scan:
# lambdas, the file's functions and classes, builtins, host functions; worker: callable()).
# An INSTANCE of the file's class without __call__ is not callable and is neither a function
# nor a class of the file; the kernel calls its method `softmax` -- a name on the
# value-method allow-list, so host-python-in-kernel lets `ops.softmax(...)` through on any
# receiver. The method computes the row's softmax in host float64.
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


class RowOps:
    def softmax(self, src, dst, n):
        vals = [float(str(tl.load(src + j)).strip("[]")) for j in range(n)]
        m = max(vals)
        exps = [math.exp(v - m) for v in vals]
        total = math.fsum(exps)
        for j in range(n):
            tl.store(dst + j, exps[j] / total)


OPS = RowOps()


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, ops: tl.constexpr):
    row = tl.program_id(0)
    ops.softmax(x_ptr + row * n_cols, out_ptr + row * n_cols, n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        softmax_kernel[(rows,)](x, out, cols, ops=OPS)
        return out
