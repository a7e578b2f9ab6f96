"""An extension's slash commands in `agent chat` (issue 58): listed by /help under Extensions,
run with the extension's context through the port the REPL adapts, and never able to take the
chat down or a built-in's name."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from agent_cli.core.events import Event
from agent_cli.core.files.paths import Paths
from agent_cli.core.settings.schema import Settings
from agent_cli.runtime.extensions import CommandPort, Extension, SlashCommand
from agent_cli.runtime.extensions.checks import Loaded
from agent_cli.runtime.extensions.registry import Extensions
from agent_cli.ui.slash import commands as slash
from agent_cli.ui.slash.host import Host


class FakeHost:
    def __init__(self, extensions: Extensions, workspace: Path) -> None:
        self.runtime = SimpleNamespace(
            wiring=SimpleNamespace(extensions=extensions),
            options=SimpleNamespace(workspace=workspace),
            session=SimpleNamespace(paths=Paths(workspace), id="s-1"),
            settings=Settings(),
            extension=lambda name: None,  # no extension of this test keeps a run-wide service
            port=lambda name: None,  # nor provides a port
        )
        self.busy = False
        self.said: list[tuple[str, str]] = []
        self.sent: list[str] = []
        self.started: list[Callable[[], AsyncIterator[Event]]] = []

    def say(self, text: str, style: str = "") -> None:
        self.said.append((text, style))

    def columns(self) -> int:
        return 100

    def send(self, text: str) -> None:
        self.sent.append(text)

    def start(self, events: Callable[[], AsyncIterator[Event]]) -> object:
        self.started.append(events)
        return None


ran: list[tuple[str, str, str]] = []


def hello(port: CommandPort, arg: str) -> None:
    ran.append((port.context.name, port.context.session_id, arg))
    port.say(f"hello, {arg}")
    port.send(f"greet {arg}")


def boom(port: CommandPort, arg: str) -> None:
    raise ValueError("no greeting configured")


async def later(port: CommandPort, arg: str) -> None:
    await asyncio.sleep(0)
    port.say(f"later, {arg}")


def host_with(tmp_path: Path, *commands: SlashCommand) -> FakeHost:
    extension = Extension("hello", slash_commands=list(commands))
    return FakeHost(Extensions([Loaded(extension, "hello_ext 0.1")]), tmp_path)


def run(host: FakeHost, line: str) -> None:
    slash.run(cast(Host, host), line)


def test_help_lists_the_extensions_commands_under_their_own_heading(tmp_path: Path):
    host = host_with(
        tmp_path,
        SlashCommand("/hello", "say hello", hello, "/hello [NAME]"),
        SlashCommand("/help", "an extension's help", hello),  # the built-in's name
    )
    run(host, "/help all")  # the whole list (/help alone: the most used, issue 56)
    ((text, _style),) = host.said
    lines = text.splitlines()
    at = lines.index("Extensions")
    assert lines[at - 1] == ""
    assert lines[at + 1].split() == ["/hello", "[NAME]", "say", "hello", "(hello)"]
    assert lines[at + 2] == ""
    assert lines[at + 3] == "Keys"
    assert "an extension's help" not in text
    assert slash.extension_notes(host.runtime.wiring.extensions) == [
        "extension 'hello': /help is the agent's own command; not added"
    ]


def test_help_without_extensions_has_no_heading_for_them(tmp_path: Path):
    host = FakeHost(Extensions(), tmp_path)
    run(host, "/help all")
    assert "Extensions" not in host.said[0][0].splitlines()


def test_a_command_runs_with_its_extensions_context(tmp_path: Path):
    ran.clear()
    host = host_with(tmp_path, SlashCommand("/hello", "say hello", hello))
    run(host, "/hello  Ada ")
    assert ran == [("hello", "s-1", "Ada")]
    assert host.said == [("hello, Ada", "")]
    assert host.sent == ["greet Ada"]


def test_what_a_command_raises_is_one_red_line(tmp_path: Path):
    host = host_with(tmp_path, SlashCommand("/boom", "fails", boom))
    run(host, "/boom")
    assert host.said == [("/boom failed: ValueError: no greeting configured", "red")]


def test_a_coroutine_runs_as_the_chats_work_and_waits_for_a_turn(tmp_path: Path):
    host = host_with(tmp_path, SlashCommand("/later", "later", later))
    run(host, "/later Bo")
    (events,) = host.started

    async def drain() -> list[Any]:
        return [event async for event in events()]

    assert asyncio.run(drain()) == []
    assert host.said == [("later, Bo", "")]
    host.busy, host.said = True, []
    run(host, "/later Cy")  # the coroutine made is closed: no 'never awaited' warning
    assert host.said == [("A turn is running: /later once it ends.", "yellow")]
    assert len(host.started) == 1


def test_an_unknown_command_lists_the_extensions_too(tmp_path: Path):
    host = host_with(tmp_path, SlashCommand("/hello", "say hello", hello))
    run(host, "/nope")
    ((text, style),) = host.said
    assert style == "red"
    assert text.startswith("Unknown command /nope. Known: /help ")
    assert text.endswith(" /exit /hello")
