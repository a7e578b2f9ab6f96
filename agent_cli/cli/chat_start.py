"""Starting the REPL, with no typer in the way: `agent chat` is parsed here first (see
cli/entry.py), so the prompt is drawn before typer would even have loaded."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agent_cli.cli.failures import failure_line
from agent_cli.errors import UsageError

MODES = ("default", "accept-edits", "bypass", "plan")


def fast_args(argv: list[str]) -> dict[str, Any] | None:
    """`agent chat` options parsed without typer, or None to let typer handle it (help, any
    mistake) so usage errors and --help look the same as every other command's."""
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    parser.add_argument("--resume", "-r")
    parser.add_argument("--continue", "-c", dest="continue_last", action="store_true")
    parser.add_argument("--model", "-m")
    parser.add_argument("--permission-mode", choices=MODES)
    parser.add_argument("--workspace", "-w", type=Path, default=Path())
    parser.add_argument("--state-dir", type=Path)
    try:
        parsed, rest = parser.parse_known_args(argv)
    except argparse.ArgumentError:
        return None
    return None if rest else vars(parsed)


def run_fast(argv: list[str]) -> bool:
    """Run `agent chat` if its arguments parse here; False to fall back to typer."""
    args = fast_args(argv)
    if args is None:
        return False
    try:
        start_chat(**args)
    except (Exception, KeyboardInterrupt) as e:
        message, code = failure_line(e)
        sys.stderr.write(f"agent: {message}\n")
        raise SystemExit(code) from None
    return True


def start_chat(
    resume: str | None,
    continue_last: bool,
    model: str | None,
    permission_mode: str | None,
    workspace: Path,
    state_dir: Path | None,
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
    from agent_cli.cli.workspace_trust import ask_trust, warn_untrusted

    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if interactive:
        ask_trust(folder)
        from agent_cli.ui.app import run_screen

        run_screen(options)
    else:
        warn_untrusted(folder)
        from agent_cli.ui.plain import run_plain

        run_plain(options)
