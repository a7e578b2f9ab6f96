"""`/help` in the real `agent chat` (issue 37): every command and every key the screen binds
(Ctrl-B and F2 among them), each description wrapped under itself, at 80 and 140 columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_cli.runtime.extensions.registry import discover
from agent_cli.ui.slash.commands import HELP, KEYS, extension_commands
from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic


@pytest.mark.parametrize(("columns", "lines"), [(80, 24), (140, 45)])
def test_help_lists_the_keys_with_a_hanging_indent(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, columns: int, lines: int
):
    term = ChatTerm(fake_env, tmp_path, columns=columns, lines=lines, scrollback=True)
    try:
        term.wait_for("you>")
        term.type("/help all")  # /help alone: the most used (issue 56)
        term.wait_for("attach a file to the prompt")
        shown = term.scrollback()
    finally:
        term.close()
    block = shown[shown.index("you> /help all") + 1 :]
    block = block[: next(n for n, line in enumerate(block) if "attach a file" in line) + 1]
    chat = discover(path=[])  # every built-in extension's too, as a chat asks for them all
    added = [c.usage or c.name for _, c in extension_commands(chat).values()]
    names = [*HELP, *KEYS, *added]
    for name in ("Ctrl-B", "F2", "Ctrl-O", "Shift-Tab", "Ctrl-G", "Ctrl-R", *added):
        assert any(line.startswith(name + " ") for line in block), (name, block)
    heads = [n for n, line in enumerate(block) if line in ("Extensions", "Keys")]
    bounds = zip([-1, *heads], [*heads, len(block)], strict=True)
    for part in (block[start + 1 : end] for start, end in bounds):  # each section's own column
        column = len(part[0]) - len(part[0].split("  ")[-1].lstrip())  # where texts start
        for line in part:
            if line and not any(line.startswith(name) for name in names):
                assert line[:column].isspace(), (column, line)  # continued under its text
            assert len(line) < columns
