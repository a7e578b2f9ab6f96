"""The sandbox in `agent chat`, as a person sees it at 80x24: a sandboxed write runs unasked,
one the model marks `unsandboxed` is asked and says it would run outside; the status bar shows
the sandbox and `/sandbox` the rules in force; a request to an unlisted host is asked; without
bubblewrap the fallback is said once."""

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


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl not installed")
def test_a_request_to_an_unlisted_host_is_asked_and_allowed_once(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, port: int
) -> None:
    fake_model.script.tool_use("bash", command=f"curl -sS http://127.0.0.1:{port}/")
    fake_model.script.text("fetched it")
    term = ChatTerm(fake_env, tmp_path, columns=80, lines=24)
    try:
        term.wait_for("you>")
        term.type("fetch the page")
        screen = term.wait_for("Allow for this project")
        assert f"wants to reach 127.0.0.1:{port}" in screen
        assert "Allow once" in screen
        assert "Deny" in screen
        term.send("1")
        term.wait_for("fetched it")
    finally:
        term.close()
    result = str(fake_model.bodies()[-1]["messages"][-1]["content"][0]["content"])
    assert result.startswith("hello there"), result
    config = Path(fake_env["HOME"]) / ".config" / "agent" / "approved-hosts.json"
    assert not config.exists()  # once: nothing remembered


def test_without_bubblewrap_chat_says_the_fallback_once(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "git", "rg"):  # what the agent needs, not bubblewrap
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    env = {**fake_env, "PATH": str(bin_dir)}
    ws = tmp_path / "ws"
    ws.mkdir()
    notice = "agent: sandbox off: bubblewrap is not installed; fix: apt install bubblewrap"
    term = ChatTerm(env, ws, columns=80, lines=24, scrollback=True)
    try:
        term.wait_for(lambda t: "you>" in t and notice in t and "no sandbox" in t)  # status bar
        term.type("/help all")  # a long answer: the notice scrolls off, and is not said again
        term.wait_for("attach a file to the prompt")  # /help's last line
        seen = "\n".join(term.scrollback())
    finally:
        term.close()
    assert seen.count(notice) == 1, seen  # once, however long the session goes
