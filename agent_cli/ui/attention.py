"""When the agent needs the user: a turn that took a while ended, or an approval or question
waits. The terminal gets the ping's bytes (ping.py) and the `notification` hooks run; the
`notify` settings turn each part off."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping

from agent_cli.runtime.runtime import Runtime
from agent_cli.ui.ping import ping_bytes


class Attention:
    def __init__(
        self,
        runtime: Runtime,
        write: Callable[[str], None],
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.runtime, self.write = runtime, write
        self.env = os.environ if env is None else env
        self._started: float | None = None
        self._hooks: set[asyncio.Task[None]] = set()

    def turn_started(self) -> None:
        self._started = time.monotonic()

    def turn_ended(self, took: float | None = None) -> None:
        """`took`: the turn's own seconds when known (ui/turn.py: less what it waited for the
        user's answers, who was there then)."""
        if self._started is None:
            return
        took = time.monotonic() - self._started if took is None else took
        self._started = None
        if took >= self.runtime.settings.notify.after_s:
            self.ping("turn_done", f"agent: done after {took:.0f} s")

    def ping(self, kind: str, message: str) -> None:
        notify = self.runtime.settings.notify
        sequence = ping_bytes(message, self.env, bell=notify.bell, notify=notify.osc)
        if sequence:
            self.write(sequence)
        task = asyncio.get_running_loop().create_task(self.runtime.work.notify(kind, message))
        self._hooks.add(task)  # held until done: the loop keeps only a weak reference
        task.add_done_callback(self._hooks.discard)
