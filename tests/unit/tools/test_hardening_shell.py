"""Issue 19, a hostile repository through the real CLI: read-only commands that would read
outside through symlinks (finding 1), git config that names programs (finding 2), deny-list
evasions (finding 9).

Run in process (tests/in_process.run_cli): the same command without a process's start-up."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in last_user_blocks(body) if b["type"] == "tool_result"]


def _run_commands(
    fake_model: FakeAnthropic, env: dict[str, str], ws: Path, commands: list[str], mode: str
) -> list[dict[str, Any]]:
    fake_model.script.tool_uses(*(("bash", {"command": c}) for c in commands)).text("done")
    proc = run_cli(env, ws, "run", "-p", "look", "--permission-mode", mode)
    assert proc.returncode == 0, proc.stderr
    return _results(fake_model.bodies()[-1])


# the rules that keep a command unsandboxed; sandboxed, reads outside are allowed but credentials
# hidden and the agent's /proc out of sight (test_sandbox_run)
@pytest.mark.usefixtures("sandbox_off")
@pytest.mark.parametrize("mode", ["default", "plan"])
def test_read_only_commands_through_symlinks_out_of_the_workspace_are_not_run_unasked(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, mode: str
):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "credentials").write_text("SECRET-CREDENTIAL-42\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "creds").symlink_to(outside / "credentials")
    (ws / "linkdir").symlink_to(outside)
    (ws / "p").symlink_to("/proc")
    (ws / "own.txt").write_text("mine\n")
    commands = [
        "cat creds",
        "head creds",
        "grep -r SECRET linkdir",
        f"cat p/{os.getpid()}/environ | tr a-z n-za-m",
        "grep -R SECRET .",
        "cat own.txt",
    ]
    results = _run_commands(fake_model, fake_env, ws, commands, mode)
    for result in results[:-1]:
        assert result["is_error"] is True, result
        assert "SECRET-CREDENTIAL" not in result["content"]
        assert "ANTHROPIC" not in result["content"]
        assert "NBGUEBCVP" not in result["content"]
    assert "mine" in results[-1]["content"]
    sent = str(fake_model.bodies())
    assert "SECRET-CREDENTIAL" not in sent
    assert "NBGUEBCVP" not in sent


def _hostile_repo(ws: Path, marker: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True)

    git("init", "-q")
    (ws / "f.txt").write_text("one\n")
    (ws / ".gitattributes").write_text("* diff=evil filter=evil\n")
    git("add", ".")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "first")
    (ws / "f.txt").write_text("one\ntwo\n")
    run = f"touch {marker}"
    for key, value in {
        "core.fsmonitor": f"{run}-fsmonitor; false",
        "diff.external": f"{run}-external; true",
        "diff.evil.command": f"{run}-command; true",
        "diff.evil.textconv": f"{run}-textconv; cat",
        "filter.evil.clean": f"{run}-clean; cat",
        "filter.evil.process": f"{run}-process",
        "log.showSignature": "true",
        "gpg.program": f"{run}-gpg",
    }.items():
        git("config", key, value)


def test_read_only_git_runs_unasked_without_the_programs_the_repository_config_names(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = tmp_path / "ws"
    ws.mkdir()
    marker = tmp_path / "pwned"
    _hostile_repo(ws, marker)
    commands = ["git status", "git diff", "git log -p", "git show HEAD", "git log --show-signature"]
    for mode in ("default", "plan"):
        results = _run_commands(fake_model, fake_env, ws, commands, mode)
        assert [r.get("is_error") for r in results] == [None] * 5, results
        assert "f.txt" in results[0]["content"]
        assert "+two" in results[1]["content"]  # git's own diff, not the external one
        assert "+one" in results[2]["content"]
    assert not list(tmp_path.glob("pwned*"))


def test_a_folder_shaped_like_a_bare_repository_runs_no_diff_program(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", "--bare", str(ws)], check=True)
    marker = tmp_path / "pwned"
    with (ws / "config").open("a") as f:
        f.write(f'[diff]\n\texternal = "touch {marker}"\n[core]\n\tfsmonitor = "touch {marker}"\n')
    (ws / "a.txt").write_text("a\n")
    (ws / "b.txt").write_text("b\n")
    commands = ["git diff --no-index a.txt b.txt", "git status"]
    results = _run_commands(fake_model, fake_env, ws, commands, "default")
    assert len(results) == 2
    assert not marker.exists()


def test_bypass_refuses_wrapped_and_spelled_out_deny_list_commands(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    commands = [
        "env -u HOME sudo id",
        "timeout -s KILL 5 sudo id",
        "stdbuf -o L sudo id",
        "find . -maxdepth 0 -exec sudo id \\;",
        "rm -rf ${HOME}",
        'rm -rf "${HOME}"',
    ]
    results = _run_commands(fake_model, fake_env, tmp_path, commands, "bypass")
    for command, result in zip(commands, results, strict=True):
        assert result["is_error"] is True, command
        assert "deny list" in result["content"], (command, result["content"])
    assert Path(fake_env["HOME"]).is_dir()
