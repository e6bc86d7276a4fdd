"""A dollar budget says which price it counts with: the built-in list price and its date and
source, a user's file, or none at all."""

from warpsmith.llm.pricing import PRICE_SOURCES, PRICES_AS_OF, unpriced_note

LOCAL = "openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-32B"


def test_a_built_in_price_is_named_with_its_date_and_source():
    note = unpriced_note("openai:gpt-4.1", None)
    assert PRICES_AS_OF in note and PRICE_SOURCES["openai"] in note
    assert "$WARPSMITH_PRICES" in note


def test_an_unknown_price_is_said_and_a_users_file_settles_it(tmp_path):
    note = unpriced_note(LOCAL, None)
    assert "no price known for Qwen/Qwen3-32B" in note and "usd=" in note
    prices = tmp_path / "prices.json"
    prices.write_text('{"openai-compatible:Qwen/Qwen3-32B": {"input": 0, "output": 0}}')
    assert unpriced_note(LOCAL, prices) is None
    prices.write_text('{"gpt-4.1": {"input": 2, "output": 8}}')
    assert unpriced_note("openai:gpt-4.1", prices) is None  # the user's own price


def test_a_local_model_costs_no_dollars():
    assert unpriced_note("hf:/models/tiny", None) is None
