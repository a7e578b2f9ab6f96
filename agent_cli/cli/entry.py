"""Console entry point. `agent --version` answers before anything heavy is imported."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] in (["--version"], ["-V"]):
        from agent_cli import __version__

        sys.stdout.write(f"agent {__version__}\n")
        sys.stdout.flush()
        return
    if sys.argv[1:2] == ["chat"]:
        from agent_cli.cli.chat_start import run_chat

        run_chat(sys.argv[2:])  # the prompt appears before typer would have loaded
        return
    from agent_cli.cli.app import app

    app(prog_name="agent")
