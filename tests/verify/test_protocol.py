"""The frames of the result pipe (protocol.read_frames): each bounded before it is kept,
anything else named, and the stream always drained."""

import io

from warpsmith.verify.protocol import MAGIC, header, read_frames, write_frame


def _frames(*reports_payloads) -> bytes:
    import os

    r, w = os.pipe()
    for report, payload in reports_payloads:
        write_frame(w, report, payload)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        return f.read()


def _read(data: bytes, limit) -> list:
    got = []
    read_frames(io.BufferedReader(io.BytesIO(data)), limit, got.append)
    return got


def test_frames_come_one_by_one_and_the_end_is_none():
    data = _frames(({"frame": "case", "call": 0}, b"abc"), ({"stage": "done"}, b""))
    got = _read(data, lambda: 1 << 20)
    assert [header(h) for h, _ in got[:2]] == [{"frame": "case", "call": 0}, {"stage": "done"}]
    assert got[0][1] == b"abc" and got[2] is None


def test_a_frame_over_the_bound_is_refused_from_its_lengths():
    data = _frames(({"a": 1}, b"x" * 5000), ({"stage": "done"}, b""))
    got = _read(data, lambda: 1000)
    assert got == ["the result message exceeded its size limit"]  # nothing after it kept


def test_the_bound_is_read_when_a_frame_starts():
    """A spare worker's bound is set with its job, after the reader started: here, as the
    first bytes arrive."""
    bound = [0]
    inner = io.BytesIO(_frames(({"a": 1}, b"x" * 100)))

    class Arriving:
        def read(self, n):
            bound[0] = 1 << 20  # the job went out before the worker could write
            return inner.read(n)

    got = []
    read_frames(Arriving(), lambda: bound[0], got.append)
    assert got[0][1] == b"x" * 100 and got[1] is None


def test_garbage_and_a_cut_frame_are_named():
    assert "bad magic" in _read(b"JUNK" + b"\0" * 20, lambda: 1 << 20)[0]
    whole = _frames(({"a": 1}, b"x" * 100))
    assert whole.startswith(MAGIC)
    assert "cut short" in _read(whole[:-10], lambda: 1 << 20)[0]
