"""Issue 54 item 5: a hook entry that says `"on_failure": "block"` fails closed. A hook that
cannot start (its command is missing), times out, or exits other than 0/2 then denies the call:
the tool does not run and the model reads a denial naming the hook and what went wrong. Without
it (the default) the same failures let the call pass, as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import last_user_blocks, run_agent
from tests.fake_model import FakeAnthropic

# (hook, what the denial says went wrong)
FAILURES: dict[str, tuple[dict[str, Any], str]] = {
    "missing": ({"command": "no-such-hook-command-54"}, "failed (exit 127)"),
    "timeout": ({"command": "sleep 30", "timeout_s": 0.5}, "timed out after 0.5 s"),
    "exit-1": ({"command": "echo broken >&2; exit 1"}, "failed (exit 1): broken"),
}


def _user_settings(env: dict[str, str], data: dict[str, Any]) -> None:
    path = Path(env["HOME"]) / ".config" / "agent" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _run_with_hook(
    fake_model: FakeAnthropic, env: dict[str, str], ws: Path, hook: dict[str, Any]
) -> dict[str, Any]:
    """One `agent run` whose model calls `touch ran` behind `hook`; the call's result."""
    ws.mkdir()
    _user_settings(
        env,
        {"hooks": {"pre_tool_use": [hook]}, "permissions": {"allow": ["bash(touch *)"]}},
    )
    fake_model.script.tool_use("bash", command="touch ran").text("done")
    proc = run_agent(env, ws, "run", "-p", "go")
    assert proc.returncode == 0, proc.stderr
    (result,) = [b for b in last_user_blocks(fake_model.bodies()[-1]) if b["type"] == "tool_result"]
    return result


@pytest.mark.parametrize("kind", FAILURES)
def test_a_failing_hook_set_to_block_denies_the_call(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, kind: str
):
    hook, what = FAILURES[kind]
    ws = tmp_path / "ws"
    result = _run_with_hook(fake_model, fake_env, ws, {**hook, "on_failure": "block"})
    assert not (ws / "ran").exists()  # the tool never ran
    assert result["is_error"] is True
    content = str(result["content"])
    assert "Denied by a pre_tool_use hook" in content
    assert repr(hook["command"]) in content  # names the hook
    assert what in content  # and what went wrong


@pytest.mark.parametrize("kind", FAILURES)
def test_by_default_a_failing_hook_lets_the_call_pass(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, kind: str
):
    hook, _ = FAILURES[kind]
    ws = tmp_path / "ws"
    result = _run_with_hook(fake_model, fake_env, ws, hook)
    assert (ws / "ran").exists()
    assert not result.get("is_error")


@pytest.mark.parametrize(
    ("hooks", "named"),
    [
        ({"pre_tool_use": [{"command": "true", "on_failure": "deny"}]}, "on_failure"),
        ({"stop": [{"command": "true", "on_failure": "block"}]}, "stop.0.on_failure"),
    ],
)
def test_a_bad_on_failure_exits_2_naming_it(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, hooks: Any, named: str
):
    _user_settings(fake_env, {"hooks": hooks})
    proc = run_agent(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr
    assert "Traceback" not in proc.stderr
    assert fake_model.bodies() == []  # refused before any request


def _claude_run(
    fake_model: FakeAnthropic, env: dict[str, str], ws: Path, hook: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    """The same in Claude Code's protocol: a trusted workspace's `.claude/settings.json`."""
    ws.mkdir()
    (ws / ".claude").mkdir()
    groups = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", **hook}]}]}
    (ws / ".claude" / "settings.json").write_text(json.dumps({"hooks": groups}))
    fake_model.script.tool_use("bash", command="touch ran").text("done")
    env = {**env, "AGENT_TRUST_WORKSPACE": "1"}
    proc = run_agent(env, ws, "run", "-p", "go", "--permission-mode", "bypass")
    assert proc.returncode == 0, proc.stderr
    (result,) = [b for b in last_user_blocks(fake_model.bodies()[-1]) if b["type"] == "tool_result"]
    return result, proc.stderr


@pytest.mark.parametrize("kind", FAILURES)
def test_a_failing_claude_code_hook_set_to_block_denies_the_call(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path, kind: str
):
    hook, what = FAILURES[kind]
    hook = {"command": hook["command"], "timeout": hook.get("timeout_s", 10)}
    ws = tmp_path / "ws"
    result, _ = _claude_run(fake_model, fake_env, ws, {**hook, "on_failure": "block"})
    assert not (ws / "ran").exists()
    content = str(result["content"])
    assert "Denied by a PreToolUse hook" in content
    assert repr(hook["command"]) in content
    assert what in content


def test_a_claude_code_hook_failing_without_block_or_with_a_bad_value_passes_and_says_so(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    hook = {"command": "exit 1", "on_failure": "deny"}
    result, stderr = _claude_run(fake_model, fake_env, tmp_path / "ws", hook)
    assert (tmp_path / "ws" / "ran").exists()
    assert not result.get("is_error")
    assert "on_failure 'deny'" in stderr  # another product's file: a warning, not exit 2


def test_a_failing_prompt_hook_set_to_block_vetoes_the_prompt(
    fake_model: FakeAnthropic, fake_env: dict[str, str], tmp_path: Path
):
    hook = {"command": "exit 1", "on_failure": "block"}
    _user_settings(fake_env, {"hooks": {"user_prompt_submit": [hook]}})
    proc = run_agent(fake_env, tmp_path, "run", "-p", "go")
    assert proc.returncode == 1, proc.stderr  # a vetoed prompt, as an exit-2 hook's
    assert "'exit 1' failed (exit 1)" in proc.stderr
    assert fake_model.bodies() == []  # the prompt never reached the model
