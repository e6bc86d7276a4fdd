# task: level1/relu
# expect: runtime_error
# exploit: E75, an exception message naming candidate.py at a line number of 5000 digits: int() raised on the trusted side and the verification ended with no verdict (red-team round 6). The line number is read bounded
# idea: choosing its own failure class. On the CPU a runtime error at the first call goes
# through offgpu.cuda_required, which takes the LAST `File "...candidate.py", line N` of the
# worker's traceback and calls int(N). The candidate's own exception message is the last
# line of that traceback, so a message holding `File "candidate.py", line <5000 digits>`
# makes int() raise ValueError (Python's 4300-digit limit) in the trusted process: verify()
# raises, no verdict at all (a bench's `verifier_error`, a service's error) instead of
# runtime_error. The kernel below is wrong anyway (never reached).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def zero_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, 0.0, mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        if n > 0:
            raise RuntimeError('File "candidate.py", line ' + "9" * 5000)
        zero_kernel[(triton.cdiv(n, 1024),)](out, n, BLOCK=1024)
        return out
