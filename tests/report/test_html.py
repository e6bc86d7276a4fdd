"""The HTML report, opened in headless Chromium: each plot's SVG renders with a size and the
expected number of bars or points, nothing is fetched, no console errors, data is escaped.
One report is hand-built with GPU timings; one is a real `dir:` bench on the CPU, where the
plots must say "not measured on this device". A screenshot of each is kept."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from warpsmith.bench import BenchRecord, BenchSettings, Item, bench
from warpsmith.cli.main import cli
from warpsmith.report import build_report, compare_reports, render_comparison_html, render_html
from warpsmith.types import Timing, Verdict

from ..bench.conftest import KERNELS, make_suite

ROOT = Path(__file__).parent.parent.parent
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
NO_BROWSER = ("no Chromium on PATH (looked for " + ", ".join(BROWSERS) + "): on Debian/Ubuntu "
              "`apt-get install -y chromium`; `playwright install` is not needed, the browser "
              "comes from the system")
NO_PLAYWRIGHT = "the playwright package is missing: pip install -e '.[dev]'"
NASTY = 'import triton  # </pre><script>alert("x")</script> & a < b\nclass ModelNew: ...\n'


def find_chromium() -> str | None:
    return next(filter(None, map(shutil.which, BROWSERS)), None)


@pytest.fixture(scope="module")
def browser():
    # a machine without a browser skips, saying what to install; one with it runs everything
    sync_api = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT)
    chromium = find_chromium()
    if chromium is None:
        pytest.skip(NO_BROWSER)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, headless=True)
        yield b
        b.close()


ENV = {"gpu": "NVIDIA H200", "cuda": "13.0", "torch": "2.11.0+cu130", "triton": "3.6.0",
       "python": "3.12.3", "warpsmith": "0.1.0", "verifier": "3", "sandbox": "bubblewrap"}


def verdict(task, status, eager=None, compile=None, roofline=None, us=None, reasons=()):
    """Candidate times spread from 0.9 to 1.2 × the median (IQR 0.1 ×)."""
    timings = () if us is None else (
        Timing("candidate", us, us * 0.9, us * 1.2, us * 0.1, 100),
        Timing("eager", us * eager, 1, 1, 0.1, 100),
        Timing("compile:default", us * compile, 1, 1, 0.1, 100))
    return Verdict(status=status, task=task, candidate="c.py", device="cuda",
                   correct=status == "passed", reasons=tuple(reasons),
                   timing_measured=eager is not None, timings=timings,
                   speedup_vs_eager=eager, speedup_vs_compile=compile,
                   floor_us=us * roofline if us and roofline else None,
                   roofline_fraction=roofline, environment=ENV | {"device": "cuda"})


def timed_items() -> list[Item]:
    """Three passing tasks (one slower than eager, one with no floor), one failing, one
    without a candidate; an LLM bench with costs."""
    def it(task, status, *args, level="level1", cost=0.02, **kw):
        v = None if status == "no_candidate" else verdict(task, status, *args, **kw)
        return Item(task, 0, status, level, v, f"kernels/{task.split('/')[-1]}.py",
                    NASTY if v else None, "run-" + task[-1], cost)
    return [it("level1/matmul", "passed", 2.4, 1.3, 0.62, 10.0),
            it("level1/softmax", "passed", 0.8, 0.55, 0.21, 40.0),
            it("level1/gelu", "passed", 1.5, 1.05, None, 5.0),
            it("level2/conv_relu", "incorrect", level="level2",
               reasons=["output 0 differs at shape s0: max abs err 3.1 > atol 1e-05 & <x>"]),
            it("level2/attention", "no_candidate", level="level2", cost=0.05)]


# (task, seconds after the start, $, status, speedup): 7 attempts, so 7 points.
ATTEMPTS = [("level1/matmul", 0, 0.01, "compile_error", None),
            ("level1/matmul", 30, 0.01, "passed", 1.6),
            ("level1/softmax", 50, 0.01, "passed", 0.8),
            ("level1/matmul", 80, 0.01, "passed", 2.4),
            ("level1/gelu", 95, 0.01, "passed", 1.5),
            ("level2/conv_relu", 130, 0.02, "incorrect", None),
            ("level2/attention", 160, 0.05, "llm_error", None)]


def timed_report(id_="bench-20261130-120000-gpu001") -> dict:
    items = timed_items()
    record = BenchRecord(id_, "builtin", "llm:refine:openai:gpt-4.1",
                         {"samples": 1, "device": "cuda", "profile": "thorough",
                          "budget": {"usd": 5.0}, "tasks": [i.task for i in items],
                          "not_loaded": []}, "finished", 1.7646e9, 1.7646e9)
    attempts = [{"task": t, "created": 1.7646e9 + s, "cost_usd": c, "status": st,
                 "speedup": x} for t, s, c, st, x in ATTEMPTS]
    return build_report(record, items, attempts)


@pytest.fixture(scope="module")
def cpu_bench(tmp_path_factory):
    base = tmp_path_factory.mktemp("html")
    suite = make_suite(base / "suite", "relu", "silu", "softmax")
    kernels = base / "kernels"
    kernels.mkdir()
    shutil.copy(KERNELS / "good" / "relu_triton.py", kernels / "relu.py")
    shutil.copy(KERNELS / "bad" / "incorrect_wrong_math.py", kernels / "softmax.py")
    db = base / "store.sqlite"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WARPSMITH_HOME", str(base / "home"))
        result = bench(suite, f"dir:{kernels}", BenchSettings(device="cpu"), db=db)
    return result.bench_id, db


def open_page(browser, path: Path):
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors, requests = [], []
    page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda req: requests.append(req.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, errors, requests


def plot(page, figure: str, mark: str) -> int:
    """The figure's SVG has a real size; returns how many `mark` elements (bar, bar-slow,
    point: ids charts.py gives them) it drew."""
    svg = page.locator(f"#{figure} > svg")
    assert svg.count() == 1, figure
    box = svg.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 50, (figure, box)
    return page.locator(f"#{figure} svg g[id*='-{mark}-']").count()


def overlaps(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and \
        a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_timed_report_renders_every_plot(browser, tmp_path):
    text = render_html(timed_report())
    page, errors, requests = open_page(browser, write(tmp_path, "report.html", text))
    assert plot(page, "plot-speedup", "bar") == 3  # the three tasks that passed
    assert plot(page, "plot-speedup", "bar-slow") == 1  # softmax, 0.8× eager
    assert plot(page, "plot-roofline", "bar") == 2  # gelu has no floor
    assert plot(page, "plot-progress", "point") == 7
    assert page.locator("figure.empty").count() == 0
    labels = page.locator("#plot-speedup svg text").all_text_contents()
    assert {"level1/matmul", "level1/softmax", "level1/gelu"} <= set(labels), labels
    assert "1× (as fast as eager)" in labels
    ref = page.locator("#speedup-ref-label").bounding_box()  # the 1× label sits on no bar
    bars = page.locator("#plot-speedup g[id*='-bar-']")
    assert not [k for k in range(3) if overlaps(ref, bars.nth(k).bounding_box())]
    env = page.locator("table.env").inner_text()
    assert all(v in env for v in ("NVIDIA H200", "13.0", "2.11.0+cu130", "3.6.0", "thorough"))
    assert "driver\tnot recorded" in env  # the verifier does not record it (yet)
    matmul = page.locator("table.tasks tbody tr", has_text="level1/matmul").inner_text()
    assert "\t1\t9–12\t100\t" in matmul  # IQR 1 µs, 9 to 12 µs over 100 calls
    assert page.locator("table.fast-p tbody tr").count() == 2 * 3  # 2 baselines × 3 groups
    assert page.locator("table.tasks tbody tr").count() == 5
    assert page.locator("details").count() == 5
    # data is text, never markup: the kernel's "</pre><script>" stays inside the <pre>
    assert page.locator("script").count() == 0
    assert NASTY.strip() in page.locator("#task-level1-matmul pre").text_content()
    assert "& <x>" in page.locator("#task-level2-conv_relu").text_content()
    page.click("a[href='#task-level1-softmax']")  # a task's link opens its kernel
    assert page.locator("#kernel-level1-softmax").get_attribute("open") is not None
    assert page.locator("#def-fast_p").count() == 1
    assert not errors and all(u.startswith("file://") for u in requests), (errors, requests)
    page.goto((tmp_path / "report.html").as_uri())
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    shot = tmp_path / "report-top.png"  # tables and plots, small enough to commit
    top = page.locator("#kernels").bounding_box()["y"]
    page.screenshot(path=str(shot), full_page=True,
                    clip={"x": 0, "y": 0, "width": 1200, "height": top})
    assert shot.stat().st_size > 10_000


def test_cpu_bench_says_not_measured(browser, cpu_bench, tmp_path):
    bench_id, db = cpu_bench
    out = tmp_path / "cpu.html"
    result = CliRunner().invoke(cli, ["report", bench_id, "--format", "html", "--out", str(out),
                                      "--db", str(db)])
    assert result.exit_code == 0, result.output
    page, errors, requests = open_page(browser, out)
    for figure in ("plot-speedup", "plot-roofline", "plot-progress"):
        assert plot(page, figure, "bar") == plot(page, figure, "point") == 0
        svg, msg = (page.locator(f"#{figure} {s}").bounding_box()
                    for s in ("> svg", "g[id$='-empty'] text"))
        assert svg["x"] <= msg["x"] and msg["x"] + msg["width"] <= svg["x"] + svg["width"]
    assert "not measured on this device (cpu)" in page.locator("#plot-speedup").inner_text()
    assert "not measured on this device (cpu)" in page.locator("#plot-roofline").inner_text()
    assert "no search attempts" in page.locator("#plot-progress").inner_text()
    assert page.locator("table.tasks tbody tr").count() == 3
    assert "not measured" in page.locator("table.fast-p").inner_text()
    relu = page.locator("#task-level1-relu pre").text_content()
    assert "triton" in relu  # the kernel source, from the store
    assert not errors and all(u.startswith("file://") for u in requests), (errors, requests)
    page.screenshot(path=str(tmp_path / "cpu.png"), full_page=True)


def test_comparison_page(browser, cpu_bench, tmp_path):
    a = timed_report()
    b = timed_report("bench-20261201-090000-gpu002")
    for row in b["tasks"]:
        if row["speedup_vs_eager"]:
            row["speedup_vs_eager"] *= 1.5
    path = write(tmp_path, "cmp.html", render_comparison_html(compare_reports(a, b)))
    page, errors, _ = open_page(browser, path)
    assert plot(page, "plot-ratio", "bar") == 3
    assert page.locator("table.tasks tbody tr").count() == 5
    assert page.locator("#not-comparable").count() == 0  # same tasks, device, verifier
    assert not errors
    page.screenshot(path=str(tmp_path / "cmp.png"), full_page=True)
    bench_id, db = cpu_bench  # two CPU runs: nothing to plot, said so
    out = tmp_path / "cpu-cmp.html"
    result = CliRunner().invoke(cli, ["report", bench_id, bench_id, "--format", "html",
                                      "--out", str(out), "--db", str(db)])
    assert result.exit_code == 0, result.output
    page, errors, _ = open_page(browser, out)
    assert plot(page, "plot-ratio", "bar") == 0
    assert "not measured" in page.locator("#plot-ratio").inner_text() and not errors


def test_comparison_of_different_benches_warns_loudly(browser, cpu_bench, tmp_path):
    """The issue's case: GPU tasks against CPU tasks, compared without a word."""
    bench_id, db = cpu_bench
    gpu = write(tmp_path, "gpu.json", json.dumps(timed_report()))
    out = tmp_path / "mixed.html"
    result = CliRunner().invoke(cli, ["report", str(gpu), bench_id, "--format", "html",
                                      "--out", str(out), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "warning: not comparable: different task sets: A has 5 tasks, B 3" in result.stderr
    assert "different devices: A ran on cuda, B on cpu" in result.stderr
    assert "different GPUs: A NVIDIA H200, B not recorded" in result.stderr
    page, errors, _ = open_page(browser, out)
    box = page.locator("#not-comparable")
    assert box.is_visible() and "different devices" in box.inner_text() and not errors
    assert box.bounding_box()["y"] < page.locator("h2").first.bounding_box()["y"]
