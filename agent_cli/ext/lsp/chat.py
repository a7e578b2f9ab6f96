"""`/lsp`: the run's language servers, their state and last error."""

from __future__ import annotations

from agent_cli.ext.lsp.service import service_of
from agent_cli.runtime.extensions.contract import CommandPort


def lsp_command(port: CommandPort, arg: str) -> None:
    service = service_of(port.context)
    rows = service.rows() if service is not None else []
    if not rows:
        port.say("No language server is configured or on PATH (settings: lsp.servers).")
        return
    for row in rows:
        error = f"  last error: {row.last_error}" if row.last_error else ""
        port.say(f"{row.name}  {row.state}  {row.extensions}  `{row.command}`{error}")
