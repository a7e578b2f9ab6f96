"""`agent send NAME TEXT`: a message into a background session's inbox (mail.py). A working
session reads it at its next tool call, an idle one takes it as its next prompt; run by a
session's own bash, it is from that session (its answer comes back to it), else from the user."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from agent_cli.cli.common import guarded
from agent_cli.core.errors import UsageError
from agent_cli.ext.background import mail

WHEN = {"idle": "as its next prompt", "": "at its next tool call"}


@guarded
def send(
    name: str = typer.Argument(..., help="The session's name (agent ps)."),
    text: str = typer.Argument(..., help="The message; '-' reads it from standard input."),
) -> None:
    """Send a message to a background session."""
    if text == "-":
        text = sys.stdin.read()
    to = mail.find(name, str(Path.cwd().resolve()))
    me = mail.sender()
    if me is not None and me.path == to.path:
        raise UsageError(f"{name} is the session this runs in: send to another one")
    state = mail.post(to, text)
    typer.echo(f"sent to {to.name} ({state}): it reads it {WHEN.get(state, WHEN[''])}")
