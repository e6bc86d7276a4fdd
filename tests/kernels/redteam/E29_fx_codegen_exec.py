# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E29 (exec in disguise through a code generator): torch.fx pastes a call_method target that is not an identifier verbatim into `getattr(a, "...")` of the forward it compiles with exec, so a target built at run time runs any Python; here it switches the dispatch guard off around torch.relu and a one-store kernel stands for "a kernel ran". Passed before; now torch.fx and torch.ao (whose quantization traces modules with fx) are rejected under any alias (code-generation)
import torch
import torch.fx
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def touch_kernel(out_ptr):
    tl.store(out_ptr, 0.0)


# Python source, reversed so that no name in it is a literal of this file; run by fx's
# code generator, which pastes a call_method target that is not an identifier verbatim into
# the forward it compiles with exec.
HIDDEN = ('\n)a(uler.hcrot = ]0[b    \n:)(hctapsiDhcroTelbasiD_.C_.hcrot htiw\nhcrot tropmi')[::-1]
TARGET = 'contiguous"), exec(bytes(' + str(list(HIDDEN.encode())) + '), {"a": a, "b": b}), getattr(a, "contiguous'


def _smuggled():
    graph = torch.fx.Graph()
    a = graph.placeholder("a")
    b = graph.placeholder("b")
    graph.output(graph.call_method(TARGET, (a,)))
    return torch.fx.GraphModule(nn.Module(), graph)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.run = _smuggled()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        box = [None]
        self.run(x, box)  # relu by torch, the dispatch guard switched off
        out = box[0]
        touch_kernel[(1,)](torch.empty(1, device=x.device))  # "a kernel of its own ran"
        return out
