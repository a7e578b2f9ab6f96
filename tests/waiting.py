"""Waiting for a condition instead of sleeping a fixed time: poll it until it holds or a deadline
passes (then fail, naming what never happened)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

POLL_S = 0.02


def wait_until(predicate: Callable[[], object], timeout: float = 10.0, what: str = "") -> None:
    """Polls `predicate` until it is true; AssertionError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            raise AssertionError(f"not within {timeout:g} s: {what or predicate}")
        time.sleep(POLL_S)


async def until(predicate: Callable[[], object], timeout: float = 10.0, what: str = "") -> None:
    """`wait_until` for a coroutine: the event loop runs between polls."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            raise AssertionError(f"not within {timeout:g} s: {what or predicate}")
        await asyncio.sleep(POLL_S)
