"""Spec strings, keys from the environment, and clear failures for what the user must fix."""

import sys

import pytest

from warpsmith.errors import UsageError
from warpsmith.llm import ProviderSpec, Request, make_provider, parse_spec

from .conftest import FAST


@pytest.mark.parametrize("spec, parsed", [
    ("openai:gpt-5", ProviderSpec("openai", "gpt-5")),
    ("anthropic:claude-opus-4-5", ProviderSpec("anthropic", "claude-opus-4-5")),
    ("openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-32B",
     ProviderSpec("openai-compatible", "Qwen/Qwen3-32B", "http://localhost:8000/v1")),
    ("openai-compatible:http://127.0.0.1:11434/v1#qwen3:32b",
     ProviderSpec("openai-compatible", "qwen3:32b", "http://127.0.0.1:11434/v1")),
    ("hf:/models/tiny-coder", ProviderSpec("hf", "/models/tiny-coder")),
])
def test_parse_spec_round_trips(spec, parsed):
    assert parse_spec(spec) == parsed
    assert str(parsed) == spec


def test_unknown_provider_lists_the_valid_ones():
    with pytest.raises(UsageError) as e:
        parse_spec("gemini:pro")
    for form in ("openai:MODEL", "anthropic:MODEL", "openai-compatible:BASE_URL#MODEL",
                 "hf:PATH"):
        assert form in str(e.value)


@pytest.mark.parametrize("spec", ["gpt-4o", "openai:", "openai-compatible:localhost#m",
                                  "openai-compatible:http://localhost:8000/v1",
                                  "openai-compatible:http://localhost:8000/v1#"])
def test_malformed_specs(spec):
    with pytest.raises(UsageError):
        parse_spec(spec)


@pytest.mark.parametrize("spec, variable", [("openai:gpt-4o", "OPENAI_API_KEY"),
                                            ("anthropic:claude-haiku-4-5",
                                             "ANTHROPIC_API_KEY")])
def test_missing_key_names_the_variable(env, monkeypatch, spec, variable):
    monkeypatch.delenv(variable)
    with pytest.raises(UsageError, match=variable):
        make_provider(spec, FAST)


@pytest.mark.parametrize("variables, sent", [
    ({"WARPSMITH_OPENAI_COMPAT_KEY": "compat", "OPENAI_API_KEY": "openai"}, "Bearer compat"),
    ({"OPENAI_API_KEY": "openai"}, "Bearer openai"),
    ({}, "Bearer not-needed"),  # a local server needs none, the SDK wants one
])
def test_compatible_server_key(env, monkeypatch, variables, sent):
    monkeypatch.delenv("OPENAI_API_KEY")
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    response = make_provider(f"openai-compatible:{env.url}/v1#local", FAST).complete(
        Request.chat("hi"))
    assert response.ok
    assert env.requests[0]["_auth"] == sent


def test_hf_without_transformers_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)  # as if not installed: import fails
    with pytest.raises(UsageError, match=r"pip install 'warpsmith\[hf\]'"):
        make_provider("hf:/models/tiny", FAST)
