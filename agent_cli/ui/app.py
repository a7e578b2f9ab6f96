"""Start-up of the screen REPL: draw the prompt first, load the rest right after the first frame."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_cli.core.files.paths import make_dirs
from agent_cli.core.options import Options
from agent_cli.ui.input.completion import ChatCompleter
from agent_cli.ui.screen.live import ChatScreen

if TYPE_CHECKING:
    from agent_cli.ui.repl import Repl

HISTORY_FILE = Path(".agent") / "chat-history"


def history_file(workspace: Path, state_dir: Path | None) -> Path | None:
    """Input history per workspace, under its state directory; None if it cannot be written."""
    state = state_dir or Path(os.environ.get("AGENT_STATE_DIR") or workspace)
    path = state.expanduser() / HISTORY_FILE
    try:
        make_dirs(path.parent)
    except OSError:
        return None
    return path


def _slash_names(booted: dict[str, Any]) -> list[str | tuple[str, str]]:
    # loaded with the REPL, after the first frame; the extensions' and the workspace's own
    # commands once it has booted
    slash = sys.modules.get("agent_cli.ui.slash.commands")
    if slash is None:
        return []
    repl = booted.get("repl")
    if repl is None:
        return list(slash.names())
    workspace = sys.modules["agent_cli.ui.slash.workspace_commands"]  # imported by slash
    own = slash.names(repl.runtime.wiring.extensions)
    return [*own, *workspace.completion_items(repl.runtime)]


def _extensions(booted: dict[str, Any]) -> list[Any]:
    """The run's extensions once the REPL has booted (their commands complete too)."""
    repl = booted.get("repl")
    return [repl.runtime.wiring.extensions] if repl is not None else []


def _mcp(booted: dict[str, Any], what: str) -> list[str]:
    """An extension's commands or mentions (MCP prompts, resources), once the REPL has
    booted."""
    repl, host = booted.get("repl"), sys.modules.get("agent_cli.ui.slash.host")
    if repl is None or host is None:
        return []
    part = repl.runtime.port("chat_part")
    return list(part.completions(what)) if isinstance(part, host.ChatPart) else []


def _slash_description(name: str, booted: dict[str, Any]) -> str:
    slash = sys.modules.get("agent_cli.ui.slash.commands")
    return slash.describe(name, *_extensions(booted)) if slash is not None else ""


def run_screen(options: Options) -> None:
    """Run the REPL until /exit, Ctrl-D or a double Ctrl-C; print how to resume."""
    workspace = options.workspace
    booted: dict[str, Any] = {}
    completer = ChatCompleter(
        workspace,
        lambda: [*_slash_names(booted), *_mcp(booted, "commands")],
        lambda: _mcp(booted, "mentions"),
        lambda name: _slash_description(name, booted),
    )
    screen = ChatScreen(history_file(workspace, options.state_dir), completer)

    def boot() -> None:
        try:
            from agent_cli.ui.repl import Repl

            booted["repl"] = Repl.boot(screen, options)
        except Exception as e:  # shown after the screen is gone, by the CLI's error handler
            booted["error"] = e
            screen.exit()

    async def main() -> None:
        await screen.run(boot)
        repl: Repl | None = booted.get("repl")
        if repl is not None:
            await repl.shutdown()

    asyncio.run(main())
    if "error" in booted:
        raise booted["error"]
    repl = booted.get("repl")
    if repl is not None:
        sys.stdout.write(repl.exit_message() + "\n")
        sys.stdout.flush()
