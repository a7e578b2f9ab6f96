"""`/lsp`: the run's language servers, their state and last error."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_cli.ui.slash.host import Host

HELP = {"/lsp": "language servers: which files they check, their state, their last error"}


def lsp_command(host: Host, arg: str) -> None:
    rows = host.runtime.language_servers()
    if not rows:
        host.say("No language server is configured or on PATH (settings: lsp.servers).")
        return
    for row in rows:
        error = f"  last error: {row.last_error}" if row.last_error else ""
        host.say(f"{row.name}  {row.state}  {row.extensions}  `{row.command}`{error}")
