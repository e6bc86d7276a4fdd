"""Which strategies ask a model: one answer (search.registry), the same from the CLI, MCP and
the search itself."""

import pytest

from warpsmith.errors import UsageError
from warpsmith.search.registry import LIBRARY, STRATEGIES, model_and_strategy, needs_model

from .test_cli_errors import one_line_error, run


def test_the_registry_answers_for_every_strategy():
    assert {s for s in STRATEGIES if not needs_model(s)} == {"library", "tune"}
    assert model_and_strategy(None, None) == (LIBRARY, LIBRARY)
    assert model_and_strategy("openai:m", None) == ("openai:m", "refine")
    assert model_and_strategy(None, "tune") == (LIBRARY, "tune")
    with pytest.raises(UsageError, match="asks a model"):
        model_and_strategy(None, "evolve")
    with pytest.raises(UsageError, match="asks no model"):
        model_and_strategy("openai:m", "tune")
    with pytest.raises(UsageError, match="unknown strategy"):
        needs_model("nope")


def test_mcp_reaches_tune_without_a_model_and_refuses_it_with_one():
    pytest.importorskip("mcp")
    from mcp.server.mcpserver.exceptions import ToolError

    from warpsmith.serve.mcp.search import _model_and_strategy

    assert _model_and_strategy(None, "tune") == (LIBRARY, "tune")
    with pytest.raises(ToolError, match="asks no model"):
        _model_and_strategy("openai:m", "tune")
    with pytest.raises(ToolError, match="asks a model"):
        _model_and_strategy(None, "refine")


def test_the_cli_says_the_same_in_its_option_names(tmp_path):
    res = run("optimize", "level1/relu", "--strategy", "evolve", tmp=tmp_path)
    one_line_error(res, "--strategy evolve asks a model", "--model SPEC")
    res = run("optimize", "level1/relu", "--strategy", "tune", "--model", "openai:m",
              tmp=tmp_path)
    one_line_error(res, "--strategy tune asks no model", "leave out --model")
