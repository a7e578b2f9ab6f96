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


def _slash_names(workspace: Path) -> list[str | tuple[str, str]]:
    # loaded with the REPL, after the first frame
    slash = sys.modules.get("agent_cli.ui.slash.commands")
    if slash is None:
        return []
    project = sys.modules["agent_cli.ui.slash.project"]  # imported by slash
    return [*slash.names(), *project.completion_items(workspace)]


def _extension_commands(booted: dict[str, Any]) -> list[str]:
    """The extensions' slash commands, once the REPL has booted."""
    repl = booted.get("repl")
    return [] if repl is None else [c.name for _, c in repl.runtime.wiring.extensions.commands]


def _mcp(booted: dict[str, Any], what: str) -> list[str]:
    """MCP prompt commands or resource mentions, once the REPL has booted."""
    repl, mcp_prompts = booted.get("repl"), sys.modules.get("agent_cli.ext.mcp.prompts")
    if repl is None or mcp_prompts is None:
        return []
    if what == "commands":
        return sorted(mcp_prompts.prompt_commands(repl.runtime.mcp))
    return list(mcp_prompts.resource_mentions(repl.runtime.mcp))


def _slash_description(name: str) -> str:
    slash = sys.modules.get("agent_cli.ui.slash.commands")
    return slash.describe(name) if slash is not None else ""


def run_screen(options: Options) -> None:
    """Run the REPL until /exit, Ctrl-D or a double Ctrl-C; print how to resume."""
    workspace = options.workspace
    booted: dict[str, Any] = {}
    completer = ChatCompleter(
        workspace,
        lambda: [*_slash_names(workspace), *_extension_commands(booted), *_mcp(booted, "commands")],
        lambda: _mcp(booted, "mentions"),
        _slash_description,
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
