"""What the chat screen (ui/screen/live.py) asks of the REPL behind it (ui/repl.py)."""

from __future__ import annotations

from typing import Protocol


class Controller(Protocol):
    """What the screen asks of the REPL (ui/repl.py)."""

    busy: bool

    def live(self, width: int) -> str: ...  # ANSI: the unfinished block and running spinners

    def panel(self, columns: int, rows: int, mode: str) -> str: ...  # ANSI, at most `rows`

    def toolbar(self) -> str: ...

    def submit(self, text: str) -> None: ...

    def interrupt(self) -> None: ...  # cancel the running turn

    def queued_count(self) -> int: ...  # messages waiting for the next tool boundary

    def recall_queued(self) -> str | None: ...  # the newest one, taken back to edit

    def to_background(self) -> None: ...  # the running foreground command becomes a job
    def cycle_mode(self) -> None: ...  # the next permission mode

    def tool_log(self) -> str: ...  # the session's tool calls, for the full-screen view
