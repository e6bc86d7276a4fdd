# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E52 (a code generator fed a name that is no identifier): a class body writes `box,<any expression>` into its own __annotations__ (a read of the name, which the dunder-method rule did not look at), and @dataclass pastes that field name into the `__eq__` it execs from dataclasses.py; the smuggled expression runs torch.relu with the dispatch guard off. Caught now by dunder-name and, without the scan, by the compile hook (a dataclass field whose name str.isidentifier refuses: dynamic-code)
import dataclasses

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def touch_kernel(out_ptr):
    tl.store(out_ptr, 0.0)


HIDDEN = ("self.box.append((g:=__import__('torch')._C._DisableTorchDispatch(), "
          "g.__enter__(), __import__('torch').relu(self.box[0]), g.__exit__(None,None,None))[2])")


@dataclasses.dataclass(init=False, repr=False, eq=True, match_args=False)
class Probe:
    box: list
    __annotations__["box," + HIDDEN] = int


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = Probe()
        p.box = [x]
        p == p  # the generated __eq__ evaluates the smuggled expression
        touch_kernel[(1,)](torch.empty(1, device=x.device))
        return p.box[1]
