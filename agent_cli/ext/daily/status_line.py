"""The status line of one's own (the `status_line` setting): its command is run with a JSON
description of the session on stdin, every `refresh_s` and after every turn, and its first
output line is shown in the status bar. A run past `timeout_ms` is killed (its whole process
group) and a failing one is logged; either way the last line stays. One run at a time. It runs
outside the sandbox, through the gate: `/bin/sh` by its path, the user's environment less
credentials."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.core.files.logs import FILE_ONLY
from agent_cli.core.outside import spawn
from agent_cli.ext.daily.settings import StatusLineSettings, status_line_settings
from agent_cli.ui.status_bar import CONTROL

if TYPE_CHECKING:
    from agent_cli.runtime.extensions.contract import ExtensionContext

log = logging.getLogger(__name__)

MAX_LINE = 500


def first_line(out: bytes) -> str:
    lines = out.decode("utf-8", "replace").splitlines()
    return CONTROL.sub("", lines[0]).strip()[:MAX_LINE] if lines else ""


class StatusLine:
    def __init__(
        self,
        spec: StatusLineSettings,
        payload: Callable[[], dict[str, Any]],
        changed: Callable[[], None],
        cwd: Path,
    ) -> None:
        self.spec, self.payload, self.changed, self.cwd = spec, payload, changed, cwd
        self.line = ""  # what the bar shows; empty: the built-in parts stand
        self.runs = 0  # runs that gave a line
        self._proc: asyncio.subprocess.Process | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._poked: asyncio.Task[None] | None = None
        self._failing: str | None = None
        self._busy = False

    @property
    def padding(self) -> int:
        return self.spec.padding

    def start(self) -> None:
        self._ticker = asyncio.get_running_loop().create_task(self._tick())

    def poke(self) -> None:
        """Run now (a turn ended), unless a run is under way."""
        if not self._busy and (self._poked is None or self._poked.done()):
            self._poked = asyncio.get_running_loop().create_task(self.refresh())

    async def _tick(self) -> None:
        while True:
            await self.refresh()
            await asyncio.sleep(self.spec.refresh_s)

    async def refresh(self) -> None:
        if self._busy:
            return
        self._busy = True  # before the first await: a poke meanwhile must not start another
        try:
            line = await self._run()
        finally:
            self._busy = False
        if line is not None:
            self.runs += 1
            if line != self.line:
                self.line = line
                self.changed()

    async def _run(self) -> str | None:
        data = json.dumps(self.payload(), ensure_ascii=False).encode()
        try:
            self._proc = proc = await spawn.start(
                ["/bin/sh", "-c", self.spec.command],
                stdin=spawn.PIPE,
                stdout=spawn.PIPE,
                stderr=spawn.PIPE,
                cwd=self.cwd,
                start_new_session=True,  # its children are killed with it
            )
        except OSError as e:
            return self._failed(f"it could not start ({e})")
        try:
            out, err = await asyncio.wait_for(proc.communicate(data), self.spec.timeout_ms / 1000)
        except TimeoutError:
            await self._kill(proc)
            return self._failed(f"no answer within {self.spec.timeout_ms} ms")
        except asyncio.CancelledError:  # the chat is closing
            await self._kill(proc)
            raise
        finally:
            self._proc = None
        if proc.returncode != 0:
            said = first_line(err.strip().splitlines()[-1] if err.strip() else b"")
            return self._failed(f"exit {proc.returncode}" + (f": {said}" if said else ""))
        self._failing = None
        return first_line(out)

    def _failed(self, why: str) -> str | None:
        """Logged once per kind of failure in a row (a 5 s refresh must not fill the log)."""
        if why != self._failing:
            log.warning(
                "status line command %r: %s; the last line stays",
                self.spec.command,
                why,
                extra=FILE_ONLY,
            )
        self._failing = why
        return None  # no new line: the last one stays

    @staticmethod
    async def _kill(proc: asyncio.subprocess.Process) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await proc.wait()

    async def aclose(self) -> None:
        for task in (self._ticker, self._poked):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)


class StatusLines:
    """The port "status_line": the status line of the session's settings, for the bar to run."""

    def __init__(self, context: ExtensionContext) -> None:
        self.spec, self.cwd = status_line_settings(context.settings), context.workspace

    def line(
        self, payload: Callable[[], dict[str, Any]], changed: Callable[[], None]
    ) -> StatusLine | None:
        return None if self.spec is None else StatusLine(self.spec, payload, changed, self.cwd)
