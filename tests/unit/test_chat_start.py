"""`agent chat` is parsed without typer when it can be; anything else goes to typer."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_cli.cli.chat_start import fast_args


def test_known_options_parse_without_typer():
    args = fast_args(["-c", "--model", "m", "--permission-mode", "plan", "-w", "/tmp"])
    assert args == {
        "resume": None,
        "continue_last": True,
        "model": "m",
        "permission_mode": "plan",
        "workspace": Path("/tmp"),
        "state_dir": None,
    }
    assert fast_args([]) == {
        "resume": None,
        "continue_last": False,
        "model": None,
        "permission_mode": None,
        "workspace": Path(),
        "state_dir": None,
    }


@pytest.mark.parametrize(
    "argv", [["--help"], ["-h"], ["--bogus"], ["--permission-mode", "yolo"], ["extra"], ["--model"]]
)
def test_help_and_mistakes_are_left_to_typer(argv: list[str]):
    assert fast_args(argv) is None
