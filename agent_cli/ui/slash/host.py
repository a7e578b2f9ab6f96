"""What a slash command may ask of the REPL that runs it: the port every command module takes."""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from agent_cli.core.errors import AgentError
from agent_cli.runtime.extensions.contract import ExtensionContext

if TYPE_CHECKING:
    from agent_cli.core.events import Event
    from agent_cli.runtime.extensions.contract import SlashCommand
    from agent_cli.runtime.runtime import Runtime
    from agent_cli.ui.input.terminal import ScreenTerminal
    from agent_cli.ui.screen.side_panel import PanelState


@runtime_checkable
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


@runtime_checkable
class ChatPart(Protocol):
    """What an extension adds to the chat beyond its slash commands: the port "chat_part"
    (the MCP servers': their count in the status bar, their prompts as commands)."""

    def status(self) -> str | None: ...  # its status-bar part; None: nothing to show

    def watch(self, changed: Callable[[], None]) -> None: ...  # told when `status` changes

    def completions(self, kind: str) -> list[str]: ...  # "commands" after /, "mentions" after @

    def run(self, host: Host, name: str, arg: str) -> bool: ...  # False: not one of its own


log = logging.getLogger(__name__)


class ExtensionPort:
    """The REPL as an extension's slash command sees it (the contract's CommandPort)."""

    def __init__(self, host: Host, context: ExtensionContext) -> None:
        self.host, self.context = host, context

    def say(self, text: str, style: str = "") -> None:
        self.host.say(text, style)

    def send(self, text: str) -> None:
        self.host.send(text)

    def columns(self) -> int:
        return self.host.columns()

    @property
    def front(self) -> Host:
        return self.host


def context_of(runtime: Runtime, extension: str) -> ExtensionContext:
    """The context an extension's chat code runs with: the current session's."""
    session = runtime.session
    return ExtensionContext(
        extension, runtime.options.workspace, session.paths, runtime.settings, session.id,
        runtime.extension, runtime.port,
    )  # fmt: skip


def run_extension(host: Host, extension: str, command: SlashCommand, arg: str) -> None:
    """An extension's command: what it raises is said in one line; a coroutine it returns
    runs as the chat's current work (Ctrl-C stops it)."""
    name, context = command.name, context_of(host.runtime, extension)
    try:
        work = command.run(ExtensionPort(host, context), arg)
    except AgentError as e:  # a usage error says itself, as the chat's own commands' do
        host.say(str(e), "red")
        return
    except Exception as e:  # the chat outlives an extension's bug
        log.exception("%s (extension %s) failed", name, extension)
        host.say(f"{name} failed: {type(e).__name__}: {e}", "red")
        return
    if work is None:
        return
    if host.busy:
        if inspect.iscoroutine(work):
            work.close()
        host.say(f"A turn is running: {name} once it ends.", "yellow")
        return
    host.start(_awaiting(work))


def _awaiting(work: Awaitable[None]) -> Callable[[], AsyncIterator[Event]]:
    async def events() -> AsyncIterator[Event]:
        await work
        return
        yield  # an async generator without events

    return events
