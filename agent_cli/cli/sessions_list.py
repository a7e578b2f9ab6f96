"""`agent sessions [list]`: the sessions of the state directory, newest activity first, each
with its message count, the prompt that tells it apart and the session it was forked from;
`*` marks the one `agent chat --continue` resumes here. Answered without typer (see
cli/entry.py): the listing is done before typer would have loaded."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from agent_cli.core.files.paths import Paths
from agent_cli.session.listing import SessionSummary, describe, latest, summaries, tags

MARK = "* the session `agent chat --continue` resumes here"


class _NotMine(Exception):
    """Arguments the quick parser leaves to typer (help, a bad flag: its message, exit 2)."""


class _QuickParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _NotMine(message)


def _parser() -> argparse.ArgumentParser:
    parser = _QuickParser(prog="agent sessions", add_help=False)
    parser.add_argument("command", nargs="?", choices=["list"])
    parser.add_argument("--json", dest="as_json", action="store_true")
    parser.add_argument("--workspace", "-w", type=Path, default=Path())
    parser.add_argument("--state-dir", type=Path)
    return parser


def quick(argv: list[str]) -> int | None:
    """`agent sessions [list] ...` answered here; None for anything typer should answer."""
    try:
        args = _parser().parse_args(argv)
    except _NotMine:
        return None
    workspace = args.workspace.expanduser().resolve()
    if not workspace.is_dir():
        return None  # typer's one line, exit 2
    _warnings_to_stderr()
    state = args.state_dir or Path(os.environ.get("AGENT_STATE_DIR") or workspace)
    print_listing(Paths(state.expanduser().resolve()), workspace, args.as_json)
    return 0


def _warnings_to_stderr() -> None:
    handler = logging.StreamHandler()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("agent: %(levelname)s: %(message)s"))
    logging.getLogger().addHandler(handler)


def print_listing(paths: Paths, workspace: Path, as_json: bool) -> None:
    found = summaries(paths)
    current = latest(found, workspace)
    current_id = current.id if current else None
    if as_json:
        rows = [json_row(s, s.id == current_id) for s in found]
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return
    if not found:
        sys.stdout.write("No sessions yet.\n")
    for summary in found:
        mark = "*" if summary.id == current_id else " "
        tail = "".join(f"  ({t})" if " of " in t else f"  {t}" for t in tags(summary))
        sys.stdout.write(f"{mark} {summary.id}  {describe(summary)}{tail}\n")
    if current_id:
        sys.stdout.write(f"{MARK}\n")


def json_row(summary: SessionSummary, current: bool) -> dict[str, Any]:
    return {
        "id": summary.id,
        "title": summary.title,
        "started": summary.started,
        "last_activity": summary.last_activity,
        "model": summary.model,
        "messages": summary.messages,
        "calls": summary.calls,
        "first_prompt": summary.first_prompt[:80],
        "own_prompt": summary.own_prompt[:80],
        "forked_from": summary.forked_from,
        "branch": f"agent/{summary.worktree}" if summary.worktree else None,
        "continue": current,
    }
