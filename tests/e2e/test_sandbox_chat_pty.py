"""The sandbox in `agent chat`, as a person sees it at 80x24: a sandboxed write runs unasked,
one the model marks `unsandboxed` is asked and says it would run outside; the status bar shows
the sandbox and `/sandbox` the rules in force."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.pty_screen import ChatTerm
from tests.fake_model import FakeAnthropic

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


def test_a_sandboxed_write_is_not_asked_and_an_unsandboxed_one_is(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    fake_model.script.tool_use("bash", command="echo in > inside.txt")
    fake_model.script.tool_use("bash", command="echo out > escaped.txt", unsandboxed=True)
    fake_model.script.text("both written")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.wait_for("sandbox bwrap")  # in the status bar
        term.type("write two files")
        screen = term.wait_for("Esc / Ctrl-C: no, and stop the turn")
        assert "outside the sandbox" in screen
        assert "inside.txt" not in screen.split("outside the sandbox")[0].split("Allow")[-1]
        assert (tmp_path / "inside.txt").read_text() == "in\n"  # ran before, unasked
        assert not (tmp_path / "escaped.txt").exists()
        term.send("1")
        term.wait_for("both written")
    finally:
        term.close()
    assert (tmp_path / "escaped.txt").read_text() == "out\n"
    assert len(fake_model.bodies()) == 3


def test_slash_sandbox_shows_the_rules_in_force(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("/sandbox")
        screen = term.wait_for("writable:")
    finally:
        term.close()
    assert "sandbox bwrap (mode auto)" in screen
    assert str(tmp_path) in screen
    assert "~/.ssh" in screen
    assert "network: none allowed" in screen
