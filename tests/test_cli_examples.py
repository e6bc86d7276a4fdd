"""The examples in every command's --help, taken from the help text itself.

What is checked, honestly:
- every example parses as the command line it claims to be (click's own parser: commands,
  options, choices, types, the --out and --start checks), and every file or folder it names
  exists in a clone (~/KernelBench, a KernelBench clone, is the user's and is not checked);
- the ones that finish in seconds on a CPU are run as printed, in a folder that stands for a
  clone's root, with each UPPER_CASE placeholder the help explains (BENCH_ID) replaced by an id
  an earlier example made. The others (a model over the network, a GPU, a search or a bench of
  minutes) are parsed only: PARSED_ONLY names each and why.
"""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest

from warpsmith.cli.main import cli

ROOT = Path(__file__).parent.parent
RUN = (  # in this order: the bench makes the BENCH_ID the later ones use
    "warpsmith verify level1/relu src/warpsmith/examples/relu_triton.py --device cpu",
    "warpsmith bench builtin/level1 --generator reference --tasks relu --device cpu",
    "warpsmith bench --resume BENCH_ID",
    "warpsmith report",
    "warpsmith report docs/benchmarks/raw/suite-library-2026-11-30.json --out report.md",
    "warpsmith report BENCH_ID --format html --out report.html",
    "warpsmith report BENCH_ID --format json",  # then `| jq .metrics.overall`: read below
    "warpsmith report docs/benchmarks/raw/suite-library-2026-11-30.json BENCH_ID",
)
PARSED_ONLY = {
    "bench builtin/level1 --generator dir:KERNELS": "38 tasks; KERNELS is the user's",
    "--KernelBench": "a KernelBench clone under ~",
    "llm:refine:openai": "a model over the network",
    "--generator library": "the kernel library over many tasks: minutes on a CPU",
    "optimize level1/softmax": "a library search: minutes on a CPU",
    "--model": "a model over the network",
    "--strategy tune": "the tuner times kernels: GPU only",
    "--resume RUN_ID": "needs an optimize run (tests/search makes them)",
    "export ": "needs an optimize run (tests/export runs export on one)",
    "serve reward": "a server that runs until stopped",
    "serve mcp": "a server on stdio that runs until stopped",
}


def examples() -> list[str]:
    """`warpsmith …` lines of every Example(s) section, from each command's rendered help."""
    found = []
    for path, command in _walk(cli, ("warpsmith",)):
        with click.Context(command, info_name=" ".join(path)) as ctx:
            text = command.get_help(ctx)
        for block in re.split(r"\n\s*Examples?\b", text)[1:]:
            for line in block.split("\n\n")[0].splitlines():
                if (example := _warpsmith_part(line.strip())) is not None:
                    found.append(example)
    return found


def _walk(command, path):
    yield path, command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _walk(sub, (*path, name))


def _warpsmith_part(line: str) -> str | None:
    # `claude mcp add warpsmith -- warpsmith serve mcp` holds one after `--`; `… | jq` ends one
    line = line.split(" -- ", 1)[-1].split("|")[0].strip()
    return line if line.startswith("warpsmith ") or line == "warpsmith" else None


def parse(example: str) -> click.Context:
    args = [os.path.expanduser(a) for a in shlex.split(example)[1:]]
    ctx = cli.make_context("warpsmith", args)
    command = cli
    while isinstance(command, click.Group):
        name, command, rest = command.resolve_command(ctx, ctx._protected_args + ctx.args)
        ctx = command.make_context(name, rest, parent=ctx)
    return ctx


def test_every_help_has_examples_and_each_is_run_or_said_why_not():
    found = examples()
    assert len(found) >= 20, found
    for example in found:
        assert example in RUN or _why_not(example), f"neither run nor explained: {example}"


def _why_not(example: str) -> str | None:
    if "KernelBench" in example:
        return PARSED_ONLY["--KernelBench"]
    return next((why for key, why in PARSED_ONLY.items() if key in example), None)


def test_every_example_parses_and_names_files_that_exist(monkeypatch):
    monkeypatch.chdir(ROOT)
    for example in examples():
        parse(example.replace("BENCH_ID", "bench-x").replace("RUN_ID", "run-x"))
        for word in shlex.split(example):
            value = word.split(":", 1)[-1] if word.startswith("dir:") else word
            if "/" in value and ":" not in value and not value.startswith(
                    ("~", "builtin/", "level")):  # not a spec, a clone of the user's, a task
                assert (ROOT / value).exists(), (example, value)


@pytest.fixture
def clone(tmp_path):
    """A folder standing for a clone's root: its src, docs and tests are this checkout's."""
    for name in ("src", "docs", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


def test_the_quick_examples_run_as_printed(clone):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARPSMITH_")}
    env |= {"WARPSMITH_HOME": str(clone / "home"), "WARPSMITH_DB": str(clone / "s.sqlite")}
    assert set(RUN) <= set(examples())
    ids = {}
    for example in RUN:
        line = example
        for name, value in ids.items():
            line = line.replace(name, value)
        cmd = [sys.executable, "-m", "warpsmith", *shlex.split(line)[1:]]
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=clone, env=env,
                             timeout=600)
        assert res.returncode == 0, (example, res.stdout[-2000:], res.stderr[-2000:])
        if "--generator reference" in example:
            ids["BENCH_ID"] = re.search(r"bench (bench-\S+)", res.stderr).group(1)
        if "--format json" in example:
            assert json.loads(res.stdout)["metrics"]["overall"], res.stdout[:500]
    assert (clone / "report.md").read_text().startswith("# warpsmith bench")
    assert "<html" in (clone / "report.html").read_text().lower()
