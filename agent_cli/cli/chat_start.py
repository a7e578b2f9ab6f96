"""`agent chat`'s options, defined once, and its start: parsed here without typer (see
cli/entry.py), so the prompt is drawn before typer would even have loaded."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agent_cli.cli.failures import failure_line
from agent_cli.core.errors import UsageError
from agent_cli.core.options import PERMISSION_MODES, SANDBOX_MODES, Options

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

DESCRIPTION = "Talk with the agent in an interactive REPL."


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]  # exit 2 via UsageError
        raise UsageError(f"agent chat: {message} (see agent chat --help)")

    def print_help(self, file: SupportsWrite[str] | None = None) -> None:
        """In typer's layout, as every other command's help (parsing stays argparse's)."""
        from agent_cli.cli.chat_help import typer_help

        (file or sys.stdout).write(typer_help(self, DESCRIPTION))


def chat_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agent chat", description=DESCRIPTION)
    parser.add_argument("--resume", "-r", metavar="ID", help="Resume a session (a unique prefix).")
    parser.add_argument(
        "--continue",
        "-c",
        dest="continue_last",
        action="store_true",
        help="Resume the newest session here.",
    )
    parser.add_argument(
        "--fork-session",
        action="store_true",
        help="With --continue/--resume: go on in a new session with its history.",
    )
    parser.add_argument("--model", "-m", help="Model id (default: AGENT_MODEL, settings).")
    parser.add_argument("--permission-mode", choices=PERMISSION_MODES, help="How calls are asked.")
    parser.add_argument(
        "--sandbox", choices=SANDBOX_MODES, help="auto, required or off (AGENT_SANDBOX)."
    )
    parser.add_argument(
        "--workspace", "-w", type=Path, default=Path(), help="Repository to work in."
    )
    parser.add_argument(
        "--state-dir", type=Path, help="Where transcripts, notes and logs go (AGENT_STATE_DIR)."
    )
    parser.add_argument(
        "--worktree",
        nargs="?",
        const="",
        metavar="NAME",
        help="Work in an agent worktree .agent/worktrees/NAME on branch agent/NAME (no NAME: one "
        "is made up).",
    )
    parser.add_argument("--base", metavar="REF", help="The commit --worktree starts from.")
    parser.add_argument(
        "--max-cost",
        type=_usd,
        metavar="USD",
        help="US dollars: stop before the request that would pass it (the panel's meter).",
    )
    return parser


def _usd(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0: {text!r}")
    return value


def parse_chat_args(argv: list[str]) -> Options:
    """The options, checked: a bad flag, two resume flags or a missing workspace raise
    UsageError (exit 2, naming it)."""
    return parsed_chat_args(argv)[0]


def parsed_chat_args(argv: list[str]) -> tuple[Options, argparse.Namespace]:
    args = chat_parser().parse_args(argv)
    if args.resume and args.continue_last:
        raise UsageError("--resume and --continue cannot be used together.")
    if args.fork_session and not (args.resume or args.continue_last):
        raise UsageError("--fork-session needs --continue or --resume.")
    folder = args.workspace.expanduser().resolve()
    if not folder.is_dir():
        raise UsageError(f"--workspace {args.workspace}: not a directory")
    options = Options(
        workspace=folder,
        state_dir=args.state_dir,
        model=args.model,
        permission_mode=args.permission_mode,
        sandbox=args.sandbox,
        resume=args.resume,
        continue_last=args.continue_last,
        fork_session=args.fork_session,
        max_cost_usd=args.max_cost,
    )
    return options, args


def run_chat(argv: list[str]) -> None:
    """Parse, then run the REPL (or its plain form without a terminal). Failures are one line
    on stderr and their exit code, never a traceback."""
    try:
        options, args = parsed_chat_args(argv)
        from agent_cli.cli.worktree_session import in_worktree

        with in_worktree(options, args.worktree, args.base) as inside:
            start_chat(inside)
    except (Exception, KeyboardInterrupt) as e:
        message, code = failure_line(e)
        sys.stderr.write(f"agent: {message}\n")
        raise SystemExit(code) from None


def start_chat(options: Options) -> None:
    from agent_cli.model.credentials import require_credentials

    require_credentials()
    from agent_cli.cli.workspace_trust import ask_trust, warn_untrusted

    if sys.stdin.isatty() and sys.stdout.isatty():
        ask_trust(options.workspace)  # once, before the REPL: the answer decides its settings
        from agent_cli.ui.app import run_screen

        run_screen(options)
    else:
        warn_untrusted(options.workspace)
        from agent_cli.ui.plain import run_plain

        run_plain(options)
