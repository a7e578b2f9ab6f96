"""What a slash command may ask of the REPL that runs it: the port every command module takes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent_cli.core.events import Event
    from agent_cli.runtime.runtime import Runtime
    from agent_cli.ui.input.terminal import ScreenTerminal
    from agent_cli.ui.screen.side_panel import PanelState


class Host(Protocol):
    runtime: Runtime
    panel_state: PanelState
    color: bool
    busy: bool
    terminal: ScreenTerminal | None  # the screen's clipboard, vi mode (None: no terminal)

    def say(self, text: str, style: str = "") -> None: ...

    def columns(self) -> int: ...  # the width `say` lays text out at

    def compact(self, focus: str | None) -> None: ...

    def remember(self) -> None: ...  # /remember: an episode now, in the background

    def switched(self, message: str) -> None: ...  # after /clear or /resume: a fresh panel

    def rewound(self, message: str, prompt: str) -> None: ...  # the conversation taken back

    def send(self, text: str) -> None: ...  # a project command: run as a turn

    def exit(self) -> None: ...

    def start(self, events: Callable[[], AsyncIterator[Event]]) -> object: ...  # a task

    async def ask(self, question: str, answers: dict[str, str]) -> str | None: ...  # None: no TTY

    async def pick(self, title: str, options: list[str]) -> int | None: ...  # None: cancelled


Command = Callable[[Host, str], None]
