import pytest

from warpsmith.llm import ProviderSettings, RetryPolicy

# Short waits so the retry tests take milliseconds; a long timeout nowhere.
FAST = ProviderSettings(timeout_s=2.0, cache=False,
                        retry=RetryPolicy(max_retries=3, backoff_s=0.01, backoff_max_s=0.05))


@pytest.fixture
def env(monkeypatch, tmp_path, server):
    """Keys and base URLs as a user sets them, pointing at the loopback server."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-loopback")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("WARPSMITH_HOME", str(tmp_path / "home"))
    for name in ("WARPSMITH_PRICES", "WARPSMITH_LLM_CACHE", "WARPSMITH_OPENAI_COMPAT_KEY"):
        monkeypatch.delenv(name, raising=False)
    return server
