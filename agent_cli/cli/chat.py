"""`agent chat`: the interactive REPL (SPEC §1, §14).

Only prompt_toolkit is imported before the prompt is drawn; the session, rich and the SDK load
after the first frame (the SDK in a background thread)."""

from __future__ import annotations

from pathlib import Path

from agent_cli.cli import options as opt
from agent_cli.cli.chat_start import start_chat
from agent_cli.cli.common import guarded


@guarded
def chat(
    resume: str | None = opt.RESUME,
    continue_last: bool = opt.CONTINUE,
    model: str | None = opt.MODEL,
    permission_mode: opt.PermissionModeOpt | None = opt.PERMISSION_MODE,
    workspace: Path = opt.WORKSPACE,
    state_dir: Path | None = opt.STATE_DIR,
) -> None:
    start_chat(resume, continue_last, model, permission_mode, workspace, state_dir)
