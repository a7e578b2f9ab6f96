"""Background sessions (issue 55): `agent run --bg` (the port "background", asked by
cli/commands/background.py), `agent ps`, `logs`, `stop`, `rm`. A session runs detached in a
process of its own (child.py), keeps its record in this user's registry (registry.py) from its
events (status.py), and waits for answers on its own socket (answering.py).

Loading this costs this module: each contribution imports its code when it is made."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_cli.runtime.extensions.contract import Extension, ExtensionContext

if TYPE_CHECKING:
    import typer

COMMANDS = (
    ("ps", "Background sessions of this user: running, waiting, ended."),
    ("logs", "What a background session did, as text (-f: as it goes)."),
    ("attach", "A terminal on a running background session: watch, answer, steer."),
    ("stop", "End a background session cleanly (it stays resumable)."),
    ("rm", "Forget an ended background session."),
)


def _launcher(context: ExtensionContext) -> object:
    from agent_cli.ext.background.launch import Launcher

    return Launcher()


def _cli() -> typer.Typer:
    import typer

    from agent_cli.ext.background import cli

    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    for name, about in COMMANDS:
        app.command(name, help=about)(getattr(cli, name))
    return app


EXTENSION = Extension(
    name="background",
    about="Background sessions: agent run --bg, agent ps, logs, stop, rm.",
    cli=_cli,
    ports={"background": _launcher},
)
