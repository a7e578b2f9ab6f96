"""`agent chat`'s options are defined once (cli/chat_start.py) and parsed without typer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_cli.cli.chat_start import parse_chat_args
from agent_cli.core.errors import UsageError
from agent_cli.core.options import Options


def test_known_options_parse_to_typed_options(tmp_path: Path):
    options = parse_chat_args(
        ["-c", "--model", "m", "--permission-mode", "plan", "-w", str(tmp_path)]
    )
    assert options == Options(
        workspace=tmp_path.resolve(), model="m", permission_mode="plan", continue_last=True
    )
    assert parse_chat_args([]) == Options(workspace=Path().resolve())


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--bogus"], "--bogus"),
        (["--permission-mode", "yolo"], "yolo"),
        (["extra"], "extra"),
        (["--model"], "--model"),
        (["-r", "x", "-c"], "--continue"),
        (["-w", "/no/such/dir"], "/no/such/dir"),
    ],
)
def test_mistakes_are_usage_errors_naming_the_flag(argv: list[str], named: str):
    with pytest.raises(UsageError, match=named.replace("/", ".")):
        parse_chat_args(argv)


@pytest.mark.parametrize(
    "via", [["-m", "agent_cli", "chat"], ["-c", "from agent_cli.cli.app import app; app()", "chat"]]
)
def test_help_and_bad_flags_through_both_entries(via: list[str]):
    """The console entry and typer's command hand over to the same parser."""
    run = [sys.executable, *via]
    shown = subprocess.run(
        [*run, "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert shown.returncode == 0
    assert "--permission-mode" in shown.stdout
    assert "--continue" in shown.stdout
    bad = subprocess.run([*run, "--bogus"], capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2
    assert "--bogus" in bad.stderr
    assert "Traceback" not in bad.stderr
