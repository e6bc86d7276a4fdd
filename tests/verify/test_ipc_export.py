"""The worker's half of the output handles (verify/child/ipc.py), run on the CPU with the
driver's calls replaced: a non-contiguous output is sent as a contiguous copy, and that copy
must outlive the frame (freed at once, the next output's copy took its memory, and a QKV
split's q and k were both read from one address on the H100)."""

import pytest
import torch

from warpsmith.verify.child import ipc


@pytest.fixture
def fake_driver(monkeypatch):
    class Driver:
        @staticmethod
        def cuIpcGetMemHandle(handle, base):
            return 0

    monkeypatch.setattr(ipc, "driver", Driver)
    monkeypatch.setattr(ipc, "address_range", lambda ptr: (0, 1 << 62))  # one allocation at 0
    monkeypatch.setattr(ipc, "buffer_id", lambda base: base)


def test_each_non_contiguous_output_is_sent_as_a_copy_held_until_read(fake_driver):
    qkv = torch.randn(2, 8, 3, 4)
    q, k = qkv[:, :, 0].permute(0, 2, 1), qkv[:, :, 1].permute(0, 2, 1)
    held: list = []
    sent = [ipc.export(t, keep=held) for t in (q, k)]
    assert len(held) == 2 and all(c.is_contiguous() for c in held)
    assert [c.data_ptr() for c in held] == [e["offset"] for e in sent]  # base 0 (fake)
    assert sent[0]["offset"] != sent[1]["offset"]  # two live copies, two addresses
    assert torch.equal(held[0], q) and torch.equal(held[1], k)


def test_a_contiguous_output_is_sent_as_it_is(fake_driver):
    x, held = torch.randn(4, 4), []
    assert ipc.export(x, keep=held)["offset"] == x.data_ptr() and held == []
    assert ipc.export(x)["offset"] == x.data_ptr()  # no holder needed


def test_a_copy_with_no_holder_is_refused(fake_driver):
    with pytest.raises(ValueError, match="holder"):
        ipc.export(torch.randn(4, 4).t())
