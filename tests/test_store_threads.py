"""The store's one connection, written from many threads at once, as parallel search chains
do (CI once saw "cannot commit - no transaction is active" without the lock)."""

from concurrent.futures import ThreadPoolExecutor

from warpsmith.store.runs import Attempt, RunStore


def test_parallel_attempts_are_all_recorded(tmp_path):
    store = RunStore(tmp_path / "store.sqlite")
    run = store.new_run("level1/relu", "m", "best-of-n", {})

    def add(i):
        store.add(Attempt(run, 0, 0, i, "llm_error", [{"role": "user", "content": "x"}]))
        store.set_status(run, "running")
        return store.find(run, 0, 0, i) is not None

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(add, range(400)))
    assert len(store.attempts(run)) == 400
