"""Fixtures shared across test folders."""

import pytest

from .llm.server import LoopbackLLM


@pytest.fixture
def server():
    """A real HTTP server on loopback speaking the OpenAI and Anthropic protocols, answering
    from a script (tests/llm/server.py)."""
    s = LoopbackLLM()
    yield s
    s.close()
