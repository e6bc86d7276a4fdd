"""`bench` with a folder of candidates on the CPU interpreter: the report, and a bench killed
after its first item and resumed giving the same report with nothing verified twice."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from warpsmith.bench import BenchSettings, bench
from warpsmith.cli.main import cli as cli_group
from warpsmith.errors import UsageError
from warpsmith.report import load_report

EXPECTED = {"level1/relu": "passed", "level1/sigmoid": "passed", "level1/silu": "no_candidate",
            "level1/softmax": "incorrect"}


@pytest.fixture(scope="module")
def uninterrupted(small, tmp_path_factory):
    suite, kernels = small
    home = tmp_path_factory.mktemp("home")
    db = home / "store.sqlite"
    seen = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WARPSMITH_HOME", str(home))
        result = bench(suite, f"dir:{kernels}", BenchSettings(device="cpu"), db=db,
                       on_progress=seen.append)
    return result, load_report(result.bench_id, db), seen, db


def test_dir_bench_report(uninterrupted):
    result, report, _, _ = uninterrupted
    assert result.status == "finished" and result.done == result.total == 4
    assert {r["title"]: r["status"] for r in report["tasks"]} == EXPECTED
    overall = report["metrics"]["overall"]
    assert overall["correctness_rate"] == 0.5 and overall["tasks"] == 4
    assert overall["fast_p"]["eager"]["1"] is None  # the CPU times nothing: not measured
    assert overall["cost_per_task_usd"] is None
    rows = {r["title"]: r for r in report["tasks"]}
    assert rows["level1/relu"]["candidate"].endswith("kernels/relu.py")
    assert rows["level1/softmax"]["candidate"].endswith("level1/softmax.py")
    assert "outside" in rows["level1/softmax"]["reason"]
    assert "no file" in rows["level1/silu"]["reason"]


def test_progress_reports_each_item_with_a_time_estimate(uninterrupted):
    _, _, seen, _ = uninterrupted
    finished = [p for p in seen if p.last is not None]
    assert [p.done for p in finished] == [1, 2, 3, 4]
    assert seen[0].eta_s is None and finished[0].eta_s > 0 and finished[-1].eta_s == 0
    assert all(p.spent_usd is None and p.eta_usd is None for p in seen)  # a folder costs nothing


def cli(*args):
    return [sys.executable, "-m", "warpsmith.cli.main", *args]


def rows(db, sql, *params):
    with sqlite3.connect(db) as conn:
        return conn.execute(sql, params).fetchall()


def comparable(report: dict) -> dict:
    """What must not depend on the bench being interrupted (reasons quote random inputs)."""
    tasks = [{k: r[k] for k in ("task", "status", "statuses", "sample", "speedup_vs_eager",
                                "candidate")} for r in report["tasks"]]
    return {"metrics": report["metrics"], "tasks": tasks}


def test_killed_bench_resumes_to_the_same_report_without_verifying_twice(small, uninterrupted,
                                                                          tmp_path):
    suite, kernels = small
    db = tmp_path / "store.sqlite"
    env = dict(os.environ, WARPSMITH_HOME=str(tmp_path / "home"), WARPSMITH_DB=str(db))
    proc = subprocess.Popen(cli("bench", str(suite), "--generator", f"dir:{kernels}",
                                "--device", "cpu"), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not (db.exists() and _count(db)) and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    (bench_id, status), = rows(db, "SELECT id, status FROM benches")
    first = rows(db, "SELECT task, created FROM bench_items")
    assert status == "running" and 1 <= len(first) < 4  # killed mid-bench, not after
    stamps = dict(rows(db, "SELECT key, created FROM verdicts"))

    again = subprocess.run(cli("bench", "--resume", bench_id, "--json"), env=env,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    resumed = json.loads(again.stdout)
    assert resumed["bench"]["status"] == "finished" and resumed["bench"]["id"] == bench_id
    assert comparable(resumed) == comparable(uninterrupted[1])
    # the items committed before the kill were neither redone nor re-verified
    after = dict(rows(db, "SELECT task, created FROM bench_items"))
    assert len(after) == 4 and all(after[task] == created for task, created in first)
    for key, created in stamps.items():
        assert rows(db, "SELECT created FROM verdicts WHERE key = ?", key) == [(created,)]
    assert len(rows(db, "SELECT key FROM verdicts")) == 3  # one verdict per candidate file


def _count(db) -> int:
    try:
        return rows(db, "SELECT COUNT(*) FROM bench_items")[0][0]
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


def test_report_command_writes_markdown_json_and_compares(uninterrupted, tmp_path,
                                                         monkeypatch):
    result, report, _, db = uninterrupted
    monkeypatch.setenv("WARPSMITH_DB", str(db))
    runner = CliRunner()
    saved = tmp_path / "a.json"
    run = runner.invoke(cli_group, ["report", result.bench_id, "--format", "json", "--out",
                                    str(saved)])
    assert run.exit_code == 0, run.output
    assert json.loads(saved.read_text())["metrics"] == report["metrics"]
    md = runner.invoke(cli_group, ["report", result.bench_id])
    assert "| level1/silu | no_candidate |" in md.output and "## fast_p" in md.output
    cmp = runner.invoke(cli_group, ["report", str(saved), result.bench_id, "--format", "json"])
    assert {r["change"] for r in json.loads(cmp.output)["tasks"]} == {"same"}
    listed = runner.invoke(cli_group, ["report", "--format", "json"])
    (entry,) = json.loads(listed.output)["benches"]
    assert entry["id"] == result.bench_id and entry["items_done"] == 4
    missing = subprocess.run(cli("report", "bench-nope"), env=dict(os.environ, WARPSMITH_DB=str(
        db)), capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "no bench" in missing.stderr


def test_tasks_option_benches_only_the_named_tasks(small, tmp_path, monkeypatch):
    suite, kernels = small
    monkeypatch.setenv("WARPSMITH_HOME", str(tmp_path))
    db = tmp_path / "store.sqlite"
    runner = CliRunner()
    run = runner.invoke(cli_group, ["bench", str(suite), "--generator", f"dir:{kernels}",
                                    "--device", "cpu", "--tasks", "relu,level1/silu",
                                    "--db", str(db), "--json"])
    assert run.exit_code == 0, run.output
    report = json.loads(run.output[run.output.index("{"):])
    assert {r["title"]: r["status"] for r in report["tasks"]} == {
        "level1/relu": "passed", "level1/silu": "no_candidate"}
    bad = runner.invoke(cli_group, ["bench", str(suite), "--generator", f"dir:{kernels}",
                                    "--device", "cpu", "--tasks", "relu,nope", "--db", str(db)])
    # A usage error before anything is recorded (the `warpsmith` entry point exits 2 on it).
    assert isinstance(bad.exception, UsageError) and "no task nope" in str(bad.exception)


def test_an_exception_from_one_verification_is_that_item_not_the_bench(small, tmp_path,
                                                                        monkeypatch):
    from warpsmith.executors import InlineExecutor

    suite, kernels = small
    real = InlineExecutor.verify

    def flaky(self, task, candidate, **kw):
        if task.title.endswith("relu"):
            raise RuntimeError("the verifier broke on this one")
        return real(self, task, candidate, **kw)

    monkeypatch.setattr(InlineExecutor, "verify", flaky)
    result = bench(suite, f"dir:{kernels}", BenchSettings(device="cpu"),
                   db=tmp_path / "b.sqlite", only=["relu", "sigmoid"])
    assert result.status == "finished"
    from warpsmith.bench.store import BenchStore

    items = {i.title: i for i in BenchStore(tmp_path / "b.sqlite").items(result.bench_id)}
    assert items["level1/relu"].status == "verifier_error"
    assert "broke on this one" in items["level1/relu"].note
    assert items["level1/sigmoid"].status == "passed"


def test_progress_shows_a_reason_with_brackets_as_it_is(tmp_path, monkeypatch):
    """A reason quotes the candidate's own words: `[/x]` raised rich's MarkupError in the
    progress line (ending the bench), `[forbidden-op]` vanished as an unknown style."""
    import subprocess
    import sys

    from .conftest import KERNELS, make_suite

    suite = make_suite(tmp_path / "suite", "relu")
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    good = (KERNELS / "good" / "relu_triton.py").read_text()
    (kernels / "relu.py").write_text(good.replace(
        "        return out", "        raise RuntimeError('[/x] [forbidden-op] my own words')"))
    main = "import sys; from warpsmith.cli.main import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", main, "bench", str(suite), "--generator", f"dir:{kernels}",
         "--device", "cpu", "--db", str(tmp_path / "db.sqlite")], capture_output=True,
        text=True, timeout=600, env={**os.environ, "WARPSMITH_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "MarkupError" not in done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("level1/relu #0"))
    assert "[/x] [forbidden-op]" in line, line
