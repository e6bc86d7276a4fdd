"""`warpsmith serve mcp` as an agent meets it: a real subprocess on stdio, driven by the official
MCP Python client, with its own store (WARPSMITH_HOME in the server's environment)."""

import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
import torch

mcp = pytest.importorskip("mcp")
pytest.importorskip("mcp.server.mcpserver")  # the 2.x SDK the server is written for

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from warpsmith.serve import mcp as server  # noqa: E402
from warpsmith.types import Timing, Verdict  # noqa: E402

from ..llm.server import Reply  # noqa: E402

KERNELS = Path(__file__).parent.parent / "kernels"
GOOD = (KERNELS / "good" / "relu_triton.py").read_text()
BAD = (KERNELS / "bad" / "incorrect_partial_write.py").read_text()
GPU = torch.cuda.is_available()  # the server runs on this same machine
TOOLS = {"list_tasks", "show_task", "verify_kernel", "time_kernel", "optimize", "find_kernels"}


def _command() -> tuple[str, list[str]]:
    script = Path(sys.executable).parent / "warpsmith"
    if script.exists():  # the installed command, as a client's config starts it
        return str(script), ["serve", "mcp"]
    return sys.executable, ["-c", "from warpsmith.cli.main import main; main()", "serve", "mcp"]


@asynccontextmanager
async def session(home: Path):
    command, args = _command()
    params = StdioServerParameters(command=command, args=args,
                                   env={"WARPSMITH_HOME": str(home)})
    with open(home / "server.log", "w") as log:
        async with stdio_client(params, errlog=log) as (read, write), \
                ClientSession(read, write) as s:
            await s.initialize()
            yield s


def converse(tmp_path, script):
    """Run `script(session)` against a fresh server, with a deadline."""
    async def main():
        with anyio.fail_after(240):
            async with session(tmp_path) as s:
                return await script(s)
    return anyio.run(main)


def text(result) -> str:
    return "\n".join(c.text for c in result.content)


def test_tools_are_listed_tasks_shown_and_timing_needs_a_gpu(tmp_path):
    async def script(s):
        tools = {t.name: t for t in (await s.list_tools()).tools}
        listed = await s.call_tool("list_tasks", {})
        shown = await s.call_tool("show_task", {"task": "level1/relu", "gpu": "H100"})
        start = time.monotonic()
        timed = await s.call_tool("time_kernel", {"task": "level1/relu", "source": GOOD})
        return tools, listed, shown, timed, time.monotonic() - start

    tools, listed, shown, timed, seconds = converse(tmp_path, script)
    assert set(tools) == TOOLS
    assert all(len(t.description) > 80 for t in tools.values())  # written for an agent
    assert tools["show_task"].annotations.read_only_hint
    assert tools["verify_kernel"].input_schema["required"] == ["task", "source"]
    assert not listed.is_error and "level1/relu" in text(listed)
    names = [t["name"] for t in listed.structured_content["tasks"]]
    assert "level1/relu" in names and listed.structured_content["errors"] == []
    assert not shown.is_error and "class Model" in text(shown) and "memory-bound" in text(shown)
    data = shown.structured_content
    assert data["gpu"] == "H100" and data["shapes"][0]["floor_us"] > 0
    if not GPU:  # no numbers made up: an error that says why, at once
        assert timed.is_error and "timing needs a CUDA GPU" in text(timed)
        assert timed.structured_content == {"timed": False,
                                            "reason": "no CUDA GPU on the server"}
        assert seconds < 5


def test_verify_good_and_bad_then_find_the_good_one(tmp_path):
    async def script(s):
        order, results = [], {}

        async def verify_good():
            results["good"] = await s.call_tool("verify_kernel", {
                "task": "level1/relu", "source": GOOD, "device": "cpu"})
            order.append("verify")

        # loaded once first: the suite's import (a second of CPU) is not what is measured, and
        # under CI's load it made the call during the verification answer after it
        await s.call_tool("list_tasks", {"suite": "builtin/level1"})
        async with anyio.create_task_group() as tg:
            tg.start_soon(verify_good)
            await anyio.sleep(0.5)  # the verification is under way on a worker thread
            listed = await s.call_tool("list_tasks", {"suite": "builtin/level1"})
            order.append("list")
        bad = await s.call_tool("verify_kernel", {"task": "level1/relu", "source": BAD})
        found = await s.call_tool("find_kernels", {"task": "level1/relu"})
        return results["good"], bad, found, listed, order

    good, bad, found, listed, order = converse(tmp_path, script)
    assert order == ["list", "verify"], "the server stopped answering during a verification"
    assert not listed.is_error
    assert not good.is_error and text(good).startswith("passed  level1/relu")
    assert "timing needs a CUDA GPU" in text(good)
    assert good.structured_content["status"] == "passed"
    assert good.structured_content["kernels_launched"] == ["relu_kernel"]
    assert not bad.is_error  # a failing candidate is an answer, not a tool error
    assert bad.structured_content["status"] == "incorrect" and bad.structured_content["reasons"]
    # the feedback an agent reads is the refine loop's (verify/render.py), cases and all
    assert "Status: incorrect" in text(bad) and "inputs" in text(bad)
    assert "do not match the reference" in text(bad) and "shape small" in text(bad)
    kernels = found.structured_content["kernels"]
    assert len(kernels) == 1 and kernels[0]["source"] == GOOD  # the passed one only
    assert "relu_kernel" in text(found)


def test_bad_arguments_are_tool_errors_and_the_server_lives_on(tmp_path):
    async def script(s):
        calls = [("verify_kernel", {"task": "level9/nothing", "source": GOOD}),
                 ("show_task", {"task": "level1/relu", "gpu": "Z80"}),
                 ("verify_kernel", {"task": "level1/relu", "source": "   "}),
                 ("verify_kernel", {"task": "level1/relu"}),
                 ("optimize", {"task": "level1/relu", "budget": "lots"}),
                 ("optimize", {"task": "level1/relu", "strategy": "refine"}),
                 ("find_kernels", {"task": "level1/relu", "limit": 0})]
        errors = [await s.call_tool(name, args) for name, args in calls]
        return errors, await s.call_tool("list_tasks", {})

    errors, after = converse(tmp_path, script)
    assert all(e.is_error for e in errors), [text(e) for e in errors]
    messages = [text(e) for e in errors]
    assert "no task level9/nothing" in messages[0]
    assert "unknown GPU 'Z80'" in messages[1]
    assert "source is empty" in messages[2]
    assert "source" in messages[3] and "required" in messages[3].lower()
    assert "bad budget item 'lots'" in messages[4]
    assert "asks a model" in messages[5]
    assert not after.is_error and "level1/relu" in text(after)  # still serving
    assert "Traceback" not in (tmp_path / "server.log").read_text()


def test_optimize_without_a_model_uses_the_offline_library(tmp_path):
    async def script(s):
        result = await s.call_tool("optimize", {"task": "level1/relu", "device": "cpu"})
        found = await s.call_tool("find_kernels", {"task": "level1/relu", "limit": 3})
        return result, found

    result, found = converse(tmp_path, script)
    assert not result.is_error, text(result)
    data = result.structured_content
    assert data["status"] == "found" and data["verdict"]["status"] == "passed"
    assert "class ModelNew" in data["source"] and "```python" in text(result)
    assert data["spend"]["calls"] == 0  # no LLM
    assert Path(data["best_candidate"]).is_relative_to(tmp_path)  # not the agent's cwd
    kernels = found.structured_content["kernels"]
    assert kernels and kernels[0]["origin"].startswith(f"optimize run {data['run_id']}")


def test_timing_text_reports_measured_times_and_refuses_untimed_ones():
    """The GPU half of time_kernel's answer, from a verdict as a GPU run makes it."""
    timed = Verdict("passed", "level1/relu", "c.py", "cuda", correct=True, timing_measured=True,
                    timed_shape="gpu", timings=(Timing("candidate", 980.0, 975.0, 990.0, 4.0, 25),
                                                Timing("eager", 1470.0, 1460.0, 1500.0, 9.0, 25)),
                    speedup_vs_eager=1.5, speedup_vs_compile=1.1, floor_us=900.0,
                    roofline_fraction=0.92)
    text = server.timing_text(timed)
    assert "candidate    median     980.0 µs  (IQR 4.0" in text and "eager" in text
    assert "median    1470.0 µs" in text
    assert "1.50× vs eager, 1.10× vs torch.compile; 92% of the roofline floor" in text
    failed = Verdict("incorrect", "level1/relu", "c.py", "cuda", reasons=("wrong values",),
                     feedback="status: incorrect.\n- wrong values")
    assert server.timing_text(failed).startswith("not timed: the candidate did not pass")


def test_find_kernels_gives_only_kernels_with_their_source_newest_first(tmp_path, monkeypatch):
    """Verdicts as the store holds them, keyed the verifier's way: two whose files are intact,
    one from a reward-service temp file now gone, one with a relative path (relative to where,
    nobody knows), one whose file was rewritten after it was verified."""
    from warpsmith.config import db_path, profile
    from warpsmith.store import VerdictStore
    from warpsmith.tasks import resolve_task
    from warpsmith.verify.pipeline import cache_key, environment

    monkeypatch.setenv("WARPSMITH_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("WARPSMITH_DB", raising=False)
    task, env = resolve_task("level1/relu"), environment("cpu")
    store = VerdictStore(db_path())

    def put(name: str, path: str, speedup=None) -> str:
        source = f"{GOOD}# {name}\n"
        store.put(Verdict("passed", "level1/relu", path, "cpu", correct=True, environment=env,
                          speedup_vs_eager=speedup, cache_key=cache_key(
                              task, source, "cpu", profile("quick"), env)))
        time.sleep(0.01)  # the store orders by the time of writing
        return source

    files = tmp_path / "mine"
    files.mkdir()
    for name in ("old", "new", "changed"):
        (files / f"{name}.py").write_text(f"{GOOD}# {name}\n")
    old = put("old", str(files / "old.py"), speedup=3.0)  # fastest, but oldest
    put("gone", "/tmp/warpsmith-reward-x/0123-abcd.py")
    put("relative", "relative.py")
    put("changed", str(files / "changed.py"))
    new = put("new", str(files / "new.py"))
    store.close()
    (files / "changed.py").write_text("# rewritten since\n")

    first = server.find_kernels("level1/relu", limit=5, include_source=True).structured_content
    again = server.find_kernels("level1/relu", limit=1, include_source=False)
    kernels = first["kernels"]
    assert [k["source"] for k in kernels] == [new, old] and first["without_source"] == 3
    paths = [Path(k["path"]) for k in kernels]
    assert all(p.is_absolute() and p.read_text() == k["source"] for p, k in
               zip(paths, kernels, strict=True))
    assert all(p.parent == tmp_path / "home" / "mcp" / "candidates" for p in paths)
    assert again.structured_content["kernels"][0]["path"] == kernels[0]["path"]  # stable
    assert "#1 passed on cpu, not timed" in again.content[0].text
    assert "3 more verified whose source is not known here" in again.content[0].text


def test_names_written_out_for_the_schema_match_the_registries():
    from warpsmith.search.registry import LIBRARY, STRATEGIES, needs_model
    from warpsmith.serve.mcp import search, tasks
    from warpsmith.tasks.gpus import DEFAULT_GPU

    assert tasks.DEFAULT_GPU == DEFAULT_GPU and search.LIBRARY == LIBRARY
    assert set(search.STRATEGIES) == set(STRATEGIES)
    assert set(search.MODEL_FREE) == {s for s in STRATEGIES if not needs_model(s)}


def _imported(log: Path) -> set[str]:
    """Modules the server has finished importing, from its PYTHONPROFILEIMPORTTIME lines."""
    return {line.rsplit("|", 1)[1].strip() for line in log.read_text().splitlines()
            if line.startswith("import time:") and "|" in line}


@pytest.mark.parametrize("how", ["module", "cli"])
def test_initialize_is_answered_before_torch_is_imported(tmp_path, how):
    """The server writes each import to its stderr as it completes (PYTHONPROFILEIMPORTTIME);
    once `initialize` has returned, the log so far names no torch and no verifier. The first
    tool that needs them imports them: the log then names torch, so the check can see it."""
    command, args = _command() if how == "cli" else (
        sys.executable, ["-m", "warpsmith.serve.mcp"])
    params = StdioServerParameters(command=command, args=args, env={
        "WARPSMITH_HOME": str(tmp_path), "PYTHONPROFILEIMPORTTIME": "1"})
    log = tmp_path / "server.log"

    async def main():
        with anyio.fail_after(240), open(log, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as s:
                start = time.monotonic()
                await s.initialize()
                seconds = time.monotonic() - start
                errlog.flush()
                at_initialize = _imported(log)
                listed = await s.call_tool("list_tasks", {"suite": "builtin/level1"})
                return seconds, at_initialize, listed

    seconds, at_initialize, listed = anyio.run(main)
    print(f"initialize answered in {seconds:.2f} s ({how})")
    assert "mcp.server.mcpserver" in at_initialize  # the log is being read
    assert not {"torch", "triton", "warpsmith.verify.pipeline"} & at_initialize
    assert not listed.is_error and "torch" in _imported(log)
    assert seconds < 60  # only a sanity bound: the machine is shared; the modules are the test


def test_optimize_with_a_model_asks_it_and_verifies_the_answer(tmp_path, server):
    """The model is a real HTTP server on loopback speaking the OpenAI protocol
    (tests/llm/server.py), reached by the MCP server's own provider."""
    server.script(Reply(text=f"Here it is.\n\n```python\n{GOOD}\n```"))
    result = converse(tmp_path, lambda s: s.call_tool("optimize", {
        "task": "level1/relu", "model": f"openai-compatible:{server.url}/v1#loopback-coder",
        "strategy": "one-shot", "budget": "calls=1", "device": "cpu"}))
    assert not result.is_error, text(result)
    data = result.structured_content
    assert len(server.requests) == 1 and data["spend"]["calls"] == 1
    assert data["status"] == "found" and data["source"].strip() == GOOD.strip()
