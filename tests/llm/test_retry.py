"""Backoff arithmetic and Retry-After parsing."""

import email.utils
import time

import pytest

from warpsmith.llm import RetryPolicy
from warpsmith.llm.retry import retry_after


def test_backoff_doubles_with_jitter_and_a_ceiling():
    policy = RetryPolicy(backoff_s=1.0, backoff_max_s=10.0)
    assert [policy.delay(i, None, 1.0) for i in range(5)] == [1.0, 2.0, 4.0, 8.0, 10.0]
    assert policy.delay(2, None, 0.0) == 2.0  # jitter takes at most half away


def test_retry_after_is_honoured_and_capped():
    policy = RetryPolicy(retry_after_max_s=30.0)
    assert policy.delay(0, 7.0, 0.3) == 7.0
    assert policy.delay(0, 3600.0, 0.3) == 30.0


@pytest.mark.parametrize("headers, seconds", [
    ({"retry-after": "3"}, 3.0), ({"retry-after": "0.5"}, 0.5),
    ({"retry-after-ms": "250", "retry-after": "9"}, 0.25), ({}, None),
    ({"retry-after": "soon"}, None),
])
def test_retry_after_headers(headers, seconds):
    assert retry_after(headers) == seconds


def test_retry_after_http_date():
    when = email.utils.formatdate(time.time() + 20, usegmt=True)
    assert 15 < retry_after({"retry-after": when}) <= 20
