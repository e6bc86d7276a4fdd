"""The official SDK clients against a loopback server speaking each vendor's protocol."""

import dataclasses
import threading
import time

import pytest

from warpsmith.llm import Request, RetryPolicy, make_provider

from .conftest import FAST
from .server import Reply

SPECS = ["openai:gpt-4o", "anthropic:claude-haiku-4-5"]
# gpt-4o: 800 fresh input at $2.50/M, 200 cached at $1.25/M, 500 output at $10/M.
# claude-haiku-4-5: 800 fresh at $1/M, 200 cache reads at $0.10/M, 500 output at $5/M.
COSTS = {"openai:gpt-4o": 0.00725, "anthropic:claude-haiku-4-5": 0.00332}
REQUEST = Request.chat("Write a ReLU kernel.", system="You write Triton.", temperature=0.2,
                       max_tokens=4096, seed=7)


@pytest.mark.parametrize("spec", SPECS)
def test_completion_with_usage_and_cost(env, spec):
    response = make_provider(spec, FAST).complete(REQUEST)
    assert response.ok, response.error
    assert "class ModelNew" in response.text
    assert response.usage.input_tokens == 1000
    assert response.usage.cached_input_tokens == 200
    assert response.usage.output_tokens == 500
    assert response.cost_usd == pytest.approx(COSTS[spec])
    assert (response.attempts, response.cached) == (1, False)
    assert response.provider == spec.split(":")[0]


def test_openai_request_body(env):
    make_provider("openai:gpt-4o", FAST).complete(REQUEST)
    body = env.requests[0]
    assert body["_path"] == "/v1/chat/completions"
    assert body["messages"][0] == {"role": "system", "content": "You write Triton."}
    assert body["max_completion_tokens"] == 4096
    assert (body["temperature"], body["seed"]) == (0.2, 7)
    assert "n" not in body


def test_anthropic_request_body(env):
    make_provider("anthropic:claude-haiku-4-5", FAST).complete(REQUEST)
    body = env.requests[0]
    assert body["_path"] == "/v1/messages"
    assert body["system"] == "You write Triton."
    assert body["messages"] == [{"role": "user", "content": "Write a ReLU kernel."}]
    assert (body["max_tokens"], body["temperature"]) == (4096, 0.2)


@pytest.mark.parametrize("spec, extra", [
    ("openai:o3", {"reasoning_effort": "high"}),
    ("anthropic:claude-haiku-4-5", {"thinking": {"type": "enabled", "budget_tokens": 2048}}),
])
def test_vendor_fields_pass_through(env, spec, extra):
    make_provider(spec, FAST).complete(dataclasses.replace(REQUEST, extra_body=extra))
    body = env.requests[0]
    assert all(body[k] == v for k, v in extra.items())
    assert body["temperature"] == 0.2


def test_openai_compatible_uses_its_base_url_and_max_tokens(env, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL")
    spec = f"openai-compatible:{env.url}/v1#Qwen/Qwen3-32B"
    response = make_provider(spec, FAST).complete(REQUEST)
    assert response.ok and response.provider == "openai-compatible"
    assert response.cost_usd is None  # no price for a self-hosted model: unknown, not zero
    assert env.requests[0]["max_tokens"] == 4096


@pytest.mark.parametrize("spec", SPECS)
def test_reasoning_is_kept_apart(env, spec):
    env.script(Reply(text="```python\nx = 1\n```", reasoning="first, tile the rows"))
    response = make_provider(spec, FAST).complete(REQUEST)
    assert response.choices[0].reasoning == "first, tile the rows"
    assert response.text == "```python\nx = 1\n```"


@pytest.mark.parametrize("spec", SPECS)
def test_several_choices(env, spec):
    response = make_provider(spec, FAST).complete(dataclasses.replace(REQUEST, n=2))
    assert len(response.choices) == 2
    assert response.usage.output_tokens == 1000


def test_429_honours_retry_after_seconds(env):
    # Backoff alone would wait 2.5-5 s: finishing in about 1 s shows Retry-After was used.
    settings = dataclasses.replace(FAST, retry=RetryPolicy(max_retries=2, backoff_s=5.0))
    env.script(Reply(status=429, headers={"retry-after": "1"}))
    start = time.monotonic()
    response = make_provider("openai:gpt-4o", settings).complete(REQUEST)
    elapsed = time.monotonic() - start
    assert response.ok and response.retries == 1
    assert 0.95 <= elapsed < 2.4
    assert len(env.requests) == 2


def test_429_honours_retry_after_ms(env):
    settings = dataclasses.replace(FAST, retry=RetryPolicy(max_retries=2, backoff_s=5.0))
    env.script(Reply(status=429, headers={"retry-after-ms": "200"}))
    start = time.monotonic()
    response = make_provider("anthropic:claude-haiku-4-5", settings).complete(REQUEST)
    assert response.ok and response.retries == 1
    assert 0.19 <= time.monotonic() - start < 2.0


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("status", [500, 503, 529])
def test_server_error_then_success(env, spec, status):
    env.script(Reply(status=status))
    response = make_provider(spec, FAST).complete(REQUEST)
    assert response.ok and response.retries == 1
    assert len(env.requests) == 2


@pytest.mark.parametrize("spec", SPECS)
def test_timeout_then_success(env, spec):
    settings = dataclasses.replace(FAST, timeout_s=0.3)
    env.script(Reply(delay_s=1.5))
    response = make_provider(spec, settings).complete(REQUEST)
    assert response.ok and response.retries == 1


@pytest.mark.parametrize("spec", SPECS)
def test_gives_up_with_the_error_as_data(env, spec):
    env.script(*[Reply(status=429)] * 4)
    response = make_provider(spec, FAST).complete(REQUEST)
    assert not response.ok
    assert response.error.kind == "rate_limit" and response.error.status == 429
    assert "gave up after 4 attempts" in response.error.message
    assert response.attempts == 4 and len(env.requests) == 4  # ours only: SDK retries off
    assert response.choices == () and response.text == ""


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("status, kind", [(400, "bad_request"), (401, "auth")])
def test_client_errors_are_not_retried(env, spec, status, kind):
    env.script(Reply(status=status))
    response = make_provider(spec, FAST).complete(REQUEST)
    assert response.error.kind == kind and response.attempts == 1
    assert len(env.requests) == 1


@pytest.mark.parametrize("spec", SPECS)
def test_malformed_body(env, spec):
    env.script(Reply(raw=b'{"choices": [ truncated'))
    response = make_provider(spec, FAST).complete(REQUEST)
    assert response.error.kind == "bad_response" and response.attempts == 1


def test_connection_refused_is_retried_then_reported(env, monkeypatch):
    env.close()  # nothing listens on the port any more
    response = make_provider("openai:gpt-4o", FAST).complete(REQUEST)
    assert response.error.kind == "connection" and response.attempts == 4


def test_concurrency_limit_bounds_requests_in_flight(env):
    settings = dataclasses.replace(FAST, concurrency=2)
    env.script(*[Reply(delay_s=0.15)] * 6)
    provider = make_provider("openai:gpt-4o", settings)
    threads = [threading.Thread(target=provider.complete, args=(REQUEST,)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(env.requests) == 6
    assert env.max_in_flight == 2


def test_cache_answers_repeats_without_the_server(env, tmp_path):
    settings = dataclasses.replace(FAST, cache=True, cache_path=tmp_path / "llm.sqlite")
    first = make_provider("openai:gpt-4o", settings).complete(REQUEST)
    # A new provider on the same file: a re-run of the same prompt costs nothing.
    again = make_provider("openai:gpt-4o", settings).complete(REQUEST)
    assert len(env.requests) == 1
    assert (first.cached, again.cached) == (False, True)
    assert again.cost_usd == 0.0 and first.cost_usd > 0
    assert again.attempts == 0
    assert again.text == first.text and again.usage == first.usage


@pytest.mark.parametrize("change", [{"temperature": 0.9}, {"max_tokens": 100}, {"seed": 8},
                                    {"n": 2}, {"sample": 1}, {"extra_body": {"top_p": 0.5}}])
def test_cache_misses_on_other_sampling_settings(env, tmp_path, change):
    settings = dataclasses.replace(FAST, cache=True, cache_path=tmp_path / "llm.sqlite")
    provider = make_provider("openai:gpt-4o", settings)
    provider.complete(REQUEST)
    response = provider.complete(dataclasses.replace(REQUEST, **change))
    assert not response.cached and len(env.requests) == 2


def test_cache_keeps_no_failures(env, tmp_path):
    settings = dataclasses.replace(FAST, cache=True, cache_path=tmp_path / "llm.sqlite",
                                   retry=RetryPolicy(max_retries=0))
    env.script(Reply(status=500))
    provider = make_provider("anthropic:claude-haiku-4-5", settings)
    assert not provider.complete(REQUEST).ok
    assert provider.complete(REQUEST).ok
    assert len(env.requests) == 2


def test_cache_path_from_config(env, tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSMITH_LLM_CACHE", str(tmp_path / "elsewhere.sqlite"))
    make_provider("openai:gpt-4o", dataclasses.replace(FAST, cache=True)).complete(REQUEST)
    assert (tmp_path / "elsewhere.sqlite").is_file()


def test_price_override_from_config(env, tmp_path, monkeypatch):
    prices = tmp_path / "prices.toml"
    prices.write_text('["gpt-4o"]\ninput = 1.0\noutput = 2.0\n')
    monkeypatch.setenv("WARPSMITH_PRICES", str(prices))
    response = make_provider("openai:gpt-4o", FAST).complete(REQUEST)
    assert response.cost_usd == pytest.approx((1000 * 1.0 + 500 * 2.0) / 1e6)
