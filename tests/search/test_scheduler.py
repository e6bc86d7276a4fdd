"""The search's lanes (search/scheduler.py): model calls overlap, verifications never exceed
the executor's slots, work outside the executor takes every slot, and the counts add up."""

import threading
import time

from warpsmith.search import Settings, optimize
from warpsmith.search.scheduler import Lane, Scheduler, describe

from .conftest import model
from .test_optimize import BROKEN, FAST, FIXED, answer


def _run(threads):
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
        assert not t.is_alive(), "a lane deadlocked"


def test_a_lane_never_runs_more_than_its_slots_and_counts_the_wait():
    lane = Lane("gpu", 2)

    def work():
        with lane.hold():
            time.sleep(0.2)

    _run([threading.Thread(target=work) for _ in range(4)])
    stats = lane.stats(wall_s=1.0)
    assert stats["peak"] == 2 and stats["uses"] == 4
    assert 0.75 < stats["busy_s"] < 1.2  # 4 × 0.2 s of slot time
    assert stats["wait_s"] >= 0.35  # two of the four waited about 0.2 s each


def test_exclusive_waits_for_every_slot_and_holds_them_all():
    lane = Lane("gpu", 2)
    single_in, release, order = threading.Event(), threading.Event(), []

    def single():
        with lane.hold():
            single_in.set()
            release.wait(5)
            order.append("single done")

    def exclusive():
        single_in.wait(5)
        with lane.exclusive():
            order.append(f"exclusive with {lane.in_use} in use")

    threads = [threading.Thread(target=single), threading.Thread(target=exclusive)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    assert order == [], "the exclusive holder must wait for the single one"
    release.set()
    for t in threads:
        t.join(timeout=10)
    assert order == ["single done", "exclusive with 2 in use"]


def test_several_exclusive_and_single_holders_do_not_deadlock():
    lane = Lane("gpu", 3)

    def hold(count):
        for _ in range(20):
            with lane.hold(count):
                time.sleep(0.001)

    _run([threading.Thread(target=hold, args=(c,)) for c in (1, 3, 1, 3, 2)])
    assert lane.in_use == 0 and lane.stats(1.0)["uses"] == 100


def test_a_search_overlaps_its_model_calls_and_verifies_one_at_a_time(server, db):
    slow = [answer(BROKEN), answer(FIXED), answer(BROKEN)]
    for reply in slow:
        reply.delay_s = 1.0
    server.script(*slow)
    result = optimize("level1/relu", model(server), "best-of-n",
                      Settings(device="cpu", samples=3), db=db, provider_settings=FAST)
    lanes = result.lanes
    assert result.status == "found"
    assert lanes["llm"]["uses"] == 3 and lanes["llm"]["peak"] >= 2  # calls went out together
    assert lanes["gpu"]["uses"] == 3 and lanes["gpu"]["peak"] == 1  # one executor slot
    assert lanes["gpu"]["busy_s"] > 0 and "model calls" in describe(lanes)


def test_describe_says_nothing_for_a_run_that_did_no_work():
    assert describe(Scheduler().summary()) == ""



def test_gpu_slot_holds_every_slot_and_the_gpu_the_executor_lends(tmp_path):
    import contextlib

    from warpsmith.config import worker_environment
    from warpsmith.search.budget import Budget
    from warpsmith.search.context import RunContext
    from warpsmith.store.runs import RunStore
    from warpsmith.tasks.suite import resolve_task

    lent = []

    @contextlib.contextmanager
    def lend():
        lent.append("out")
        yield "3"
        lent.append("back")

    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.new_run("level1/relu", "library", "library", {})
    ctx = RunContext(run_id, resolve_task("level1/relu"), None, store, None, Budget(),
                     Settings(), tmp_path, slots=2, lend_gpu=lend)
    with ctx.gpu_slot() as visible:
        assert visible == "3" and lent == ["out"]
        assert ctx.lanes.gpu.stats(1.0)["peak"] == 2  # both of the run's slots
        assert worker_environment("cuda", visible)["CUDA_VISIBLE_DEVICES"] == "3"
    assert lent == ["out", "back"]
    store.close()
