"""`agent chat` as typer lists it: its options are defined once, in cli/chat_start.py, and
everything after `chat` is handed there (help included)."""

from __future__ import annotations

import typer

from agent_cli.cli.chat_start import run_chat

CHAT_CONTEXT = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


def chat(ctx: typer.Context) -> None:
    run_chat(list(ctx.args))
