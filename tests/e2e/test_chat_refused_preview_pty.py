"""A refused or failed call shows why first (issue 56 item 3), in the real `agent chat` at
80x24: a host the user denied is not a success (`✔ … → exit 0`) with the sandbox's reason
hidden under `+2 lines`, and a failed edit's reason is wrapped, not cut at the screen's edge."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic


def _rows_after(screen: str, head: str) -> list[str]:
    rows = screen.split("\n")
    at = next(i for i, row in enumerate(rows) if head in row)
    return rows[at:]


@pytest.mark.skipif(
    shutil.which("bwrap") is None or shutil.which("curl") is None,
    reason="bubblewrap or curl not installed",
)
def test_a_denied_host_is_not_a_success_and_its_reason_comes_first(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, port: int
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    # the command itself ends well (exit 0) and prints more than the preview's lines
    command = f"curl -sS http://127.0.0.1:{port}/ || echo no page; echo one; echo two; echo three"
    fake_model.script.tool_use("bash", command=command)
    fake_model.script.text("it was refused")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("fetch the page")
        term.wait_for("Allow for this project")
        term.send("3")  # Deny
        screen = term.wait_for(lambda s: "it was refused" in s and "working…" not in s)
    finally:
        term.close()
    result = str(fake_model.bodies()[-1]["messages"][-1]["content"][0]["content"])
    assert "refused by the user" in result  # the sandbox really refused it
    assert "hello there" not in result
    rows = _rows_after(screen, "bash curl")
    assert not rows[0].lstrip().startswith("✔"), rows[0]
    reason = f"[sandbox: network request refused: 127.0.0.1:{port} was refused by the user]"
    shown = " ".join(" ".join(r.strip().removeprefix("│").split()) for r in rows[1:4])
    assert rows[1].strip().startswith("│ [sandbox: network request refused"), rows[1]
    assert reason in shown, rows[:5]


def test_a_failed_edits_reason_is_wrapped_whole_at_80_columns(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "abc.py").write_text("x = 1\n")
    fake_model.script.tool_use("read_file", path="abc.py")
    fake_model.script.tool_use("edit_file", path="abc.py", old_string="y = 1", new_string="y = 2")
    fake_model.script.text("The text was not there; nothing changed.")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("change y")
        screen = term.wait_for(lambda s: "nothing changed." in s and "working…" not in s)
    finally:
        term.close()
    rows = _rows_after(screen, "✗ edit_file abc.py")
    assert "…" not in "\n".join(rows[1:4]), rows[:5]
    shown = " ".join(" ".join(r.strip().removeprefix("│").split()) for r in rows[1:5])
    assert "including whitespace and indentation; read the file again and copy the text." in shown
