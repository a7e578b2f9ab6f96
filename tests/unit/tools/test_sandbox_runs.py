"""The shell sandbox through `agent run` in `default` mode: real bubblewrap, the fake model.

Run in process (tests/in_process.run_cli); what needs the agent's own process is
tests/e2e/test_sandbox_run.py's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.helpers import last_user_blocks
from tests.fake_model import FakeAnthropic
from tests.in_process import run_cli
from tests.sandbox_support import sandbox_workspace

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

DENIED = "[sandbox: a write outside the workspace or to a protected path was denied"


def _results(fake_model: FakeAnthropic) -> list[str]:
    return [str(b["content"]) for b in last_user_blocks(fake_model.bodies()[-1])]


def _path_without_bwrap(tmp_path: Path) -> str:
    """A PATH holding the tools a command needs but not bubblewrap."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "git", "touch", "cat", "rg"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


def test_writes_inside_run_unasked_and_confined_ones_fail_naming_the_sandbox(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws = sandbox_workspace(tmp_path)
    home = Path(fake_env["HOME"])
    commands = [
        "echo ok > inside.txt",
        "echo x > ../outside.txt",
        "touch ~/x",
        'echo \'{"permissions": {"mode": "bypass"}}\' > .agent/settings.json',
        "echo evil > .git/hooks/pre-commit",
        "echo forged >> .transcripts/forged.jsonl",
    ]
    fake_model.script.tool_uses(*[("bash", {"command": c}) for c in commands]).text("done")
    proc = run_cli(fake_env, ws, "run", "-p", "write things")
    assert proc.returncode == 0, proc.stderr
    results = _results(fake_model)
    assert "exit code: 0" in results[0]
    assert "Permission denied: " not in results[0]  # it was not asked
    assert (ws / "inside.txt").read_text() == "ok\n"
    for command, result in zip(commands[1:], results[1:], strict=True):
        assert DENIED in result, (command, result)
        assert "Read-only file system" in result
    assert not (tmp_path / "outside.txt").exists()
    assert not (home / "x").exists()
    assert (ws / ".agent" / "settings.json").read_text() == "{}\n"
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert not (ws / ".transcripts" / "forged.jsonl").exists()


def test_unsandboxed_is_refused_in_run_naming_the_flag(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws = sandbox_workspace(tmp_path)
    fake_model.script.tool_use("bash", command="echo out > escaped.txt", unsandboxed=True)
    fake_model.script.text("done")
    proc = run_cli(fake_env, ws, "run", "-p", "escape")
    assert proc.returncode == 0, proc.stderr
    (result,) = _results(fake_model)
    assert "outside the sandbox" in result
    assert "--permission-mode bypass" in result
    assert not (ws / "escaped.txt").exists()


def test_plan_mode_refuses_unsandboxed_even_read_only(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws = sandbox_workspace(tmp_path)
    fake_model.script.tool_use("bash", command="cat ~/.ssh/id_rsa", unsandboxed=True)
    fake_model.script.text("done")
    proc = run_cli(fake_env, ws, "run", "-p", "x", "--permission-mode", "plan")
    assert proc.returncode == 0, proc.stderr
    (result,) = _results(fake_model)
    assert "Refused in plan mode" in result
    assert "outside the sandbox" in result


def test_required_without_bubblewrap_runs_no_command(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws = sandbox_workspace(tmp_path)
    env = {**fake_env, "PATH": _path_without_bwrap(tmp_path)}
    fake_model.script.tool_use("bash", command="touch ran.txt").text("done")
    proc = run_cli(env, ws, "run", "-p", "x", "--sandbox", "required")
    assert proc.returncode == 0, proc.stderr
    (result,) = _results(fake_model)
    assert "sandbox required but unavailable" in result
    assert "apt install bubblewrap" in result
    assert not (ws / "ran.txt").exists()
    lines = [line for line in proc.stderr.splitlines() if "sandbox" in line]
    assert len(lines) == 1, proc.stderr
    assert "shell commands will not run" in lines[0]


def test_auto_without_bubblewrap_says_once_why_and_the_fix(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws = sandbox_workspace(tmp_path)
    env = {**fake_env, "PATH": _path_without_bwrap(tmp_path)}
    fake_model.script.tool_use("bash", command="echo a > a.txt")
    fake_model.script.tool_use("bash", command="echo b > b.txt").text("done")
    proc = run_cli(env, ws, "run", "-p", "x", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "a.txt").exists()
    assert (ws / "b.txt").exists()
    lines = [line for line in proc.stderr.splitlines() if "sandbox" in line]
    assert lines == [
        "agent: sandbox off: bubblewrap is not installed; fix: apt install bubblewrap"
    ], proc.stderr


def test_a_bad_sandbox_flag_or_setting_exits_2_naming_it(
    fake_env: dict[str, str], tmp_path: Path
) -> None:
    ws = sandbox_workspace(tmp_path)
    proc = run_cli(fake_env, ws, "run", "-p", "x", "--sandbox", "sometimes")
    assert proc.returncode == 2
    assert "--sandbox" in proc.stderr
    (ws / ".agent" / "settings.json").write_text('{"sandbox": {"mode": "loose"}}')
    proc = run_cli(fake_env, ws, "run", "-p", "x")
    assert proc.returncode == 2
    assert "sandbox.mode" in proc.stderr
    assert "Traceback" not in proc.stderr
