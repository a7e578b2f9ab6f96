"""A status line of one's own (issue 39) in the real `agent chat` at 80x24: a script reading
Claude Code's `context_window.used_percentage` from stdin is shown in the status bar and run
again after a turn; a script past its timeout is killed (its children too) and the old line
stays, logged once; the terminal's title says the session and its state, and is given back."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from tests.e2e.pty_screen import CTRL_D, ChatTerm
from tests.e2e.test_chat_steering_pty import user_settings
from tests.fake_model import FakeAnthropic

ECHO_PERCENT = """
import json, pathlib, sys
data = json.load(sys.stdin)
pathlib.Path(sys.argv[1]).write_text(json.dumps(data))
print("ctx used", data["context_window"]["used_percentage"], "of", data["model"]["id"])
print("a second line nobody sees")
"""

SLOW_AFTER_FIRST = """
import json, os, pathlib, subprocess, sys, time
data = json.load(sys.stdin)
runs = pathlib.Path(sys.argv[1])
n = len(runs.read_text().split()) if runs.exists() else 0
runs.write_text("run " * (n + 1))
if n == 0:
    print("first line", data["session_id"])
else:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    pathlib.Path(sys.argv[2]).write_text(str(child.pid))
    time.sleep(30)
    print("too late")
"""


def bar(term: ChatTerm) -> str:
    """The status bar: the row above the input ("" before the input is drawn)."""
    return bar_row(term.text())


def bar_row(screen: str) -> str:
    rows = screen.splitlines()
    inputs = [i for i, row in enumerate(rows) if row.startswith("you>")]
    return rows[inputs[-1] - 1] if inputs and inputs[-1] > 0 else ""


def script(tmp_path: Path, name: str, text: str, *args: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return " ".join([sys.executable, str(path), *args])


def test_a_script_reading_used_percentage_is_shown_and_updated_after_a_turn(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    seen = tmp_path / "stdin.json"
    command = script(tmp_path, "percent.py", ECHO_PERCENT, str(seen))
    user_settings(
        fake_env, {"status_line": {"command": command, "refresh_s": 600, "timeout_ms": 5_000}}
    )
    workspace = tmp_path / "ws"
    workspace.mkdir()
    fake_model.script.text("Hello.")
    term = ChatTerm(fake_env, workspace, columns=80, lines=24)
    try:
        term.wait_for(lambda _: "ctx used None" in bar(term))  # before any request
        before = bar(term)
        assert "mode default" in before  # what the user acts on stays beside it
        assert "a second line" not in term.text()
        term.type("hi")
        term.wait_for("Hello.")
        term.wait_for(lambda _: "ctx used 2 of claude-" in bar(term))  # run after the turn
        term.type("/rename Fixing the parser")
        term.wait_for("is now titled")
        term.wait_for(lambda _: "Fixing the parser" in seen.read_text())  # run again for it
        screen = term.text()
        term.send(CTRL_D)
        raw = term.finish()
    finally:
        term.close()
    data = json.loads(seen.read_text())  # Claude Code's keys, meaning the same
    assert data["hook_event_name"] == "Status"
    assert data["workspace"] == {"current_dir": str(workspace), "project_dir": str(workspace)}
    assert data["cwd"] == str(workspace)
    assert data["transcript_path"].endswith(f"{data['session_id']}.jsonl")
    assert Path(data["transcript_path"]).is_file()
    window = data["context_window"]
    assert window["context_window_size"] == 200_000
    assert window["used_percentage"] + window["remaining_percentage"] == 100
    usage = window["current_usage"]
    assert round(100 * usage["input_tokens"] / 200_000) == window["used_percentage"]
    assert data["cost"]["total_cost_usd"] > 0
    assert data["cost"]["total_api_duration_ms"] > 0
    assert data["agent"]["title"] == "Fixing the parser"
    assert data["agent"]["state"] == "idle"
    assert "ctx 2%" not in bar_row(screen)  # the script's line stands for the built-in parts
    assert "\x1b[22;0t" in raw  # the terminal's title pushed at start ...
    assert "\x1b]2;ws · idle · agent\x1b\\" in raw
    assert "\x1b]2;ws · working · agent\x1b\\" in raw
    assert "\x1b]2;Fixing the parser · idle · agent\x1b\\" in raw
    assert raw.rindex("\x1b[23;0t") > raw.rindex("\x1b]2;")  # ... and given back at exit


def test_a_script_past_its_timeout_leaves_the_old_line_and_is_killed(
    fake_env: dict[str, str], tmp_path: Path
):
    runs, child = tmp_path / "runs.txt", tmp_path / "child.pid"
    command = script(tmp_path, "slow.py", SLOW_AFTER_FIRST, str(runs), str(child))
    spec = {"command": command, "refresh_s": 0.5, "timeout_ms": 2_000}  # room for a loaded machine
    user_settings(fake_env, {"status_line": spec})
    workspace = tmp_path / "ws"
    workspace.mkdir()
    term = ChatTerm(fake_env, workspace, columns=80, lines=24)
    try:
        term.wait_for(lambda _: "first line" in bar(term))
        log = workspace / "logs" / "agent.log"
        timed_out = "no answer within 2000 ms; the last line stays"
        term.wait_for(lambda _: log.exists() and timed_out in log.read_text(), timeout=30)
        term.wait_for(lambda _: len(runs.read_text().split()) >= 3, timeout=30)  # one at a time
        time.sleep(0.5)
        term.pump()
        shown = bar(term)
        term.send(CTRL_D)
        term.finish()
    finally:
        term.close()
    assert "first line" in shown
    assert "too late" not in shown
    pid = int(child.read_text())
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pid)  # the script's own child went with it
    assert log.read_text().count(timed_out) == 1  # said once for the failures in a row


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return status.exists() and status.read_text().split()[2] != "Z"


def test_a_workspace_status_line_needs_trust(fake_env: dict[str, str], tmp_path: Path):
    from agent_cli.runtime.extensions.settings import read_settings
    from agent_cli.runtime.trust_items import widening_items

    (tmp_path / ".agent").mkdir()
    spec = {"status_line": {"command": "echo from the repository"}}
    (tmp_path / ".agent" / "settings.json").write_text(json.dumps(spec))
    assert read_settings(tmp_path, trusted=False).model_dump()["status_line"] is None
    trusted = read_settings(tmp_path, trusted=True).model_dump()["status_line"]
    assert trusted is not None
    assert trusted["command"] == "echo from the repository"
    described = [item.description for item in widening_items(tmp_path)]
    assert "status line: echo from the repository" in described
