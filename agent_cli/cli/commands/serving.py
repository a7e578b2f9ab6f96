"""`agent acp` and `agent mcp serve`: the agent as a server over stdio, for an editor (the
Agent Client Protocol) or another agent (MCP). The servers live in serve/; only they own stdout."""

from __future__ import annotations

from pathlib import Path

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded


@guarded
def acp(
    model: str | None = opt.MODEL,
    permission_mode: opt.PermissionModeOpt | None = opt.PERMISSION_MODE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """Each editor session opens in the `cwd` the editor gives, as `agent chat` would there."""
    from agent_cli.serve.acp_main import run_acp
    from agent_cli.serve.defaults import Defaults

    run_acp(Defaults(model=model, permission_mode=permission_mode, state_dir=state_dir))


@guarded
def mcp_serve(
    model: str | None = opt.MODEL,
    permission_mode: opt.PermissionModeOpt | None = opt.PERMISSION_MODE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    """Tools `agent` and `agent_reply` over stdio; approvals nobody can give are denied."""
    from agent_cli.serve.defaults import Defaults
    from agent_cli.serve.mcp_server import run_mcp

    run_mcp(Defaults(model=model, permission_mode=permission_mode, state_dir=state_dir))
