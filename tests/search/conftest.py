"""Shared by the search tests: a private store and home per test, and the model spec that
points the openai-compatible provider at the loopback server (tests/conftest.py)."""

import pytest


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSMITH_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "store.sqlite"


def model(server) -> str:
    return f"openai-compatible:{server.url}/v1#loopback-coder"
