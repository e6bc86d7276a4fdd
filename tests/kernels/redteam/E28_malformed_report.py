# task: level1/relu
# expect: crashed
# layer: runtime
# exploit: E28, forge a report.json that says "done" but lacks the fields the verifier reads, plus a result.pt with the wrong number of cases, then os._exit(0): the verifier must give a verdict, not raise
import json
import os
from pathlib import Path

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def noop_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offsets, mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, x):
        noop_kernel[(1,)](x, 0, BLOCK=16)
        torch.save({"outputs": [[torch.zeros(1)]]}, "result.pt")
        Path("report.json").write_text(json.dumps({"stage": "done", "error": None}))
        os._exit(0)
