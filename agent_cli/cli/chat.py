"""`agent chat`: the interactive REPL (SPEC §1, §14).

Only prompt_toolkit is imported before the prompt is drawn; the session, rich and the SDK load
after the first frame (the SDK in a background thread)."""

from __future__ import annotations

import sys
from pathlib import Path

from agent_cli.cli import options as opt
from agent_cli.cli.common import guarded
from agent_cli.errors import UsageError


@guarded
def chat(
    resume: str | None = opt.RESUME,
    continue_last: bool = opt.CONTINUE,
    model: str | None = opt.MODEL,
    permission_mode: opt.PermissionModeOpt | None = opt.PERMISSION_MODE,
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    from agent_cli.model.credentials import require_credentials

    if resume and continue_last:
        raise UsageError("--resume and --continue cannot be used together.")
    folder = workspace.expanduser().resolve()
    if not folder.is_dir():
        raise UsageError(f"--workspace {workspace}: not a directory")
    require_credentials()
    # build.Options is made after the first frame: importing build is what takes the time
    options = {
        "workspace": folder,
        "state_dir": state_dir,
        "model": model,
        "permission_mode": permission_mode,
        "resume": resume,
        "continue_last": continue_last,
    }
    if sys.stdin.isatty() and sys.stdout.isatty():
        from agent_cli.ui.app import run_screen

        run_screen(options)
    else:
        from agent_cli.ui.plain import run_plain

        run_plain(options)
