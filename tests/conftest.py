"""Fixtures shared across test folders."""

import os
from pathlib import Path

import pytest

from .llm.server import LoopbackLLM

# Verify and ranking workers run in an empty cwd, where a relative PYTHONPATH=src (how tests
# run on the GPU machine, which has no install) finds nothing.
_SRC = str(Path(__file__).resolve().parent.parent / "src")
os.environ["PYTHONPATH"] = os.pathsep.join(
    [_SRC] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != "src"])


@pytest.fixture
def server():
    """A real HTTP server on loopback speaking the OpenAI and Anthropic protocols, answering
    from a script (tests/llm/server.py)."""
    s = LoopbackLLM()
    yield s
    s.close()
