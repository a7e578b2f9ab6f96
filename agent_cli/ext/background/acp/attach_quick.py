"""`agent attach NAME` on a terminal answered before typer loads (what `agent chat` does:
cli/chat_start.py): cli/entry.py's QUICK table names this module for `attach`, and its
`quick` runs the chat screen at once; anything else (`--acp`, `--help`, a pipe, a typo'd
flag) is left to typer's command (None)."""

from __future__ import annotations

import sys
from pathlib import Path


def quick(argv: list[str]) -> int | None:
    """The exit code of `agent attach NAME` on a terminal; None: typer's command answers."""
    if len(argv) != 1 or argv[0].startswith("-"):
        return None
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    from agent_cli.cli.failures import failure_line
    from agent_cli.ext.background import mail
    from agent_cli.ext.background.acp.attach import attach

    try:
        attach(mail.find(argv[0], str(Path.cwd().resolve())))
    except (Exception, KeyboardInterrupt) as e:
        message, code = failure_line(e)
        sys.stderr.write(f"agent: {message}\n")
        return code
    return 0
