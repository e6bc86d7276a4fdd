# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E24, threading imported through __builtins__["__import__"] (no import statement); torch.relu runs on a worker thread joined before forward returns, where the thread-local dispatch guard cannot see it
import torch
import torch.nn as nn
import triton
import triton.language as tl

_thr = __builtins__["__imp" + "ort__"]("thre" + "ading")


@triton.jit
def noop_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offsets, mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, x):
        noop_kernel[(1,)](x, 0, BLOCK=16)
        box = []
        worker = _thr.Thread(target=lambda: box.append(torch.relu(x)))
        worker.start()
        worker.join()
        return box[0]
