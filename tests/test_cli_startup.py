"""`warpsmith --help`, `--version`, every `<command> --help` and usage errors answer without
importing torch, triton or numpy (4 of the 5.6 s `--help` once took). The evidence is the
module table of a fresh interpreter, not a wall-clock threshold that a loaded machine breaks."""

import json
import subprocess
import sys
from pathlib import Path

import click

from warpsmith.cli import common
from warpsmith.cli.main import cli

HEAVY = ("torch", "triton", "numpy")
PROBE = """
import json, sys
from warpsmith.cli.main import main
sys.argv = ["warpsmith", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit as e:
    code = e.code
print(json.dumps({"code": code, "heavy": [m for m in HEAVY if m in sys.modules]}), file=sys.stderr)
""".replace("HEAVY", repr(HEAVY))


def probe(args: list[str]) -> dict:
    res = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True,
                         text=True, timeout=120)
    return json.loads(res.stderr.strip().splitlines()[-1])


def commands(group: click.Group = cli, path: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        yield (*path, name)
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))


def test_help_and_version_import_no_torch():
    for args in (["--help"], ["--version"], *([*c, "--help"] for c in commands())):
        got = probe(list(args))
        assert got == {"code": 0, "heavy": []}, (args, got)


def test_usage_errors_import_no_torch():
    for args in (["verify"], ["verify", "level1/relu"], ["verify", "a", "b", "--device", "gpu"],
                 ["tasks", "show", "x", "--gpu", "V100"], ["export", "r", "--format", "csv"],
                 ["optimize", "--strategy", "nope"], ["no-such-command"],
                 # a missing TASK or SUITE: said before the search and bench modules load
                 ["optimize"], ["bench"], ["bench", "builtin/level1"],
                 ["optimize", "--resume", "r", "level1/relu"],
                 ["bench", "--resume", "b", "--device", "cpu"]):
        got = probe(args)
        assert got == {"code": 2, "heavy": []}, (args, got)


def test_a_missing_binary_or_unreadable_file_is_refused_before_torch_loads(tmp_path):
    binary, not_db = tmp_path / "bin.py", tmp_path / "x.sqlite"
    binary.write_bytes(bytes(range(256)))
    not_db.write_text("not a database")
    good = str(Path(__file__).parent / "kernels" / "good" / "relu_triton.py")
    for args in (["verify", "level1/relu", str(tmp_path / "missing.py")],
                 ["verify", "level1/relu", str(binary)],
                 ["verify", "level1/relu", good, "--db", str(not_db)]):
        got = probe(args)
        assert got == {"code": 2, "heavy": []}, (args, got)


def test_python_m_warpsmith_help_runs():
    res = subprocess.run([sys.executable, "-m", "warpsmith", "--help"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0 and "verify" in res.stdout, res.stderr


def test_the_names_the_options_offer_are_the_registries():
    from warpsmith.export import FORMATS
    from warpsmith.search.registry import STRATEGIES
    from warpsmith.tasks.gpus import DEFAULT_GPU, GPUS

    assert tuple(sorted(STRATEGIES)) == common.STRATEGY_NAMES
    assert tuple(FORMATS) == common.EXPORT_FORMATS
    assert tuple(sorted(GPUS)) == common.GPU_NAMES and DEFAULT_GPU == common.DEFAULT_GPU
