"""static/device.queries_device: the ways host code asks which device or machine it is on
(E50). The CPU interpreter runs only the CPU path of such a candidate, so it is needs_gpu."""

import pytest

from warpsmith.verify.static.device import queries_device

HEAD = "import torch\nimport triton\nimport triton.language as tl\n"

ASKS = {
    "flag": "def f(x):\n    return 1 if x.is_cuda else 2\n",
    "is_cpu": "def f(x):\n    if x.is_cpu:\n        return 1\n",
    "device_type": "def f(x):\n    return x.device.type == 'cuda'\n",
    "alias": "def f(x):\n    d = x.device\n    return d.type\n",
    "parameter": "def f(x, device):\n    return device.index\n",
    "compare": "def f(x):\n    return x.device == torch.device('cuda', 0)\n",
    "stringified": "def f(x):\n    return str(x.device).startswith('c')\n",
    "f_string": "def f(x):\n    return f'{x.device}'\n",
    "key": "T = {}\ndef f(x):\n    return T[x.device]\n",
    "word": "def f(x, d):\n    return d == 'cuda:0'\n",
    "get_device": "def f(x):\n    return x.get_device() < 0\n",
    "available": "def f(x):\n    return torch.cuda.is_available()\n",
    "alias_module": "from torch import cuda as c\ndef f(x):\n    return c.is_available()\n",
    "interpreter": "def f(x):\n    return triton.knobs.runtime.interpret\n",
}

PASSES_ON = {
    "allocation": "def f(x):\n    return torch.empty_like(x, device=x.device)\n",
    "moves": "def f(x):\n    return x.to(x.device), torch.zeros(3, device='cpu')\n",
    "dtype": "def f(x):\n    return x.dtype == torch.float32 and x.is_contiguous()\n",
    "kernel_type": ("@triton.jit\ndef k(p):\n    x = tl.load(p)\n    t = x.type\n"
                    "    tl.store(p, x)\n"),
}


@pytest.mark.parametrize("name", ASKS)
def test_a_question_about_the_device_is_found(name):
    assert queries_device(HEAD + ASKS[name])


@pytest.mark.parametrize("name", PASSES_ON)
def test_passing_the_device_along_is_not_a_question(name):
    assert not queries_device(HEAD + PASSES_ON[name])
