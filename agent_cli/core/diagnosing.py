"""The port through which an edit learns what it broke: language-server diagnostics (and a
formatter's pass) after `edit_file` / `write_file`, and the `diagnostics` tool's look-up.
An extension provides it as the port "after_edit" (language servers); the Runtime puts it
on each session's ToolContext."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class EditReport:
    text: str = ""  # appended to the edit's result ("" when there is nothing to say)
    problems: int = 0  # diagnostics shown or counted (the chat's tool line shows it)
    formatted: bool = False  # a formatter rewrote the file after the edit


@runtime_checkable
class Diagnoser(Protocol):
    async def after_edit(self, path: Path) -> EditReport: ...

    async def report(self, paths: list[Path]) -> str: ...
