"""One background job: its shell (the leader of its own process group), its output file, and
what it has told so far."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path

from agent_cli.core.inbox import Inbox
from agent_cli.core.outside.groups import Shell

TAIL_BYTES = 8_192


@dataclass
class Job:
    id: str
    command: str
    proc: Shell
    output: Path
    session_id: str
    inbox: Inbox | None = None
    moved: bool = False  # a foreground command moved off the turn
    started: float = field(default_factory=time.monotonic)
    ended_at: float | None = None
    exit_code: int | None = None
    # "" while it runs; then "exited", "killed" (bash_kill), "stopped by the user",
    # "stopped at exit"; a kept job is left running when the agent exits
    how: str = ""
    kept: bool = False
    read_offset: int = 0  # where bash_output's last read stopped
    monitor: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def running(self) -> bool:
        return self.ended_at is None

    def elapsed(self) -> float:
        return (self.ended_at or time.monotonic()) - self.started

    def size(self) -> int:
        try:
            return self.output.stat().st_size
        except OSError:
            return 0

    def read(self, since: int, limit: int) -> tuple[str, int]:
        """At most `limit` bytes of output from byte `since`, and the offset after them."""
        try:
            with self.output.open("rb") as f:
                f.seek(since)
                data = f.read(limit)
        except OSError:
            return "", since
        return data.decode("utf-8", errors="replace"), since + len(data)

    def tail(self, lines: int) -> list[str]:
        if lines <= 0:
            return []
        size = self.size()
        text, _ = self.read(max(0, size - TAIL_BYTES), TAIL_BYTES)
        return [line for line in text.splitlines() if line.strip()][-lines:]

    def last_line(self) -> str:
        found = self.tail(1)
        return found[0] if found else ""

    def status(self) -> str:
        if self.running:
            return f"running for {self.elapsed():.0f} s (pid {self.pid})"
        if self.how == "exited":
            code = self.exit_code
            what = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
            return f"ended: {what} after {self.elapsed():.0f} s"
        return f"ended: {self.how} after {self.elapsed():.0f} s"

    def notice(self, tail_lines: int) -> str:
        """The short notice the model gets at its next request."""
        lines = [f"[background job {self.id} `{self.command}` {self.status()}]"]
        tail = self.tail(tail_lines)
        if tail:
            lines += ["Last lines of its output:", *tail]
        lines.append(f"Whole output: {self.output} (or bash_output with id {self.id}).")
        return "\n".join(lines)
