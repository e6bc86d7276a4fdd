"""Fixtures shared across test folders, and the quick suite's marker.

`pytest -m "not slow"` is the quick suite. A test is slow when it carries
`@pytest.mark.slow`, or when tests/slow.txt lists it: that file holds measured durations
(seconds per test, setup and teardown included), written by `python -m tests.timings`
from a run with WARPSMITH_TEST_TIMES=FILE set, so marking a test in another folder needs
no edit of its file and the list can be measured again as tests change.
"""

import os
import signal
from pathlib import Path

import pytest

from .llm.server import LoopbackLLM

SLOW_LIST = Path(__file__).parent / "slow.txt"


@pytest.fixture
def server():
    """A real HTTP server on loopback speaking the OpenAI and Anthropic protocols, answering
    from a script (tests/llm/server.py)."""
    s = LoopbackLLM()
    yield s
    s.close()


# Module-wide fixtures that verify every kernel of their file through the CPU interpreter
# at first use (tests/library: minutes each): a test that uses one is slow, whichever of its
# module's tests happens to pay the setup (listing the payer alone moved the cost to the next)
SLOW_FIXTURES = frozenset({"verdicts"})


def pytest_collection_modifyitems(config, items):
    slow = _listed()
    for item in items:
        if item.nodeid in slow or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def _listed() -> set[str]:
    if not SLOW_LIST.is_file():
        return set()
    lines = SLOW_LIST.read_text().splitlines()
    return {line.split("\t")[1] for line in lines if line and not line.startswith("#")}


def pytest_runtest_logreport(report):
    """With WARPSMITH_TEST_TIMES=FILE, each phase's duration is appended as it ends (a run
    cut short by a timeout still leaves what it measured)."""
    path = os.environ.get("WARPSMITH_TEST_TIMES")
    if path:
        with open(path, "a") as f:
            f.write(f"{report.duration:.3f}\t{report.when}\t{report.nodeid}\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """With WARPSMITH_TEST_CAP=SECONDS, a test still running after that long is stopped and
    fails: a timing run then learns which tests are slow without waiting for each to end."""
    cap = float(os.environ.get("WARPSMITH_TEST_CAP") or 0)
    if not cap:
        yield
        return

    def stop(signum, frame):
        raise TimeoutError(f"over WARPSMITH_TEST_CAP={cap:g} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, cap)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
