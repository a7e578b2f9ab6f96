"""Background sessions (issue 55): `agent run --bg` (the port "background", asked by
cli/commands/background.py), `agent ps`, `logs`, `stop`, `rm`. A session runs detached in a
process of its own (child.py), keeps its record in this user's registry (registry.py) from its
events (status.py), waits for answers on its own socket (answering.py), and talks: it stays
idle for messages after its prompt (talking.py), which `agent send` and the model's tools
(tools.py) put in its inbox (mail.py). In `agent chat`: `/bg [PROMPT]` (chat.py) and the status
bar's count of the sessions that wait for an answer (waiting_part.py).

Loading this costs this module and its settings: each contribution imports its code when it is
made."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_cli.ext.background.settings import BackgroundSettings
from agent_cli.runtime.extensions.contract import (
    CommandPort,
    Extension,
    ExtensionContext,
    SlashCommand,
    StatusPart,
)

if TYPE_CHECKING:
    import typer

    from agent_cli.core.tool_contract import AnyTool

COMMANDS = (
    ("ps", "Background sessions of this user: running, waiting, ended."),
    ("logs", "What a background session did, as text (-f: as it goes)."),
    ("attach", "A terminal on a running background session: watch, answer, steer."),
    ("stop", "End a background session cleanly (it stays resumable)."),
    ("rm", "Forget an ended background session."),
    ("send", "Send a message to a background session (its next prompt when it is idle)."),
)


def _launcher(context: ExtensionContext) -> object:
    from agent_cli.ext.background.launch import Launcher

    return Launcher()


def _cli() -> typer.Typer:
    import typer

    from agent_cli.ext.background import cli, send

    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    for name, about in COMMANDS:
        app.command(name, help=about)(getattr(cli, name, None) or getattr(send, name))
    return app


def _tools(context: ExtensionContext) -> Sequence[AnyTool]:
    from agent_cli.ext.background.tools import session_tools

    return session_tools(context)


def _bg(port: CommandPort, arg: str) -> None:
    from agent_cli.ext.background.chat import bg

    bg(port, arg)


def _status_parts(context: ExtensionContext) -> Sequence[StatusPart]:
    from agent_cli.ext.background.waiting_part import WaitingPart

    return [WaitingPart()]


BG = SlashCommand(
    "/bg",
    "carry this conversation on in a background session (PROMPT: its next prompt)",
    _bg,
    "/bg [PROMPT]",
)

EXTENSION = Extension(
    name="background",
    about="Background sessions: agent run --bg, agent ps, logs, stop, rm, send; sessions that "
    "talk (list_sessions, send_message, start_session); /bg and the count of those waiting in "
    "agent chat.",
    settings=BackgroundSettings,
    tools=_tools,
    slash_commands=(BG,),
    status_parts=_status_parts,
    cli=_cli,
    ports={"background": _launcher},
)
