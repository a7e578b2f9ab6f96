"""The side panel's usage in the real `agent chat` (issue 37: `in 128.2k out 2…` at 140
columns): a long session's figures are shown whole at 140 and at 80 columns, in the full panel,
the compact one (F2) and the one-line summary an approval leaves room for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic

F2 = "\x1bOQ"
COMPACT = re.compile(r"in 1\d\d(\.\d)?k out 2\.3k")  # the compact panel's usage, whole
BIG = {"input_tokens": 128_200, "output_tokens": 2_345, "cache_read_input_tokens": 0}


def panel_rows(screen: str, columns: int) -> list[str]:
    """The rows the panel takes: beside the reply from 100 columns up, below it under that."""
    lines = screen.split("\n")
    if columns >= 100:
        return [line[columns - 40 :] for line in lines if len(line) > columns - 40]
    start = next(n for n, line in enumerate(lines) if line.startswith("-" * 20))
    return lines[start + 1 : -2]  # above the status bar and the input


@pytest.mark.parametrize(("columns", "lines"), [(140, 45), (80, 24)])
def test_the_usage_figures_are_never_cut(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, columns: int, lines: int
):
    fake_model.script.text("A long session's reply.", usage=BIG)
    term = ChatTerm(fake_env, tmp_path, columns=columns, lines=lines)
    try:
        term.wait_for("you>")
        term.type("go on")
        full = term.wait_for(lambda t: "A long session's reply." in t and "k/200k" in t)
        term.send(F2)  # compact
        compact = term.wait_for(lambda t: COMPACT.search(t) is not None)
    finally:
        term.close()
    for screen in (full, compact):
        rows = panel_rows(screen, columns)
        assert rows, screen
        assert not [row for row in rows if "…" in row], screen
        assert "$" in "".join(rows)  # the cost stays in
