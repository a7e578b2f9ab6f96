"""Slash commands from `.claude/commands/` through `agent run -p "/name args"`: the real CLI,
real git, the fake model. Trusted, the `!`cmd`` line runs and its output is in the first request;
untrusted, it is asked (headless: not run).

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FAKE_API_KEY
from tests.e2e.helpers import all_text, last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli

REVIEW = (
    "---\ndescription: Review one file against the diff\nargument-hint: <file>\n"
    "allowed-tools: Bash(git diff:*)\nmodel: haiku\n---\n"
    "Review $ARGUMENTS carefully; the first argument is $1.\n\nChanges:\n!`git diff --stat`\n"
)


def git_workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "x.py").write_text("a = 1\n")
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "one"]):
        subprocess.run(
            ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
            cwd=ws,
            check=True,
            capture_output=True,
        )
    (ws / "src" / "x.py").write_text("a = 2\nb = 3\n")
    (ws / ".claude" / "commands").mkdir(parents=True)
    (ws / ".claude" / "commands" / "review.md").write_text(REVIEW)
    return ws


def first_prompt(server: FakeAnthropic) -> tuple[str, str]:
    body = server.bodies()[0]
    return "".join(b.get("text", "") for b in last_user_blocks(body)), body["model"]


def test_trusted_command_sends_body_argument_and_command_output(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = git_workspace(tmp_path)
    trusted = run_cli(fake_env, ws, "trust")
    assert trusted.returncode == 0, trusted.stderr
    assert "command review runs before sending: `git diff --stat`" in trusted.stdout
    fake_model.script.text("Looks fine.")
    proc = run_cli(fake_env, ws, "run", "-p", "/review src/x.py")
    assert proc.returncode == 0, proc.stderr
    text, model = first_prompt(fake_model)
    assert "Review src/x.py carefully; the first argument is src/x.py." in text
    assert "$ git diff --stat" in text
    assert "src/x.py | 3 ++-" in text
    assert "1 file changed" in text
    assert "exit code: 0" in text
    assert "!`" not in text
    assert model == "claude-haiku-4-5"  # the command's `model: haiku`, for its turn


def test_untrusted_command_line_is_asked_not_run(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = git_workspace(tmp_path)
    marker = ws / "ran.txt"
    commands = ws / ".claude" / "commands"
    (commands / "touch.md").write_text("Touch: !`touch ran.txt`\n")
    fake_model.script.text("ok").text("ok")
    proc = run_cli(fake_env, ws, "run", "-p", "/review src/x.py")
    assert proc.returncode == 0, proc.stderr
    text, _ = first_prompt(fake_model)
    assert "Review src/x.py carefully" in text
    assert "`git diff --stat` was not run: the workspace is not trusted" in text
    assert "1 file changed" not in text
    proc = run_cli(fake_env, ws, "run", "-p", "/touch")
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()


def test_namespaces_unknown_commands_and_the_listing(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = tmp_path / "ws"
    folder = ws / ".claude" / "commands" / "frontend"
    folder.mkdir(parents=True)
    (folder / "component.md").write_text("---\ndescription: New component\n---\nMake $1.\n")
    (ws / ".claude" / "commands" / "broken.md").write_bytes(b"\0\0binary")
    fake_model.script.text("one").text("two").text("three")
    for prompt in ("/frontend:component Button", "/component Card", "/nosuch thing"):
        assert run_cli(fake_env, ws, "run", "-p", prompt).returncode == 0
    texts = [
        "".join(b.get("text", "") for b in last_user_blocks(body)) for body in fake_model.bodies()
    ]
    assert texts[0].startswith("Make Button.")
    assert texts[1].startswith("Make Card.")
    assert texts[2] == "/nosuch thing"  # not a command: sent as written
    listing = run_cli(fake_env, ws, "commands", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    rows = json.loads(listing.stdout)
    assert [r["name"] for r in rows] == ["frontend:component"]
    assert "broken.md: a binary file" in listing.stderr


@pytest.mark.usefixtures("sandbox_off")  # sandboxed, the write would run unasked anyway
def test_allowed_tools_hold_for_the_commands_turn_only_and_only_when_trusted(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = tmp_path / "ws"
    (ws / ".claude" / "commands").mkdir(parents=True)
    (ws / ".claude" / "commands" / "mark.md").write_text(
        "---\nallowed-tools: Bash(touch:*)\n---\nMake the mark $1.\n"
    )
    for _ in range(3):
        fake_model.script.tool_use("bash", command="touch mark.txt").text("done")
    assert run_cli(fake_env, ws, "run", "-p", "/mark one").returncode == 0  # untrusted
    assert not (ws / "mark.txt").exists()
    assert run_cli(fake_env, ws, "trust").returncode == 0
    assert run_cli(fake_env, ws, "run", "-p", "/mark two").returncode == 0
    assert (ws / "mark.txt").exists()  # granted for the command's turn: no question asked
    (ws / "mark.txt").unlink()
    assert run_cli(fake_env, ws, "run", "-p", "touch it").returncode == 0  # not a command
    assert not (ws / "mark.txt").exists()


def test_an_inlined_file_never_carries_the_api_key(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = tmp_path / "ws"
    (ws / ".claude" / "commands").mkdir(parents=True)
    (ws / ".claude" / "commands" / "show.md").write_text("Explain $1:\n")
    (ws / "env.txt").write_text(f"KEY={FAKE_API_KEY}\nOTHER=1\n")
    fake_model.script.text("ok")
    assert run_cli(fake_env, ws, "run", "-p", "/show @env.txt").returncode == 0
    sent = json.dumps(fake_model.bodies()[0])
    assert "OTHER=1" in sent
    assert FAKE_API_KEY not in sent
    assert FAKE_API_KEY not in all_text(ws / ".transcripts")
