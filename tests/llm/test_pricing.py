"""Dollars from tokens: built-in prices, dated snapshots, overrides, and no guessing."""

import json

import pytest

from warpsmith.errors import UsageError
from warpsmith.llm import Price, PriceTable, Usage

USAGE = Usage(input_tokens=1_000_000, output_tokens=100_000, cached_input_tokens=400_000)


def test_builtin_price():
    # 600k fresh at $1.25/M, 400k cached at $0.125/M, 100k out at $10/M
    assert PriceTable.load().cost("openai", "gpt-5", USAGE) == pytest.approx(
        0.75 + 0.05 + 1.0)


@pytest.mark.parametrize("model, base", [("gpt-4o-2024-08-06", "gpt-4o"),
                                         ("claude-haiku-4-5-20251001", "claude-haiku-4-5"),
                                         ("claude-3-7-sonnet-latest", "claude-3-7-sonnet")])
def test_dated_snapshots_take_their_base_price(model, base):
    table = PriceTable.load()
    assert table.lookup("x", model) == table.lookup("x", base) is not None


@pytest.mark.parametrize("model", ["gpt-4o-audio-preview", "Qwen/Qwen3-32B", "gpt-4o-mini-tts",
                                   "deepseek-chat", ""])
def test_unknown_model_costs_none(model):
    assert PriceTable.load().cost("openai", model, USAGE) is None


def test_no_cached_price_means_input_price():
    table = PriceTable({"m": Price(2.0, 4.0)})
    assert table.cost("p", "m", USAGE) == pytest.approx(2.0 + 0.4)


def test_toml_override_wins_and_adds(tmp_path):
    path = tmp_path / "prices.toml"
    path.write_text('["gpt-5"]\ninput = 1\noutput = 1\n\n'
                    '["openai-compatible:Qwen/Qwen3-32B"]\ninput = 0\noutput = 0\n')
    table = PriceTable.load(path)
    assert table.cost("openai", "gpt-5", USAGE) == pytest.approx(1.1)
    assert table.cost("openai-compatible", "Qwen/Qwen3-32B", USAGE) == 0.0
    assert table.cost("hf", "Qwen/Qwen3-32B", USAGE) is None  # keyed to its provider
    assert table.cost("openai", "gpt-4o", USAGE) is not None  # the rest stays built in


def test_json_override(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"deepseek-chat": {"input": 0.28, "output": 0.42,
                                                  "cached_input": 0.028}}))
    cost = PriceTable.load(path).cost("openai-compatible", "deepseek-chat", USAGE)
    assert cost == pytest.approx(0.6 * 0.28 + 0.4 * 0.028 + 0.1 * 0.42)


@pytest.mark.parametrize("text", ['["m"]\ninput = 1\n', '["m"]\ninput = 1\noutput = 1\nfoo = 2\n',
                                  "not toml [", 'm = 3\n'])
def test_bad_override_is_a_usage_error_naming_the_file(tmp_path, text):
    path = tmp_path / "prices.toml"
    path.write_text(text)
    with pytest.raises(UsageError, match="prices.toml"):
        PriceTable.load(path)


def test_missing_override_file(tmp_path):
    with pytest.raises(UsageError, match="nope.toml"):
        PriceTable.load(tmp_path / "nope.toml")
