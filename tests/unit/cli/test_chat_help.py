"""`agent chat --help` is laid out as typer lays out every other command's help (`agent run
--help`'s), listing every option chat's parser takes (issue 56); parsing stays the parser's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from agent_cli.cli.chat_start import chat_parser

SHARED = ("-r, --resume", "-c, --continue", "-m, --model", "--permission-mode", "--sandbox",
          "-w, --workspace", "--state-dir", "--worktree", "--base", "-h, --help")  # fmt: skip


def helped(*argv: str) -> str:
    env = {**os.environ, "COLUMNS": "80"}
    run = [sys.executable, "-m", "agent_cli", *argv]
    shown = subprocess.run(run, capture_output=True, text=True, timeout=60, check=False, env=env)
    assert shown.returncode == 0, shown.stderr
    return shown.stdout


def left(text: str, option: str) -> str:
    """The option's cell (its names and value) as the help lists it."""
    (line,) = [ln for ln in text.splitlines() if ln.startswith(f"  {option}")]
    return line.split("  ")[1]


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_chat_help_is_laid_out_as_run_help(flag: str):
    chat, run = helped("chat", flag), helped("run", "--help")
    assert chat.startswith("Usage: agent chat [OPTIONS]\n\n  Talk with the agent")
    assert "\nOptions:\n" in chat
    assert "usage:" not in chat
    assert "options:" not in chat  # argparse's words
    for option in SHARED:
        assert left(chat, option) == left(run, option), option
    listed = {name for a in chat_parser()._actions for name in a.option_strings}
    for name in listed:
        assert name in chat, name
    assert max(len(line) for line in chat.splitlines()) <= 80
