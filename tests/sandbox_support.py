"""What the sandbox tests share: a git workspace with the agent's own folder in it."""

from __future__ import annotations

import subprocess
from pathlib import Path


def sandbox_workspace(tmp_path: Path) -> Path:
    """`tmp_path/ws`: a git repository holding `.agent/settings.json` (so `.agent` exists)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / ".agent").mkdir()
    (ws / ".agent" / "settings.json").write_text("{}\n")
    return ws


def shell_wrapper() -> object | None:
    """The sandbox extension's shell wrapper, as a session's bash asks for it: tools built
    by hand confine their commands as a run's do."""
    from agent_cli.ext.sandbox.plugin.wrapper import ShellSandbox

    return ShellSandbox()
