"""Waiting for a condition instead of sleeping a fixed time: poll it until it holds or a deadline
passes (then fail, naming what never happened)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

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


def written_number(path: Path, timeout: float = 30.0, what: str = "") -> int:
    """The number a command writes into `path` (`echo $$ > path`): the shell makes the file
    before echo writes into it, so a file that exists may still be empty for a moment."""

    def written() -> bool:
        try:
            return path.read_text().strip().isdigit()
        except OSError:
            return False

    wait_until(written, timeout, what or f"a number in {path.name}")
    return int(path.read_text())
