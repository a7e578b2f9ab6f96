"""The evidence ledger: every command the agent ran (exit code, output tail, time) and every
change to the workspace, in order. Fed from the loop's typed events, so the loop stays unaware."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from agent_cli.core.events import Event, FilesChanged, ToolEnd, ToolStart

TAIL_CHARS = 2000  # the output kept per command: what a claim's evidence and a goal's retry show
EDIT_TOOLS = frozenset({"edit_file", "write_file"})
_EXIT_LINE = re.compile(r"(?:^|\n)exit code: (-?\d+)\s*$")


@dataclass(frozen=True)
class LedgerCommand:
    seq: int  # its place among all entries: a run counts for a claim only after the last edit
    command: str
    exit_code: int | None  # None: timed out or killed before an exit code was known
    tail: str
    at: float  # wall-clock time it ended


@dataclass(frozen=True)
class Change:
    seq: int
    paths: tuple[str, ...]
    at: float


@dataclass
class EvidenceLedger:
    commands: list[LedgerCommand] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    _pending: dict[str, str] = field(default_factory=dict)  # tool_use id → bash command
    _seq: int = 0

    def _next(self) -> int:
        self._seq += 1
        return self._seq

    def record_command(self, command: str, exit_code: int | None, output: str) -> LedgerCommand:
        run = LedgerCommand(self._next(), command, exit_code, output[-TAIL_CHARS:], time.time())
        self.commands.append(run)
        return run

    def record_change(self, paths: list[str]) -> None:
        self.changes.append(Change(self._next(), tuple(paths), time.time()))

    def feed(self, event: Event) -> None:
        """Takes in one loop event; those that are neither a bash call nor an edit pass by."""
        if isinstance(event, ToolStart) and event.name == "bash":
            self._pending[event.id] = str(event.input.get("command", ""))
        elif isinstance(event, ToolEnd) and event.id in self._pending:
            command = self._pending.pop(event.id)
            self.record_command(command, exit_code_of(event.output), event.output)
        elif isinstance(event, ToolEnd) and event.name in EDIT_TOOLS and not event.is_error:
            self.record_change([event.summary])
        elif isinstance(event, FilesChanged) and event.files:
            self._files_changed(event.files)

    def _files_changed(self, files: list[str]) -> None:
        """The turn's checkpoint diff names what changed, bash edits (sed -i, git apply) too.
        It comes at the turn's end, so it is a change after the turn's runs only when some
        file is one no edit tool reported (an edit tool's change is already in order)."""
        reported = " ".join(p for change in self.changes for p in change.paths)
        unseen = [f for f in files if f not in reported]
        if unseen:
            self.record_change(unseen)

    @property
    def last_change(self) -> int:
        return self.changes[-1].seq if self.changes else 0

    def since_last_change(self) -> list[LedgerCommand]:
        return [run for run in self.commands if run.seq > self.last_change]


def exit_code_of(output: str) -> int | None:
    """The exit code the bash tool writes on its result's last line ('exit code: N')."""
    found = _EXIT_LINE.search(output)
    return int(found.group(1)) if found else None
