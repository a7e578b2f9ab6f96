"""The daily extras of `agent chat`: /rename, /export, /copy, /add-dir, /init, /review, /btw and
/vim, and the status line of one's own (the `status_line` setting, run by the status bar through
the port "status_line"). Nothing of it is imported until chat loads its commands (or a settings
layer sets `status_line`); each command's module is imported when it first runs."""

from __future__ import annotations

import importlib
from typing import Any

from agent_cli.ext.daily.settings import STATUS_LINE
from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
)

COMMANDS = (  # (name, usage, about, "module:function")
    (
        "/rename",
        "/rename [TITLE]",
        "give this session a title (shown in /sessions and agent sessions)",
        "chat_session:rename",
    ),
    (
        "/export",
        "/export [FILE] [--json]",
        "the conversation as Markdown or JSON (FILE, else beside the session's transcript)",
        "chat_session:export",
    ),
    (
        "/copy",
        "/copy",
        "ask the terminal to copy the last reply (OSC 52)",
        "chat_session:copy",
    ),
    (
        "/add-dir",
        "/add-dir [PATH]",
        "read and write another directory as the workspace (none: list them)",
        "chat_workspace:add_dir",
    ),
    (
        "/init",
        "/init",
        "write AGENTS.md from a look at the repository (the write is asked)",
        "chat_workspace:init",
    ),
    (
        "/review",
        "/review [focus]",
        "review the working tree's changes, findings ranked",
        "chat_workspace:review",
    ),
    (
        "/btw",
        "/btw QUESTION",
        "a side question, answered without tools and kept out of the history",
        "chat_aside:btw",
    ),
    (
        "/vim",
        "/vim [on|off]",
        "vi keys in the input box (Esc: normal mode; Ctrl-C stops a turn)",
        "chat_editing:vim",
    ),
)


def _runner(target: str) -> Any:
    module, _, function = target.partition(":")

    def run(port: CommandPort, arg: str) -> None:
        from agent_cli.ui.slash.host import Host

        host = port.front
        if not isinstance(host, Host):
            port.say("This command needs agent chat.", "red")
            return
        getattr(importlib.import_module(f"{__name__}.{module}"), function)(host, arg)

    return run


def _service(runtime: Any) -> object:
    from agent_cli.ext.daily.service import Daily

    return Daily(runtime)


def _status_line(context: ExtensionContext) -> object:
    from agent_cli.ext.daily.status_line import StatusLines

    return StatusLines(context)


EXTENSION = Extension(
    name="daily",
    about="the daily extras of agent chat: rename, export, copy, add-dir, init, review, btw, vim",
    slash_commands=tuple(
        SlashCommand(name, about, _runner(target), usage) for name, usage, about, target in COMMANDS
    ),
    service=_service,
    keys={"status_line": STATUS_LINE},
    ports={"status_line": _status_line},
)
