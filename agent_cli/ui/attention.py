"""When the agent needs the user: a turn that took a while ended, or an approval or question
waits. The terminal gets the ping's bytes (ping.py) and the `notification` hooks run; the
`notify` settings turn each part off."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from agent_cli.ui.ping import ping_bytes

if TYPE_CHECKING:
    from agent_cli.core.settings.features import NotifySettings
    from agent_cli.runtime.runtime import Runtime


class Attention:
    """`runtime` gives the `notify` settings and runs the hooks; a front end without one (an
    attached background session: ext/background/acp/attach_screen.py) overrides `settings`
    and `hook`."""

    def __init__(
        self,
        runtime: Runtime | None,
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
        if took >= self.settings().after_s:
            self.ping("turn_done", f"agent: done after {took:.0f} s")

    def settings(self) -> NotifySettings:
        assert self.runtime is not None  # else overridden
        return self.runtime.settings.notify

    def ping(self, kind: str, message: str) -> None:
        notify = self.settings()
        sequence = ping_bytes(message, self.env, bell=notify.bell, notify=notify.osc)
        if sequence:
            self.write(sequence)
        self.hook(kind, message)

    def hook(self, kind: str, message: str) -> None:
        """The `notification` hooks, in the background."""
        assert self.runtime is not None  # else overridden
        task = asyncio.get_running_loop().create_task(self.runtime.work.notify(kind, message))
        self._hooks.add(task)  # held until done: the loop keeps only a weak reference
        task.add_done_callback(self._hooks.discard)
